package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.ArrayList;
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
 * The checks a parity update ends with (rm, replace, fill): each stripe's stored parity against an independent encode
 * of its data read back by inode and block id, decodes from random k-subsets, and every byte of every file.
 */
final class UpdatedStripeChecks {
  private final DistributedFileSystem fs;
  private final ArchiveChecks checks;

  UpdatedStripeChecks(DistributedFileSystem fs, ArchiveChecks checks) {
    this.fs = fs;
    this.checks = checks;
  }

  /** The checks every update ends with: each stripe against an independent encode, decodes, and every byte. */
  void everythingChecksOut(StripeManifest m) throws Exception {
    for (ArchivedStripe s : m.stripes()) {
      stripeMatchesIndependentEncode(s);
      for (long seed = 0; seed < 4; seed++) {
        decodesFromARandomKSubset(s, new Random(seed));
      }
    }
    checks.everyByteReadsBack();
  }

  /** Stored bytes of a member, reached by inode and block id (a short block zero-padded to the unit length). */
  byte[] unit(ArchivedStripe s, int u) throws Exception {
    StripeMember m = s.member(u);
    byte[] out = new byte[(int) s.unitLength()];
    if (m.padding()) {
      return out;
    }
    String file = ArchiveLayout.inodePath(m.inodeId()).toString();
    long len = fs.getClient().getFileInfo(file).getLen();
    for (LocatedBlock lb : fs.getClient().getLocatedBlocks(file, 0, len).getLocatedBlocks()) {
      if (lb.getBlock().getBlockId() == m.blockId()) {
        assertEquals(m.generationStamp(), lb.getBlock().getGenerationStamp(), "stripe " + s.stripeId() + " unit " + u);
        assertEquals(m.length(), lb.getBlockSize(), "stripe " + s.stripeId() + " unit " + u);
        try (FSDataInputStream in = fs.open(new Path(file))) {
          in.readFully(lb.getStartOffset(), out, 0, (int) m.length());
        }
        return out;
      }
    }
    throw new AssertionError("stripe " + s.stripeId() + " unit " + u + ": block " + m.blockId() + " is not in " + file);
  }

  /** Every stored parity equals the encode of the data read back (by inode: updated parity lives in v<N>/). */
  void stripeMatchesIndependentEncode(ArchivedStripe s) throws Exception {
    LinearCode code = s.code();
    ByteBuffer[] data = new ByteBuffer[code.k()];
    for (int u = 0; u < code.k(); u++) {
      byte[] b = unit(s, u);
      if (!s.member(u).padding()) {
        assertEquals(s.member(u).crc32c(), ArchiveChecks.crc(java.util.Arrays.copyOf(b, (int) s.member(u).length())));
      }
      data[u] = ByteBuffer.wrap(b);
    }
    ByteBuffer[] parity = new ByteBuffer[code.n() - code.k()];
    for (int p = 0; p < parity.length; p++) {
      parity[p] = ByteBuffer.allocate((int) s.unitLength());
    }
    ErasureCoder.java(code).encode(data, parity);
    for (int u = code.k(); u < code.n(); u++) {
      if (!s.member(u).padding()) {
        byte[] stored = unit(s, u);
        assertArrayEquals(parity[u - code.k()].array(), stored, "stripe " + s.stripeId() + " parity " + u);
        assertEquals(s.member(u).crc32c(), ArchiveChecks.crc(stored), "stripe " + s.stripeId() + " parity " + u);
      }
    }
  }

  /** A random decodable k-subset of the stored units (virtual data as zeros) gives back every data unit. */
  void decodesFromARandomKSubset(ArchivedStripe s, Random rnd) throws Exception {
    LinearCode code = s.code();
    List<Integer> rows = new ArrayList<>();
    List<Integer> stored = new ArrayList<>();
    for (int u = 0; u < code.n(); u++) {
      if (s.member(u).padding()) {
        if (u < code.k()) {
          rows.add(u);
        }
      } else {
        stored.add(u);
      }
    }
    Collections.shuffle(stored, rnd);
    for (int u : stored) {
      rows.add(u);
      if (code.generator().selectRows(rows.stream().mapToInt(Integer::intValue).toArray()).rank() < rows.size()) {
        rows.remove(rows.size() - 1);
      }
      if (rows.size() == code.k()) {
        break;
      }
    }
    assertEquals(code.k(), rows.size(), "stripe " + s.stripeId() + " decodes");
    ByteBuffer[] units = new ByteBuffer[code.n()];
    for (int u : rows) {
      units[u] = ByteBuffer.wrap(unit(s, u));
    }
    ByteBuffer[] out = new ByteBuffer[code.k()];
    for (int d = 0; d < out.length; d++) {
      out[d] = ByteBuffer.allocate((int) s.unitLength());
    }
    ErasureCoder.java(code).reconstructData(units, out);
    for (int d = 0; d < code.k(); d++) {
      assertArrayEquals(unit(s, d), out[d].array(), "stripe " + s.stripeId() + " data " + d + " from " + rows);
    }
  }

  /** The data units that name the inode, per stripe id. */
  static List<String> unitsOf(StripeManifest m, long inode) {
    List<String> out = new ArrayList<>();
    for (ArchivedStripe s : m.stripes()) {
      for (int u = 0; u < s.code().k(); u++) {
        if (!s.member(u).padding() && s.member(u).inodeId() == inode) {
          out.add(s.stripeId() + ":" + u);
        }
      }
    }
    return out;
  }
}
