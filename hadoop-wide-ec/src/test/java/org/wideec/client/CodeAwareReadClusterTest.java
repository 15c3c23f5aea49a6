package org.wideec.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DFSTestUtil;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.MiniDFSCluster.DataNodeProperties;
import org.apache.hadoop.hdfs.client.HdfsDataInputStream;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockManagerTestUtil;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.namenode.NameNode;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.code.ErasurePatterns;
import org.wideec.code.LinearCode;
import org.wideec.coder.StripedCodec;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.minicluster.MiniClusters;
import org.wideec.minicluster.StripedGroups;

/**
 * WideEcFileSystem on a real HDFS (18 racks of one DataNode, block tokens required): Azure-LRC
 * 12+2+2 files read through loss patterns HDFS's own reader cannot serve (DESIGN.md §2), and healthy
 * files read by the stock path. The test policy is AZURE-LRC-L2-12-4-1024k with a 64 KiB cell.
 *
 * <p>Deterministic: the NameNode's RedundancyMonitor is stopped once the files are written and settled,
 * so nothing is rebuilt behind the test's back; stopped DataNodes are marked dead at once
 * (setDataNodeDead), or kept listed on purpose for the stale-listing case, and restarted afterwards. Our
 * DataNode repair worker is not configured, so every pipelined degraded read (the default) finds no slice port and
 * falls back to the direct decode these tests check.
 */
class CodeAwareReadClusterTest {
  static final int CELL = 64 * 1024;
  static final long BLOCK = 4L * CELL;
  static final long GROUP = 12 * BLOCK;

