package org.wideec.archive.hdfs;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.BitSet;
import java.util.zip.CRC32C;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.CodewordSubsets;
import org.wideec.archive.SourcePiece;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.SymbolDecoder;
import org.wideec.coder.Kernels;

/**
 * The non-systematic layout's {@link org.wideec.archive.UnarchiveLifecycle.Step#RESTORE}: every source piece decoded
 * from live codewords of its stripe (the first independent ones; a codeword whose read fails is dropped and another
 * subset taken) into a new replicated file, each piece checked against the manifest's CRC32C while written and again
 * read back once closed. A stripe whose live codewords cannot decode it refuses before the file is made.
 */
final class PieceDecoder {
  private static final Logger LOG = LoggerFactory.getLogger(PieceDecoder.class);
  private static final int CHUNK = 1 << 20;

  private final DistributedFileSystem dfs;

  PieceDecoder(DistributedFileSystem dfs) {
    this.dfs = dfs;
  }

  /**
   * Proves the run still holds the archive's lock before it changes {@code what} ({@link ManifestStore#checkHeld}): a
   * run taken for dead must not delete or replace the copy that the run which recovered the lock restored.
   */
  @FunctionalInterface
  interface Fence {
    void prove(String what) throws IOException;
  }

  /**
   * Decodes every piece into {@code copy} at {@code replication} (replacing a leftover of a crashed run), checked
   * twice by CRC32C; the lock proven before the leftover is deleted and before the copy is made.
   *
   * @param name the archived path, named in messages
   * @return the inode id of the copy written
   */
  long restore(String name, StripeManifest m, Path copy, short replication, Fence fence) throws IOException {
    for (ArchivedStripe s : m.stripes()) {
      basis(name, s, liveCodewords(s)); // every stripe decodable before anything is written
    }
    long length = SealedFiles.length(m);
    long largest = m.stripes().stream().flatMap(s -> s.sources().stream()).mapToLong(SourcePiece::length).max()
        .orElse(0);
    long pieces = m.stripes().stream().mapToLong(s -> s.sources().size()).sum();
    // The original block size: every piece but the last was a full block; a one-block file keeps the default.
    long blockSize = pieces > 1 ? largest : Math.max(largest, dfs.getDefaultBlockSize(copy));
    fence.prove("deleting the restored copy " + copy + " of " + name);
    dfs.delete(copy, false); // a crashed run's (open or closed) leftover
    fence.prove("writing the restored copy " + copy + " of " + name);
    try (FSDataOutputStream out = dfs.create(copy, new FsPermission((short) 0600), false, 64 * 1024, replication,
        blockSize, null)) {
      for (ArchivedStripe s : m.stripes()) {
        decodeStripe(name, s, out);
      }
    }
    HdfsFileStatus written = dfs.getClient().getFileInfo(copy.toString());
    if (written.getLen() != length) {
      throw new IOException(name + ": the restored copy " + copy + " has " + written.getLen() + " bytes, the manifest "
          + length + "; nothing was freed: rerun");
    }
    checkReadBack(name, m, copy);
    return written.getFileId();
  }

  private void checkReadBack(String name, StripeManifest m, Path copy) throws IOException {
    byte[] buf = new byte[CHUNK];
    try (FSDataInputStream in = dfs.open(copy)) {
      for (ArchivedStripe s : m.stripes()) {
        for (int t = 0; t < s.sources().size(); t++) {
          SourcePiece p = s.sources().get(t);
          CRC32C crc = new CRC32C();
          for (long pos = 0; pos < p.length(); pos += buf.length) {
            int len = (int) Math.min(buf.length, p.length() - pos);
            in.readFully(p.offset() + pos, buf, 0, len);
            crc.update(buf, 0, len);
          }
          check(name, s, t, crc.getValue(), "read back from " + copy);
        }
      }
    }
  }

