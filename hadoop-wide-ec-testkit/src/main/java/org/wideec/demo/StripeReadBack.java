package org.wideec.demo;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.code.LinearCode;
import org.wideec.coder.ErasureCoder;

/**
 * The product layer's end check of an updated archive: every stored parity of every stripe equals an encode of the
 * data as it is now (units reached by inode and block id, since updated parity lives under a new version), and every
 * stripe gives back its data units from a random k-subset of what is stored. A mismatch is an IOException naming the
 * stripe and unit: the bench stops rather than report figures of a run that lost data.
 */
final class StripeReadBack {
  private final DistributedFileSystem fs;
  private final Random rnd;

  StripeReadBack(DistributedFileSystem fs, Random rnd) {
    this.fs = fs;
    this.rnd = rnd;
  }

  /** Checks every stripe of the manifest; returns how many it decoded. */
  int check(StripeManifest m) throws IOException {
    for (ArchivedStripe s : m.stripes()) {
      byte[][] units = new byte[s.code().n()][];
      for (int u = 0; u < units.length; u++) {
        units[u] = unit(s, u);
      }
      parityEqualsEncode(s, units);
      decodesFromRandomKSubset(s, units);
    }
    return m.stripes().size();
  }

  private void parityEqualsEncode(ArchivedStripe s, byte[][] units) throws IOException {
    LinearCode code = s.code();
    ByteBuffer[] data = new ByteBuffer[code.k()];
    for (int d = 0; d < data.length; d++) {
      data[d] = ByteBuffer.wrap(units[d]);
    }
    ByteBuffer[] parity = new ByteBuffer[code.n() - code.k()];
    for (int p = 0; p < parity.length; p++) {
      parity[p] = ByteBuffer.allocate((int) s.unitLength());
    }
    ErasureCoder.java(code).encode(data, parity);
    for (int u = code.k(); u < code.n(); u++) {
      if (!s.member(u).padding() && !Arrays.equals(parity[u - code.k()].array(), units[u])) {
        throw new IOException("stripe " + s.stripeId() + " (" + s.codeSpec() + "): stored parity unit " + u
            + " differs from an encode of the stripe's data");
      }
    }
  }

  private void decodesFromRandomKSubset(ArchivedStripe s, byte[][] units) throws IOException {
    LinearCode code = s.code();
    List<Integer> rows = new ArrayList<>();
    List<Integer> stored = new ArrayList<>();
    for (int u = 0; u < code.n(); u++) {
      if (!s.member(u).padding()) {
        stored.add(u);
      } else if (u < code.k()) {
        rows.add(u); // virtual data: known zeros
      }
    }
    Collections.shuffle(stored, rnd);
    for (int u : stored) {
      if (rows.size() == code.k()) {
        break;
      }
      rows.add(u);
      if (code.generator().selectRows(rows.stream().mapToInt(Integer::intValue).toArray()).rank() < rows.size()) {
        rows.remove(rows.size() - 1);
      }
    }
    if (rows.size() < code.k()) {
      throw new IOException("stripe " + s.stripeId() + " (" + s.codeSpec() + "): its stored units " + stored
          + " do not decode");
    }
    ByteBuffer[] in = new ByteBuffer[code.n()];
    for (int u : rows) {
      in[u] = ByteBuffer.wrap(units[u]);
    }
    ByteBuffer[] out = new ByteBuffer[code.k()];
    for (int d = 0; d < out.length; d++) {
      out[d] = ByteBuffer.allocate((int) s.unitLength());
    }
    ErasureCoder.java(code).reconstructData(in, out);
    for (int d = 0; d < out.length; d++) {
      if (!Arrays.equals(units[d], out[d].array())) {
        throw new IOException("stripe " + s.stripeId() + " (" + s.codeSpec() + "): data unit " + d
            + " decoded from units " + rows + " differs from the stored one");
      }
    }
  }

  /** A unit's stored bytes, zero-padded to the stripe's unit length (all zeros when virtual). */
  private byte[] unit(ArchivedStripe s, int u) throws IOException {
    StripeMember m = s.member(u);
    byte[] out = new byte[(int) s.unitLength()];
    if (m.padding()) {
      return out;
    }
    String file = ArchiveLayout.inodePath(m.inodeId()).toString();
    long len = fs.getClient().getFileInfo(file).getLen();
    for (LocatedBlock lb : fs.getClient().getLocatedBlocks(file, 0, len).getLocatedBlocks()) {
      if (lb.getBlock().getBlockId() == m.blockId()) {
        try (FSDataInputStream in = fs.open(new Path(file))) {
          in.readFully(lb.getStartOffset(), out, 0, (int) m.length());
        }
        return out;
      }
    }
    throw new IOException("stripe " + s.stripeId() + " unit " + u + ": block blk_" + m.blockId() + " is not in "
        + file + " (inode " + m.inodeId() + ")");
  }
}