  @TempDir
  static Path base;
  static MiniDFSCluster cluster;
  static DistributedFileSystem stock;
  static WideEcFileSystem wide;
  static ErasureCodingPolicy policy;
  static final LinearCode CODE = StripedCodec.AZURE_LRC_L2.codeFor(12, 4);
  /** Files of our policy by path: one short group, one full group, three groups of which the last is short. */
  static final Map<org.apache.hadoop.fs.Path, byte[]> files = new LinkedHashMap<>();
  static org.apache.hadoop.fs.Path multiGroup;
  final List<DataNodeProperties> stopped = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    Configuration conf = new Configuration();
    // DataNodes serve a replica only against a block token: the code-aware path must present the right one.
    conf.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    cluster = MiniClusters.start(conf, new File(base.toFile(), "dfs"), 18, 1, BLOCK);
    stock = cluster.getFileSystem();
    policy = WideEcPolicies.addAndEnable(stock, WideEcPolicies.policy("azure-lrc-l2", 12, 4, CELL));
    org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path("/lrc");
    stock.mkdirs(dir);
    stock.setErasureCodingPolicy(dir, policy.getName());
    Random r = new Random(11);
    for (long size : new long[] {1000, 3 * 12 * CELL + 17, GROUP, 2 * GROUP + 5 * CELL + 777}) {
      org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(dir, "f" + size);
      files.put(p, write(p, (int) size, BLOCK, r));
      multiGroup = p;
    }
    StripedGroups.awaitSettled(cluster, stock, policy, files.keySet(), 60_000);
    BlockManagerTestUtil.stopRedundancyThread(cluster.getNamesystem().getBlockManager());
    Configuration client = new Configuration(cluster.getConfiguration(0));
    client.set("fs.hdfs.impl", WideEcFileSystem.class.getName());
    wide = (WideEcFileSystem) FileSystem.newInstance(stock.getUri(), client);
  }

  @AfterAll
  static void stop() throws IOException {
    if (wide != null) {
      wide.close();
    }
    if (cluster != null) {
      cluster.shutdown();
    }
  }

  /** Brings stopped DataNodes back and waits until the NameNode lists every unit again. */
  @AfterEach
  void restoreDataNodes() throws Exception {
    setHeartbeatExpiry(14_000);
    // On fresh ports: other clusters on the machine may have taken the old ones meanwhile.
    MiniClusters.restartAndReport(cluster, stopped, MiniClusters.Ports.NEW);
    for (org.apache.hadoop.fs.Path p : files.keySet()) {
      StripedGroups.awaitComplete(stock, p, policy, 60_000);
    }
  }

  static byte[] write(org.apache.hadoop.fs.Path p, int size, long blockSize, Random r) throws IOException {
    byte[] data = new byte[size];
    r.nextBytes(data);
    DFSTestUtil.writeFile(stock, p, data, blockSize);
    return data;
  }

  static byte[] readSequentially(FileSystem fs, org.apache.hadoop.fs.Path p, int size) throws IOException {
    byte[] back = new byte[size];
    try (FSDataInputStream in = fs.open(p)) {
      IOUtils.readFully(in, back, 0, size);
      assertEquals(-1, in.read(), "no bytes beyond the file's length");
    }
    return back;
  }

  /** Every byte through sequential, positional, heap and direct ByteBuffer reads, with seeks. */
  static void everyReadReturnsTheFile(org.apache.hadoop.fs.Path p, byte[] data) throws IOException {
    assertArrayEquals(data, readSequentially(wide, p, data.length), "sequential read of " + p);
    Random r = new Random(data.length);
    try (FSDataInputStream in = wide.open(p)) {
      byte[] all = new byte[data.length];
      in.readFully(0, all);
      assertArrayEquals(data, all, "pread of " + p);
      for (int i = 0; i < 12; i++) {
        int from = r.nextInt(data.length);
        int len = Math.min(data.length - from, 1 + r.nextInt(3 * CELL));
        byte[] part = new byte[len];
        in.readFully(from, part, 0, len);
        assertArrayEquals(Arrays.copyOfRange(data, from, from + len), part, "pread [" + from + ", +" + len + ") of " + p);
        in.seek(from);
        byte[] seq = new byte[len];
        IOUtils.readFully(in, seq, 0, len);
        assertArrayEquals(part, seq, "seek to " + from + " and read " + len + " of " + p);
        ByteBuffer direct = ByteBuffer.allocateDirect(len);
        in.seek(from);
        while (direct.hasRemaining() && in.read(direct) > 0) {
          // ByteBufferReadable: fills as much as it can per call
        }
        assertEquals(ByteBuffer.wrap(part), direct.flip(), "ByteBuffer read at " + from + " of " + p);
        ByteBuffer heap = ByteBuffer.allocate(len);
        in.readFully(from, heap);
        assertEquals(ByteBuffer.wrap(part), heap.flip(), "ByteBuffer pread at " + from + " of " + p);
      }
      in.seek(data.length);
      assertEquals(-1, in.read());
    }
  }

  static LocatedStripedBlock group(org.apache.hadoop.fs.Path p, int index) throws IOException {
    return StripedGroups.groups(stock, p).get(index);
  }

  /** Stops the DataNodes holding the given units of a group; dead at once unless {@code keepListed}. */
  void stopUnits(LocatedStripedBlock g, boolean keepListed, int... units) throws IOException {
    for (int u : units) {
      DataNode dn = cluster.getDataNode(StripedGroups.location(g, u).getIpcPort());
      stopped.add(cluster.stopDataNode(cluster.getDataNodes().indexOf(dn)));
      if (!keepListed) {
        cluster.setDataNodeDead(dn.getDatanodeId());
      }
    }
    assertEquals(units.length, stopped.size());
  }

  static void setHeartbeatExpiry(long ms) {
    cluster.getNamesystem().getBlockManager().getDatanodeManager().setHeartbeatExpireInterval(ms);
  }

  static long getBlockLocationsCalls() throws ReflectiveOperationException {
    Field f = NameNode.getNameNodeMetrics().getClass().getDeclaredField("getBlockLocations");
    f.setAccessible(true);
    return ((MutableCounterLong) f.get(NameNode.getNameNodeMetrics())).value();
  }

  /** Every file whose groups the code can still decode reads back whole; the others fail naming their group. */
  static int readsAsTheCodePredicts() throws IOException {
    int readable = 0;
    for (Map.Entry<org.apache.hadoop.fs.Path, byte[]> e : files.entrySet()) {
      String undecodable = null;
      for (LocatedStripedBlock g : StripedGroups.groups(stock, e.getKey())) {
        int[] lost = StripedGroups.missingUnits(g, policy).stream().mapToInt(Integer::intValue).toArray();
        if (!ErasurePatterns.of(CODE).isDecodable(lost)) {
          undecodable = g.getBlock().getBlockName() + " lost " + Arrays.toString(lost);
        }
      }
      if (undecodable == null) {
        everyReadReturnsTheFile(e.getKey(), e.getValue());
        readable++;
      } else {
        IOException x = assertThrows(IOException.class, () -> readSequentially(wide, e.getKey(), e.getValue().length),
            e.getKey() + ": " + undecodable);
        assertTrue(x.getMessage().contains(CODE.spec()) && x.getMessage().contains("block group"), x.getMessage());
      }
    }
    return readable;
  }

  @Test
  void healthyFilesAreReadByTheStockPathWithNoExtraNameNodeCall() throws Exception {
    ReadPathCounters before = snapshot();
    for (Map.Entry<org.apache.hadoop.fs.Path, byte[]> e : files.entrySet()) {
      long calls = getBlockLocationsCalls();
      assertArrayEquals(e.getValue(), readSequentially(stock, e.getKey(), e.getValue().length));
      long stockCalls = getBlockLocationsCalls() - calls;
      calls = getBlockLocationsCalls();
      assertArrayEquals(e.getValue(), readSequentially(wide, e.getKey(), e.getValue().length));
      assertEquals(stockCalls, getBlockLocationsCalls() - calls, "NameNode calls reading " + e.getKey());
      everyReadReturnsTheFile(e.getKey(), e.getValue());
    }
    assertEquals(before.degradedReads(), wide.readPathCounters().degradedReads(), wide.readPathCounters().toString());
    assertEquals(before.unitsFetched(), wide.readPathCounters().unitsFetched());
    assertEquals(before.stockFallbacks(), wide.readPathCounters().stockFallbacks());
  }

  @Test
  void replicatedFilesAndOtherCodecsGetTheStockStream() throws Exception {
    org.apache.hadoop.fs.Path replicated = new org.apache.hadoop.fs.Path("/replicated");
    byte[] data = write(replicated, 100_000, BLOCK, new Random(1));
    stock.enableErasureCodingPolicy("XOR-2-1-1024k");
    org.apache.hadoop.fs.Path xorDir = new org.apache.hadoop.fs.Path("/xor");
    stock.mkdirs(xorDir);
    stock.setErasureCodingPolicy(xorDir, "XOR-2-1-1024k");
    org.apache.hadoop.fs.Path xor = new org.apache.hadoop.fs.Path(xorDir, "f");
    byte[] xorData = write(xor, 300_000, 1 << 20, new Random(2));
    for (org.apache.hadoop.fs.Path p : List.of(replicated, xor)) {
      try (FSDataInputStream in = wide.open(p)) {
        assertInstanceOf(HdfsDataInputStream.class, in, p + " is read by HDFS's own stream");
      }
    }
    assertArrayEquals(data, readSequentially(wide, replicated, data.length));
    assertArrayEquals(xorData, readSequentially(wide, xor, xorData.length));
    try (FSDataInputStream in = wide.open(multiGroup)) {
      assertInstanceOf(CodeAwareInputStream.class, in.getWrappedStream(), "our codec: the code-aware stream");
    }
  }

  @Test
  void threeLostUnitsOfTheSecondLocalGroupBreakTheStockReaderButNotOurs() throws Exception {
    LocatedStripedBlock g0 = group(multiGroup, 0);
    stopUnits(g0, false, 9, 10, 11);
    assertEquals(List.of(9, 10, 11), StripedGroups.missingUnits(group(multiGroup, 0), policy));
    byte[] data = files.get(multiGroup);
    // HDFS's reader takes G1, G2 and L1 (the lowest-index parities), which cannot rebuild 9, 10, 11.
    IOException e = assertThrows(IOException.class, () -> readSequentially(stock, multiGroup, data.length));
    assertTrue(String.valueOf(e.getMessage()).contains("cannot rebuild erased units"), "stock read fails with: " + e);
    ReadPathCounters before = snapshot();
    everyReadReturnsTheFile(multiGroup, data);
    assertTrue(wide.readPathCounters().degradedReads() > before.degradedReads(), wide.readPathCounters().toString());
    assertTrue(wide.readPathCounters().bytesDecoded() > before.bytesDecoded());
    assertEquals(before.stockFallbacks(), wide.readPathCounters().stockFallbacks(), "the NameNode listed the loss: no stock attempt");
    assertEquals(files.size(), readsAsTheCodePredicts(), "three losses leave every group decodable");
  }

  @Test
  void fourLossesTheCodeDecodesAreRead() throws Exception {
    int[] lost = {0, 1, 6, 7};
    assertTrue(ErasurePatterns.of(CODE).isDecodable(lost));
    stopUnits(group(multiGroup, 1), false, lost);
    assertEquals(List.of(0, 1, 6, 7), StripedGroups.missingUnits(group(multiGroup, 1), policy));
    ReadPathCounters before = snapshot();
    byte[] data = files.get(multiGroup);
    byte[] expected = Arrays.copyOfRange(data, (int) GROUP, (int) (2 * GROUP));
    byte[] pread = new byte[(int) GROUP];
    byte[] sequential = new byte[(int) GROUP];
    ByteBuffer buffer = ByteBuffer.allocateDirect((int) GROUP);
    try (FSDataInputStream in = wide.open(multiGroup)) {
      in.readFully(GROUP, pread);
      in.seek(GROUP);
      IOUtils.readFully(in, sequential, 0, sequential.length);
      in.seek(GROUP);
      while (buffer.hasRemaining() && in.read(buffer) > 0) {
        // ByteBufferReadable: fills as much as it can per call
      }
    }
    assertArrayEquals(expected, pread, "pread of the group that lost 0, 1, 6, 7");
    assertArrayEquals(expected, sequential, "sequential read of the group that lost 0, 1, 6, 7");
    assertEquals(ByteBuffer.wrap(expected), buffer.flip(), "ByteBuffer read of the group that lost 0, 1, 6, 7");
    assertTrue(wide.readPathCounters().degradedReads() > before.degradedReads());
    // The stopped DataNodes hold units of the other groups too (up to four each): every file reads back,
    // or is refused naming its group, exactly as the code's decodability says.
    readsAsTheCodePredicts();
  }

  @Test
  void aLossTheNameNodeHasNotNoticedIsReadAfterTheStockReadFails() throws Exception {
    setHeartbeatExpiry(3_600_000); // the NameNode keeps listing the stopped DataNodes
    stopUnits(group(multiGroup, 0), true, 9, 10, 11);
    assertTrue(StripedGroups.missingUnits(group(multiGroup, 0), policy).isEmpty(), "still listed");
    ReadPathCounters before = snapshot();
    byte[] data = files.get(multiGroup);
    assertArrayEquals(data, readSequentially(wide, multiGroup, data.length));
    assertTrue(wide.readPathCounters().stockFallbacks() > before.stockFallbacks(), wide.readPathCounters().toString());
    byte[] part = new byte[2 * CELL];
    try (FSDataInputStream in = wide.open(multiGroup)) {
      in.readFully(9 * CELL + 100, part, 0, part.length);
    }
    assertArrayEquals(Arrays.copyOfRange(data, 9 * CELL + 100, 11 * CELL + 100), part, "pread after a stock failure");
  }

  static ReadPathCounters snapshot() {
    ReadPathCounters now = wide.readPathCounters();
    ReadPathCounters copy = new ReadPathCounters();
    copy.degradedReads.set(now.degradedReads());
    copy.bytesDecoded.set(now.bytesDecoded());
    copy.stockFallbacks.set(now.stockFallbacks());
    copy.unitsFetched.set(now.unitsFetched());
    return copy;
  }

  @Test
  void healthyGroupsOfADegradedFileStayOnTheStockPath() throws Exception {
    stopUnits(group(multiGroup, 0), false, 3);
    ReadPathCounters before = snapshot();
    byte[] data = files.get(multiGroup);
    byte[] tail = new byte[(int) (data.length - GROUP)];
    try (FSDataInputStream in = wide.open(multiGroup)) {
      in.readFully(GROUP, tail, 0, tail.length);
    }
    assertArrayEquals(Arrays.copyOfRange(data, (int) GROUP, data.length), tail);
    // Unit 3's DataNode may hold units of the later groups too; only those groups may take our path.
    boolean laterGroupsLost = false;
    for (int i = 1; i < StripedGroups.groups(stock, multiGroup).size(); i++) {
      laterGroupsLost |= StripedGroups.missingUnits(group(multiGroup, i), policy).stream().anyMatch(u -> u < 12);
    }
    if (!laterGroupsLost) {
      assertEquals(before.degradedReads(), wide.readPathCounters().degradedReads(), "groups 1, 2 are whole: stock");
    }
    long fetchedBefore = wide.readPathCounters().unitsFetched();
    long fallbacksBefore = wide.readPathCounters().pipelinedFallbacks();
    byte[] cell = new byte[CELL];
    try (FSDataInputStream in = wide.open(multiGroup)) {
      in.readFully(3L * CELL, cell, 0, CELL); // unit 3's first cell
    }
    assertArrayEquals(Arrays.copyOfRange(data, 3 * CELL, 4 * CELL), cell);
    assertEquals(6, wide.readPathCounters().unitsFetched() - fetchedBefore, "one lost cell costs its local group: 5 data + L1");
    // No DataNode here runs our worker: no slice port to ask for a chain, so the pipelined read fell back.
    assertEquals(1, wide.readPathCounters().pipelinedFallbacks() - fallbacksBefore, wide.readPathCounters().toString());
    assertEquals(0, wide.readPathCounters().pipelinedReads(), wide.readPathCounters().toString());
    assertFalse(StripedGroups.missingUnits(group(multiGroup, 0), policy).isEmpty());
  }

  /**
   * A DataNode that died and is still listed (before the NameNode's heartbeat expiry): HDFS's reader of the first
   * stream finds it unreachable and decodes the lost cell from k units; the FileSystem remembers the node, so the next
   * stream reads the cell around it from its local group, 6 units (5 data + L1) instead of 12.
   */
  @Test
  void aDeadDataNodeStillListedIsReadAroundByItsLocalGroupOnceAStreamFoundItUnreachable() throws Exception {
    setHeartbeatExpiry(3_600_000); // the NameNode keeps listing the stopped DataNode
    stopUnits(group(multiGroup, 0), true, 2);
    assertTrue(StripedGroups.missingUnits(group(multiGroup, 0), policy).isEmpty(), "still listed");
    byte[] data = files.get(multiGroup);
    byte[] expected = Arrays.copyOfRange(data, 2 * CELL, 3 * CELL);
    long degraded = wide.readPathCounters().degradedReads();
    long around = wide.readPathCounters().readsAroundUnreachable();
    byte[] cell = new byte[CELL];
    try (FSDataInputStream in = wide.open(multiGroup)) {
      in.readFully(2L * CELL, cell, 0, CELL); // unit 2's first cell
    }
    assertArrayEquals(expected, cell, "read by HDFS's reader, which decodes unit 2 from k units");
    assertEquals(degraded, wide.readPathCounters().degradedReads(), "the first stream does not know the node is gone");
    long fetched = wide.readPathCounters().unitsFetched();
    try (FSDataInputStream in = wide.open(multiGroup)) {
      in.readFully(2L * CELL, cell, 0, CELL);
    }
    assertArrayEquals(expected, cell, "read around the unreachable DataNode");
    assertEquals(around + 1, wide.readPathCounters().readsAroundUnreachable(), wide.readPathCounters().toString());
    assertEquals(degraded + 1, wide.readPathCounters().degradedReads(), wide.readPathCounters().toString());
    assertEquals(6, wide.readPathCounters().unitsFetched() - fetched, "its local group: 5 data + L1, not 12 units");
    assertArrayEquals(data, readSequentially(wide, multiGroup, data.length), "every byte, sequentially");
  }
}