  private void decodeStripe(String name, ArchivedStripe s, FSDataOutputStream out) throws IOException {
    BitSet live = liveCodewords(s);
    byte[] buf = new byte[(int) Math.min(CHUNK, Math.max(1, s.unitLength()))];
    try (SealedStripeReader reader = new SealedStripeReader(dfs, s, new SymbolDecoder(s.code(), Kernels.best()))) {
      for (int t = 0; t < s.sources().size(); t++) {
        SourcePiece p = s.sources().get(t);
        CRC32C crc = new CRC32C();
        for (long pos = 0; pos < p.length(); pos += buf.length) {
          int len = (int) Math.min(buf.length, p.length() - pos);
          readRange(name, s, reader, live, t, pos, buf, len);
          out.write(buf, 0, len);
          crc.update(buf, 0, len);
        }
        check(name, s, t, crc.getValue(), "decoded");
      }
    }
  }

  /** One range of piece {@code t}, from the first decodable subset of codewords that reads. */
  private void readRange(String name, ArchivedStripe s, SealedStripeReader reader, BitSet live, int t, long pos,
      byte[] buf, int len) throws IOException {
    while (true) {
      int[] units = basis(name, s, live);
      try {
        reader.readPiece(units, t, pos, buf, 0, len);
        return;
      } catch (IOException e) {
        // Which codeword failed is not known: drop the whole subset's streams, and the first codeword read
        // failing on its own is retried by the next subset; a subset failing twice loses its first unit.
        int failed = firstFailing(reader, units, pos, len);
        LOG.warn("{}: stripe {} codeword {} unreadable ({}); decoding from others", name, s.stripeId(), failed,
            e.toString());
        live.clear(failed);
        reader.drop(failed);
      }
    }
  }

  /** The first independent codewords among the live ones, or a refusal naming the stripe. */
  private static int[] basis(String name, ArchivedStripe s, BitSet live) throws IOException {
    try {
      return CodewordSubsets.basis(s.code(), live);
    } catch (RuntimeException e) {
      throw new IOException(name + ": stripe " + s.stripeId() + " cannot be decoded from the codewords left "
          + live + " (" + e.getMessage() + "); nothing was freed", e);
    }
  }

  /** The first of the units whose own range read fails (the last unit when each reads alone). */
  private int firstFailing(SealedStripeReader reader, int[] units, long pos, int len) {
    byte[] probe = new byte[len];
    for (int u : units) {
      reader.drop(u);
      try (FSDataInputStream in = dfs.open(CodewordFiles.file(reader.stripe(), u))) {
        in.readFully(pos, probe, 0, len);
      } catch (IOException e) {
        return u;
      }
    }
    return units[units.length - 1];
  }

  /** Codewords whose file still holds the recorded block with a live replica. */
  private BitSet liveCodewords(ArchivedStripe s) throws IOException {
    BitSet live = new BitSet();
    for (int u = 0; u < s.members().size(); u++) {
      StripeMember c = s.member(u);
      if (c.padding()) {
        continue;
      }
      LocatedBlocks lbs;
      try {
        lbs = dfs.getClient().getLocatedBlocks(CodewordFiles.file(s, u).toString(), 0, Math.max(1, c.length()));
      } catch (FileNotFoundException e) {
        continue;
      }
      if (lbs == null || lbs.getLocatedBlocks().size() != 1) {
        continue;
      }
      LocatedBlock b = lbs.get(0);
      if (b.getBlock().getBlockId() == c.blockId() && b.getBlock().getGenerationStamp() == c.generationStamp()
          && b.getBlock().getNumBytes() == c.length() && b.getLocations().length > 0 && !b.isCorrupt()) {
        live.set(u);
      }
    }
    return live;
  }

  private static void check(String name, ArchivedStripe s, int t, long crc, String how) throws IOException {
    SourcePiece p = s.sources().get(t);
    if (crc != p.crc32c()) {
      throw new IOException(name + ": stripe " + s.stripeId() + " piece " + t + " (block " + p.blockId() + ", offset "
          + p.offset() + ") " + how + " to CRC32C 0x" + Long.toHexString(crc) + ", the manifest records 0x"
          + Long.toHexString(p.crc32c()) + "; nothing was freed");
    }
  }
}
