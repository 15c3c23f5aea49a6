package org.wideec.minicluster;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
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
 * The read-back check of an archive whose stripes were updated (rm, replace, fill), shared by the cluster tests and
 * the product bench: each stored unit read by inode and block id (updated parity lives under a new version) with the
 * generation stamp, length and CRC32C its manifest records, every stored parity equal to an independent encode of the
 * data as it is now, and the data units given back by a random decodable k-subset of what is stored (virtual data as
 * known zeros). A mismatch is an IOException naming the stripe and unit.
 */
public final class StripeReadBack {
  private final DistributedFileSystem fs;

  public StripeReadBack(DistributedFileSystem fs) {
    this.fs = fs;
  }

  /** Every stripe of the manifest against an encode and decoded from a random k-subset; returns how many. */
  public int check(StripeManifest m, Random rnd) throws IOException {
    for (ArchivedStripe s : m.stripes()) {
      parityEqualsEncode(s);
      decodesFromRandomKSubset(s, rnd);
    }
    return m.stripes().size();
  }

  /** Stored bytes of a member, zero-padded to the unit length (all zeros when virtual), checked against its record. */
  public byte[] unit(ArchivedStripe s, int u) throws IOException {
    StripeMember m = s.member(u);
    byte[] out = new byte[(int) s.unitLength()];
    if (m.padding()) {
      return out;
    }
    String where = "stripe " + s.stripeId() + " (" + s.codeSpec() + ") unit " + u;
    String file = ArchiveLayout.inodePath(m.inodeId()).toString();
    long len = fs.getClient().getFileInfo(file).getLen();
    for (LocatedBlock lb : fs.getClient().getLocatedBlocks(file, 0, len).getLocatedBlocks()) {
      if (lb.getBlock().getBlockId() == m.blockId()) {
        if (lb.getBlock().getGenerationStamp() != m.generationStamp() || lb.getBlockSize() != m.length()) {
          throw new IOException(where + ": block blk_" + m.blockId() + " has generation stamp "
              + lb.getBlock().getGenerationStamp() + " and " + lb.getBlockSize() + " bytes, the manifest records "
              + m.generationStamp() + " and " + m.length());
        }
        try (FSDataInputStream in = fs.open(new Path(file))) {
          in.readFully(lb.getStartOffset(), out, 0, (int) m.length());
        }
        CRC32C crc = new CRC32C();
        crc.update(out, 0, (int) m.length());
        if (crc.getValue() != m.crc32c()) {
          throw new IOException(where + ": its bytes have CRC32C 0x" + Long.toHexString(crc.getValue())
              + ", the manifest records 0x" + Long.toHexString(m.crc32c()));
        }
        return out;
      }
    }
    throw new IOException(where + ": block blk_" + m.blockId() + " is not in " + file + " (inode " + m.inodeId()
        + ")");
  }

  /** Every stored parity equals the encode of the data read back. */
  public void parityEqualsEncode(ArchivedStripe s) throws IOException {
    LinearCode code = s.code();
    ByteBuffer[] data = new ByteBuffer[code.k()];
    for (int d = 0; d < data.length; d++) {
      data[d] = ByteBuffer.wrap(unit(s, d));
    }
    ByteBuffer[] parity = new ByteBuffer[code.n() - code.k()];
    for (int p = 0; p < parity.length; p++) {
      parity[p] = ByteBuffer.allocate((int) s.unitLength());
    }
    ErasureCoder.java(code).encode(data, parity);
    for (int u = code.k(); u < code.n(); u++) {
      if (!s.member(u).padding() && !Arrays.equals(parity[u - code.k()].array(), unit(s, u))) {
        throw new IOException("stripe " + s.stripeId() + " (" + s.codeSpec() + "): stored parity unit " + u
            + " differs from an encode of the stripe's data");
      }
    }
  }

  /** A random decodable k-subset of the stored units (virtual data as zeros) gives back every data unit. */
  public void decodesFromRandomKSubset(ArchivedStripe s, Random rnd) throws IOException {
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
      in[u] = ByteBuffer.wrap(unit(s, u));
    }
    ByteBuffer[] out = new ByteBuffer[code.k()];
    for (int d = 0; d < out.length; d++) {
      out[d] = ByteBuffer.allocate((int) s.unitLength());
    }
    ErasureCoder.java(code).reconstructData(in, out);
    for (int d = 0; d < out.length; d++) {
      if (!Arrays.equals(unit(s, d), out[d].array())) {
        throw new IOException("stripe " + s.stripeId() + " (" + s.codeSpec() + "): data unit " + d
            + " decoded from units " + rows + " differs from the stored one");
      }
    }
  }
}
