package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.zip.CRC32C;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.coder.ErasureCoder;

/**
 * What the archival tests check against HDFS itself, independently of the archiver's code: files written with
 * known bytes, parity recomputed from data read back with a stock client, CRCs and placement as HDFS reports them.
 */
final class ArchiveChecks {
  private final DistributedFileSystem fs;
  private final Map<String, byte[]> written = new HashMap<>();

  ArchiveChecks(DistributedFileSystem fs) {
    this.fs = fs;
  }

  /**
   * The archival test bed: 6 racks x 3 DataNodes, 64 KiB blocks, the classic encoder coding 16 KiB chunks (so every
   * unit spans several and short blocks end mid-chunk), stripes in file order unless a test asks otherwise.
   */
  static org.apache.hadoop.hdfs.MiniDFSCluster cluster(java.io.File dir, long blockSize) throws java.io.IOException {
    return cluster(dir, blockSize, new org.apache.hadoop.conf.Configuration());
  }

  /** The archival test bed over a base configuration (our NameNode plugin and policies, say). */
  static org.apache.hadoop.hdfs.MiniDFSCluster cluster(java.io.File dir, long blockSize,
      org.apache.hadoop.conf.Configuration conf) throws java.io.IOException {
    org.apache.hadoop.conf.Configuration base = new org.apache.hadoop.conf.Configuration(conf);
    base.setInt(org.wideec.archive.hdfs.ClientClassicEncoder.CHUNK_KEY, 16 * 1024);
    // The archival tests' stripes, counts and fills were written for blocks in file order; tests of core-rack
    // grouping (CoreRackArchivalClusterTest) ask for it themselves.
    base.setIfUnset(org.wideec.archive.ArchiveGrouping.KEY, "files");
    // Every manifest write and parity file ends in a close, which polls the NameNode from 400 ms on by default.
    base.setInt("dfs.client.block.write.locateFollowingBlock.initial.delay.ms", 20);
    return org.wideec.minicluster.MiniClusters.start(base, dir, 6, 3, blockSize);
  }

  /**
   * Every path under / (the system directory too) with its length, modification time, replication, permission, ACL
   * (when the NameNode has ACLs on), xattrs and replica locations: equal before and after means nothing changed.
   */
  static String namespace(DistributedFileSystem fs) throws Exception {
    StringBuilder b = new StringBuilder();
    java.util.ArrayDeque<Path> todo = new java.util.ArrayDeque<>(List.of(new Path("/")));
    while (!todo.isEmpty()) {
      for (org.apache.hadoop.fs.FileStatus st : fs.listStatus(todo.poll())) {
        b.append(st.getPath().toUri().getPath()).append(' ').append(st.getLen()).append(' ')
            .append(st.getModificationTime()).append(' ').append(st.getReplication()).append(' ')
            .append(st.getPermission());
        if (st.hasAcl()) {
          b.append(' ').append(fs.getAclStatus(st.getPath()).getEntries());
        }
        new java.util.TreeMap<>(fs.getXAttrs(st.getPath())).forEach((k, v) -> b.append(' ').append(k).append('=')
            .append(java.util.HexFormat.of().formatHex(v)));
        if (st.isDirectory()) {
          todo.add(st.getPath());
        } else {
          for (LocatedBlock lb : fs.getClient().getLocatedBlocks(st.getPath().toUri().getPath(), 0,
              Math.max(1, st.getLen())).getLocatedBlocks()) {
            b.append(" blk_").append(lb.getBlock().getBlockId()).append('_')
                .append(lb.getBlock().getGenerationStamp()).append(java.util.Arrays.stream(lb.getLocations())
                    .map(org.apache.hadoop.hdfs.protocol.DatanodeInfo::getXferAddr).sorted().toList());
          }
        }
        b.append('\n');
      }
    }
    return b.toString();
  }

  /** Writes seeded random bytes at replication 3 and remembers them. */
  void write(String path, long bytes) throws Exception {
    byte[] data = new byte[(int) bytes];
    new Random(path.hashCode()).nextBytes(data);
    try (FSDataOutputStream o = fs.create(new Path(path), (short) 3)) {
      o.write(data);
    }
    written.put(path, data);
  }

  /**
   * Writes seeded random bytes at replication 3 with favored nodes (every block's replicas on those DataNodes, as
   * far as HDFS honours them) and remembers them.
   */
  void writeOn(String path, long bytes, java.net.InetSocketAddress... favored) throws Exception {
    byte[] data = new byte[(int) bytes];
    new Random(path.hashCode()).nextBytes(data);
    try (FSDataOutputStream o = fs.create(new Path(path), org.apache.hadoop.fs.permission.FsPermission.getFileDefault(),
        true, 4096, (short) 3, fs.getDefaultBlockSize(new Path(path)), null, favored)) {
      o.write(data);
    }
    written.put(path, data);
  }

  /**
   * Writes bytes seeded by {@code seed} (so two paths can hold the same bytes) at replication 3 through another
   * client (its own checksum settings, say) and remembers them.
   */
  void writeWith(org.apache.hadoop.fs.FileSystem client, String path, long bytes, String seed) throws Exception {
    byte[] data = new byte[(int) bytes];
    new Random(seed.hashCode()).nextBytes(data);
    try (FSDataOutputStream o = client.create(new Path(path), (short) 3)) {
      o.write(data);
    }
    written.put(path, data);
  }

  /** Appends to a file, and expects the bytes appended. */
  void append(String path, byte[] extra) throws java.io.IOException {
    try (FSDataOutputStream o = fs.append(new Path(path))) {
      o.write(extra);
    }
    byte[] before = written.get(path);
    byte[] after = java.util.Arrays.copyOf(before, before.length + extra.length);
    System.arraycopy(extra, 0, after, before.length, extra.length);
    written.put(path, after);
  }

