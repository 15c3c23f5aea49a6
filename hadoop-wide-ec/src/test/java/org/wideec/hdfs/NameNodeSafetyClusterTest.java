package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.protocol.SystemErasureCodingPolicies;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockManager;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcBlockPlacementPolicy;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.ReplicaInfo;
import org.apache.hadoop.hdfs.util.ECPolicyLoader;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.util.ExitUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.minicluster.Eventually;
import org.wideec.minicluster.MiniClusters;
import org.wideec.minicluster.StripedGroups;
import org.wideec.placement.hdfs.WideEcNameNodeMetrics;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;

/**
 * Nothing we add can stop a NameNode (DESIGN.md §2): a misspelt scheme, an unbuildable policy and an unplaceable
 * group, each followed by a lost unit that the RedundancyMonitor must place; every shipped policy enabled at once
 * with stock ones settles; a group one loss from data loss is reported. {@link ExitUtil} is disabled, so a
 * would-be termination is recorded and fails the test instead of ending the JVM.
 */
class NameNodeSafetyClusterTest {
  static final int CELL = 64 * 1024;

  @TempDir
  Path base;
  MiniDFSCluster cluster;

  @BeforeEach
  void noExit() {
    ExitUtil.disableSystemExit();
    ExitUtil.resetFirstExitException();
  }

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.shutdown();
    }
    assertFalse(ExitUtil.terminateCalled(), "the NameNode tried to terminate: " + ExitUtil.getFirstExitException());
  }

  private MiniDFSCluster start(Configuration extra, int racks, int nodesPerRack, boolean reconstruct) throws IOException {
    Configuration conf = MiniClusters.tuned(MiniClusters.withWideEcPlacement(extra), base.toFile(), 2L * CELL);
    conf.setLong(WideEcNameNodePlugin.SCAN_INTERVAL_KEY, 300);
    if (!reconstruct) {
      conf.setInt(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, 3600);
    }
    cluster = MiniClusters.start(conf, racks, nodesPerRack);
    return cluster;
  }

  private static byte[] write(DistributedFileSystem fs, org.apache.hadoop.fs.Path f, int size, long seed)
      throws IOException {
    return write(fs, f, size, seed, 2L * CELL);
  }

  private static byte[] write(DistributedFileSystem fs, org.apache.hadoop.fs.Path f, int size, long seed, long block)
      throws IOException {
    byte[] data = new byte[size];
    new Random(seed).nextBytes(data);
    try (FSDataOutputStream o = fs.create(f, true, 4096, (short) 1, block)) {
      o.write(data);
    }
    return data;
  }

  private static byte[] read(DistributedFileSystem fs, org.apache.hadoop.fs.Path f, int size) throws IOException {
    byte[] back = new byte[size];
    try (FSDataInputStream in = fs.open(f)) {
      IOUtils.readFully(in, back, 0, size);
    }
    return back;
  }

  private static org.apache.hadoop.fs.Path dirFor(DistributedFileSystem fs, ErasureCodingPolicy p) throws IOException {
    org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path("/" + p.getName());
    fs.mkdirs(dir);
    fs.setErasureCodingPolicy(dir, p.getName());
    return dir;
  }

  /** Stops the DataNode holding unit u of the file's first group, tells the NameNode it is dead. */
  private void lose(DistributedFileSystem fs, org.apache.hadoop.fs.Path f, int u) throws IOException {
    DatanodeInfo holder = StripedGroups.location(StripedGroups.groups(fs, f).get(0), u);
    assertNotNull(cluster.stopDataNode(holder.getXferAddr()), "DataNode " + holder);
    cluster.setDataNodeDead(holder);
  }

  /** From a settled cluster, loses unit u of the file's first group; the NameNode rebuilds it; every byte reads back. */
  private void loseAndAwaitRepair(DistributedFileSystem fs, org.apache.hadoop.fs.Path f, ErasureCodingPolicy p,
      byte[] data, int u) throws Exception {
    StripedGroups.awaitSettled(cluster, fs, p, List.of(f), 60_000);
    lose(fs, f, u);
    StripedGroups.awaitComplete(fs, f, p, 120_000);
    assertArrayEquals(data, read(fs, f, data.length));
  }

  private WideEcBlockPlacementPolicy placement() {
    return (WideEcBlockPlacementPolicy) cluster.getNamesystem().getBlockManager().getStriptedBlockPlacementPolicy();
  }

  @Test
  void aMisspeltSchemeLeavesPlacementStockAndTheNameNodeRepairsALostUnit() throws Exception {
    Configuration conf = new Configuration();
    conf.set("wide-ec.placement.scheme", "combined-localty");
    start(conf, 7, 3, true);
    assertFalse(placement().placesByPlan(), "a misspelt scheme turns our placement off, once, at start");
    // HDFS builds a placement policy for every fsck: the error was said at start and is not said again.
    org.apache.hadoop.test.GenericTestUtils.LogCapturer log = org.apache.hadoop.test.GenericTestUtils.LogCapturer
        .captureLogs(org.apache.log4j.Logger.getLogger(WideEcBlockPlacementPolicy.class));
    try {
      for (int i = 0; i < 3; i++) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        int rc = org.apache.hadoop.util.ToolRunner.run(new org.apache.hadoop.hdfs.tools.DFSck(cluster
            .getConfiguration(0), new java.io.PrintStream(out, true)), new String[] {"/"});
        assertEquals(0, rc, out.toString());
      }
      assertFalse(log.getOutput().contains("is not a placement scheme"), log.getOutput());
    } finally {
      log.stopCapturing();
    }
    DistributedFileSystem fs = cluster.getFileSystem();
    ErasureCodingPolicy p = WideEcPolicies.addAndEnable(fs, WideEcPolicies.policy("azure-lrc-l2", 12, 4, CELL));
    org.apache.hadoop.fs.Path f = new org.apache.hadoop.fs.Path(dirFor(fs, p), "file");
    byte[] data = write(fs, f, 12 * CELL * 2 + 999, 1);
    loseAndAwaitRepair(fs, f, p, data, 0);
  }

  @Test
  void anUnbuildablePolicyAndAnUnplaceableGroupNeverReachANameNodeThread() throws Exception {
    // Four racks: Azure-LRC 12+2+2's plan needs six, so every group of it is unplaceable by plan.
    start(new Configuration(), 4, 5, true);
    DistributedFileSystem fs = cluster.getFileSystem();
    // HDFS accepts any registered codec; UniLRC has no code with k = 5, m = 6.
    ErasureCodingPolicy bad = WideEcPolicies.addAndEnable(fs, new ErasureCodingPolicy(
        new org.apache.hadoop.io.erasurecode.ECSchema("unilrc", 5, 6), CELL));
    org.apache.hadoop.fs.Path badFile = new org.apache.hadoop.fs.Path(dirFor(fs, bad), "file");
    // Hadoop's client refuses it (CodecUtil: "Fail to create raw erasure encoder"), before any byte is stored.
    Exception refused = assertThrows(Exception.class, () -> write(fs, badFile, 5 * CELL, 2), "no client can encode it");
    assertTrue(refused.toString().contains("unilrc"), refused.toString());
    fs.delete(badFile, false); // its empty block group would otherwise stay in HDFS's queue of missing blocks
    WideEcNameNodeMetrics m = WideEcNameNodePlugin.metrics();
    Eventually.await("the plugin reports the unbuildable policy", Duration.ofSeconds(60),
        () -> m.unbuildablePolicies() == 1);

    ErasureCodingPolicy good = WideEcPolicies.addAndEnable(fs, WideEcPolicies.policy("azure-lrc-l2", 12, 4, CELL));
    org.apache.hadoop.fs.Path f = new org.apache.hadoop.fs.Path(dirFor(fs, good), "file");
    long fallbacks = placement().stockFallbacks();
    // Whole groups only: the stock policy places all 16 targets of a group four to a rack here, and a short group
    // whose real units (data unit 0 and the parities) share a rack stays misplaced, which it cannot fix.
    byte[] data = write(fs, f, 12 * CELL * 2 * 2, 3);
    assertTrue(placement().stockFallbacks() > fallbacks, "the group was placed by the stock policy");
    loseAndAwaitRepair(fs, f, good, data, 5);
  }

  @Test
  void everyShippedPolicyWithStockOnesEnabledAtOnceSettles() throws Exception {
    start(new Configuration(), 8, 4, true);
    DistributedFileSystem fs = cluster.getFileSystem();
    File xml = new File(System.getProperty("wideec.conf.dir", "../conf"), "wide-ec-policies.xml");
    List<ErasureCodingPolicy> policies = new ArrayList<>();
    for (ErasureCodingPolicy p : new ECPolicyLoader().loadPolicy(xml.getAbsolutePath())) {
      // The shipped shapes with a small cell, so each file is quick to write.
      policies.add(WideEcPolicies.addAndEnable(fs, WideEcPolicies.policy(p.getCodecName(), p.getNumDataUnits(),
          p.getNumParityUnits(), CELL)));
    }
    for (ErasureCodingPolicy stock : List.of(SystemErasureCodingPolicies.getByID(SystemErasureCodingPolicies.RS_3_2_POLICY_ID),
        SystemErasureCodingPolicies.getByID(SystemErasureCodingPolicies.XOR_2_1_POLICY_ID))) {
      fs.enableErasureCodingPolicy(stock.getName());
      policies.add(stock);
    }
    Map<org.apache.hadoop.fs.Path, byte[]> files = new LinkedHashMap<>();
    Map<org.apache.hadoop.fs.Path, ErasureCodingPolicy> policyOf = new LinkedHashMap<>();
    long seed = 10;
    for (ErasureCodingPolicy p : policies) {
      org.apache.hadoop.fs.Path dir = dirFor(fs, p);
      for (int size : new int[] {p.getNumDataUnits() * 2 * p.getCellSize() + 17, p.getCellSize() / 2}) {
        org.apache.hadoop.fs.Path f = new org.apache.hadoop.fs.Path(dir, "f" + size);
        files.put(f, write(fs, f, size, seed++, 2L * p.getCellSize()));
        policyOf.put(f, p);
      }
    }
    for (org.apache.hadoop.fs.Path f : files.keySet()) {
      StripedGroups.awaitComplete(fs, f, policyOf.get(f), 120_000);
    }
    BlockManager bm = cluster.getNamesystem().getBlockManager();
    MiniClusters.awaitQuiet(cluster, 120_000);
    assertEquals(0, bm.getLowRedundancyECBlockGroups());
    Map<String, String> before = locations(fs, files.keySet());
    // Several redundancy-monitor cycles (one second each): nothing may move.
    assertTrue(MiniClusters.awaitRedundancyCycles(cluster, 4, 60_000), "the RedundancyMonitor ran four cycles");
    assertEquals(0, bm.getLowRedundancyECBlockGroups());
    assertEquals(0, bm.getPendingReconstructionBlocksCount());
    assertEquals(0, bm.getExcessBlocksCount());
    assertEquals(before, locations(fs, files.keySet()), "no unit moved");
    assertEveryLocationHoldsAFinalizedReplica(fs, files.keySet());
    for (Map.Entry<org.apache.hadoop.fs.Path, byte[]> e : files.entrySet()) {
      assertArrayEquals(e.getValue(), read(fs, e.getKey(), e.getValue().length), e.getKey().toString());
    }
  }

  @Test
  void aGroupOneLossFromDataLossIsReportedAtOnce() throws Exception {
    start(new Configuration(), 7, 3, false);
    DistributedFileSystem fs = cluster.getFileSystem();
    ErasureCodingPolicy p = WideEcPolicies.addAndEnable(fs, WideEcPolicies.policy("azure-lrc-l2", 12, 4, CELL));
    org.apache.hadoop.fs.Path f = new org.apache.hadoop.fs.Path(dirFor(fs, p), "file");
    byte[] data = write(fs, f, 12 * 2 * CELL, 4);
    StripedGroups.awaitComplete(fs, f, p, 60_000);
    WideEcNameNodeMetrics m = WideEcNameNodePlugin.metrics();
    assertEquals(0, m.groupsAtRisk());
    // Units 6, 7, 8 of the second local group: HDFS sees 13 of 16 units (readable, low priority), but any further
    // loss in that group loses data.
    for (int u : new int[] {6, 7, 8}) {
      lose(fs, f, u);
    }
    BlockManager bm = cluster.getNamesystem().getBlockManager();
    Eventually.await("the plugin reports the group at risk", Duration.ofSeconds(60), () -> m.groupsAtRisk() == 1);
    assertEquals(0, m.groupsLost());
    assertEquals(1, m.groupsAtRiskReported());
    // HDFS ranks a group with 13 of 16 units low; the plugin moves it to the highest priority.
    Eventually.await("the group's reconstruction is at HDFS's highest priority", Duration.ofSeconds(60),
        () -> m.groupsPrioritised() == 1 && bm.getHighestPriorityECBlockCount() == 1);
    // Three units of the second local group: HDFS's reader takes G1, G2, L1 and cannot decode (our FileSystem can).
    IOException unreadable = assertThrows(IOException.class, () -> read(fs, f, data.length));
    assertTrue(unreadable.getMessage().contains("cannot rebuild erased units [6, 7, 8]"), unreadable.getMessage());
  }

  private static Map<String, String> locations(DistributedFileSystem fs, Set<org.apache.hadoop.fs.Path> files)
      throws IOException {
    Map<String, String> out = new TreeMap<>();
    for (org.apache.hadoop.fs.Path f : files) {
      for (LocatedStripedBlock g : StripedGroups.groups(fs, f)) {
        out.put(g.getBlock().getBlockName(), StripedGroups.unitsByRack(g).toString() + " "
            + java.util.Arrays.toString(g.getLocations()));
      }
    }
    return out;
  }

  private void assertEveryLocationHoldsAFinalizedReplica(DistributedFileSystem fs, Set<org.apache.hadoop.fs.Path> files)
      throws IOException {
    String bpid = cluster.getNamesystem().getBlockPoolId();
    Map<Integer, Set<Long>> finalizedByPort = new java.util.HashMap<>();
    for (DataNode dn : cluster.getDataNodes()) {
      Set<Long> ids = new HashSet<>();
      for (ReplicaInfo r : dn.getFSDataset().getFinalizedBlocks(bpid)) {
        ids.add(r.getBlockId());
      }
      finalizedByPort.put(dn.getXferPort(), ids);
    }
    int checked = 0;
    for (org.apache.hadoop.fs.Path f : files) {
      for (LocatedStripedBlock g : StripedGroups.groups(fs, f)) {
        byte[] idx = g.getBlockIndices();
        for (int i = 0; i < idx.length; i++) {
          long id = g.getBlock().getBlockId() + idx[i];
          assertTrue(finalizedByPort.get(g.getLocations()[i].getXferPort()).contains(id),
              "unit " + idx[i] + " of " + g.getBlock() + " listed on " + g.getLocations()[i] + " is finalized there");
          checked++;
        }
      }
    }
    assertTrue(checked > 50, "checked " + checked + " unit locations");
  }
}