  /** Deletes a file; its bytes are no longer expected. */
  void delete(String path) throws Exception {
    assertTrue(fs.delete(new Path(path), false), path);
    written.remove(path);
  }

  /** A file removed some other way (wide-ec rm): its bytes are no longer expected at its path. */
  void removed(String path) {
    written.remove(path);
  }

  /** A file moved some other way (wide-ec replace renamed it in): its bytes are expected at the new path. */
  void moved(String from, String to) {
    written.put(to, written.remove(from));
  }

  void rename(String from, String to) throws Exception {
    assertEquals(true, fs.rename(new Path(from), new Path(to)));
    written.put(to, written.remove(from));
  }

  /** Every byte of every file written so far reads back unchanged through a stock client. */
  void everyByteReadsBack() throws Exception {
    for (Map.Entry<String, byte[]> e : written.entrySet()) {
      byte[] expected = e.getValue();
      assertEquals(expected.length, fs.getFileStatus(new Path(e.getKey())).getLen(), e.getKey());
      byte[] actual = new byte[expected.length];
      try (FSDataInputStream in = fs.open(new Path(e.getKey()))) {
        in.readFully(0, actual);
      }
      assertArrayEquals(expected, actual, e.getKey());
    }
  }

  /**
   * A committed (or trimmed) stripe as HDFS holds it: each stored data block's CRC32C is the manifest's; each stored parity
   * file is one block of the recorded id, generation stamp and CRC32C, on the planned node, and equals the parity
   * an independent encode of the data (read back through HDFS, short blocks and padding zero-filled) computes.
   */
  void stripeMatchesIndependentEncode(ArchivedStripe s) throws Exception {
    stripeMatchesIndependentEncode(s, true);
  }

  /** The same; {@code onPlannedNode} false where a planned node died, so HDFS had to put a parity elsewhere. */
  void stripeMatchesIndependentEncode(ArchivedStripe s, boolean onPlannedNode) throws Exception {
    assertTrue(s.state() == StripeState.COMMITTED || s.state() == StripeState.TRIMMED,
        "stripe " + s.stripeId() + " is " + s.state());
    LinearCode code = Codes.pinnedFromSpec(s.codeSpec());
    int len = (int) s.unitLength();
    ByteBuffer[] data = new ByteBuffer[code.k()];
    for (int u = 0; u < code.k(); u++) {
      StripeMember m = s.member(u);
      byte[] b = new byte[len];
      if (!m.padding()) {
        byte[] block = readBlock(m);
        System.arraycopy(block, 0, b, 0, block.length);
        assertEquals(m.crc32c(), crc(block), "stripe " + s.stripeId() + " data unit " + u);
      }
      data[u] = ByteBuffer.wrap(b);
    }
    ByteBuffer[] parity = new ByteBuffer[code.n() - code.k()];
    for (int p = 0; p < parity.length; p++) {
      parity[p] = ByteBuffer.allocate(len);
    }
    ErasureCoder.java(code).encode(data, parity);
    for (int u = code.k(); u < code.n(); u++) {
      StripeMember m = s.member(u);
      Path file = ArchiveLayout.parityUnit(s.parityFilePath(), u);
      if (m.padding()) {
        assertFalse(fs.exists(file), "virtual parity " + u + " of stripe " + s.stripeId() + " is never stored");
        continue;
      }
      List<LocatedBlock> blocks = fs.getClient().getLocatedBlocks(file.toString(), 0, len).getLocatedBlocks();
      assertEquals(1, blocks.size(), file.toString());
      LocatedBlock b = blocks.get(0);
      assertEquals(m.blockId(), b.getBlock().getBlockId(), file.toString());
      assertEquals(m.generationStamp(), b.getBlock().getGenerationStamp(), file.toString());
      assertEquals(m.inodeId(), fs.getClient().getFileInfo(file.toString()).getFileId(), file.toString());
      assertEquals(1, b.getLocations().length, file + " has replication 1");
      if (onPlannedNode) {
        assertEquals(m.plannedNode(), b.getLocations()[0].getXferAddr(), file + " sits on its planned node");
      }
      byte[] stored = new byte[len];
      try (FSDataInputStream in = fs.open(file)) {
        in.readFully(0, stored);
      }
      assertArrayEquals(parity[u - code.k()].array(), stored, file.toString());
      assertEquals(m.crc32c(), crc(stored), file.toString());
    }
  }

  void everyStripeMatchesIndependentEncode(StripeManifest m) throws Exception {
    for (ArchivedStripe s : m.stripes()) {
      stripeMatchesIndependentEncode(s);
    }
  }

  /** The block's bytes, found by id in its file (reached by inode id). */
  byte[] readBlock(StripeMember m) throws Exception {
    String file = ArchiveLayout.inodePath(m.inodeId()).toString();
    long fileLength = fs.getClient().getFileInfo(file).getLen();
    for (LocatedBlock lb : fs.getClient().getLocatedBlocks(file, 0, fileLength).getLocatedBlocks()) {
      if (lb.getBlock().getBlockId() == m.blockId()) {
        byte[] b = new byte[(int) lb.getBlockSize()];
        try (FSDataInputStream in = fs.open(new Path(file))) {
          in.readFully(lb.getStartOffset(), b);
        }
        return b;
      }
    }
    throw new AssertionError("block " + m.blockId() + " is not in inode " + m.inodeId());
  }

  static long crc(byte[] b) {
    CRC32C c = new CRC32C();
    c.update(b);
    return c.getValue();
  }

  /** Stripe states in stripe order. */
  static List<StripeState> states(StripeManifest m) {
    List<StripeState> out = new ArrayList<>();
    m.stripes().forEach(s -> out.add(s.state()));
    return out;
  }
}
