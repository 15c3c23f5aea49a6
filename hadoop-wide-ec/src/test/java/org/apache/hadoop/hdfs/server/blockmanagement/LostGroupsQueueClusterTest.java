package org.apache.hadoop.hdfs.server.blockmanagement;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.Block;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.metrics.DataNodeMetrics;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.code.LinearCode;
import org.wideec.coder.StripedCodec;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.datanode.RepairMetrics;
import org.wideec.datanode.WideEcDataNodePlugin;
import org.wideec.minicluster.Eventually;
import org.wideec.minicluster.MiniClusters;
import org.wideec.minicluster.SilentCorruption;
import org.wideec.minicluster.StripedGroups;
import org.wideec.placement.hdfs.WideEcNameNodeMetrics;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;

/**
 * What the lost-unit passes call seen in HDFS's queue of low-redundancy blocks, and so leave to HDFS. HDFS queues a
 * group whose every unit is live when its units break the rack rule (on the 24-node multi-process cluster one was
 * written with four units in one rack: HDFS's load check left too few DataNodes, and the stock fallback placed it).
 * Counted seen, the unit it lost next was left to HDFS, whose reconstruction ran beside our order on the same node. Such
 * a group is not seen now: its lost unit is ours alone. A group queued for a corrupt unit is HDFS's, and stays so when
 * it loses another unit: no pass of ours rebuilds a corrupt unit, so claiming it would hold its repair back for ever.
 */
class LostGroupsQueueClusterTest {
  private static final int CELL = 64 * 1024;
  private static final int K = 6;
  private static final Path DIR = new Path("/lrc");

  @Test
  void aGroupQueuedOnlyForItsRacksThatLosesAUnitIsRebuiltOnOurOrderAndHdfsSchedulesNothingForIt(
      @TempDir java.nio.file.Path dir) throws Exception {
    // HDFS's RedundancyMonitor every 200 ms, our pass every 3 s: a unit lost just after a pass meets HDFS's request
    // for a target long before the next pass, as on the real cluster, where passes are seconds apart.
    MiniDFSCluster cluster = start(dir, "200ms", 3000, 4, 4);
    try {
      DistributedFileSystem fs = cluster.getFileSystem();
      ErasureCodingPolicy lrc = lrcDirectory(fs);
      FSNamesystem fsn = cluster.getNamesystem();
      BlockManager bm = fsn.getBlockManager();

      // The fourth rack out of service while the file is written: the plan (4 racks, at most 3 units each) cannot be
      // met, and the stock fallback puts the 10 units in 3 racks, 4 in one. Back in service, the group breaks the
      // rack rule, and HDFS keeps it queued (a copy to another rack leaves the full rack as full).
      List<DatanodeDescriptor> rack3 = nodesOf(cluster, "/rack3");
      adminState(fsn, rack3, true);
      Path file = new Path(DIR, "f");
      byte[] data = write(fs, file, 5);
      StripedGroups.awaitComplete(fs, file, lrc, 60_000);
      adminState(fsn, rack3, false);
      LocatedStripedBlock g = StripedGroups.groups(fs, file).get(0);
      Map<String, List<Integer>> byRack = StripedGroups.unitsByRack(g);
      List<Integer> crowded = byRack.values().stream().filter(u -> u.size() == 4).findFirst().orElseThrow(
          () -> new AssertionError("no rack holds 4 units: " + byRack));
      assertFalse(byRack.containsKey("/rack3"), byRack.toString());
      BlockInfo stored = bm.getStoredBlock(new Block(g.getBlock().getBlockId()));
      Eventually.await("the group queued for its racks", Duration.ofSeconds(30),
          () -> bm.neededReconstruction.contains(stored));
      assertTrue(MiniClusters.awaitRedundancyCycles(cluster, 3, 10_000));
      assertTrue(bm.neededReconstruction.contains(stored), "still queued: HDFS cannot fix its racks by a copy");
      assertEquals(0, bm.pendingReconstruction.getNumReplicas(stored), "and has nothing pending for it");
      awaitPassEnd(2);

      Meter meter = new Meter(cluster);
      Counts before = meter.now();
      awaitPassEnd(1); // the unit is lost right after a pass: the next is 3 s away
      kill(cluster, StripedGroups.location(g, crowded.get(0)));
      // Whole again, and the rebuild counted by whoever ran it (an order's outcome is counted a moment after its unit
      // is live).
      Eventually.await("the group whole again and its rebuild counted", Duration.ofSeconds(120), () -> {
        List<Integer> missing = StripedGroups.missingUnits(StripedGroups.groups(fs, file).get(0), lrc);
        Counts c = meter.now().minus(before);
        return missing.isEmpty() && metrics().lostUnitsRebuilding() == 0 && c.accounted() > 0 ? null : "missing "
            + missing + ", " + c;
      }, java.util.Objects::isNull);
      assertTrue(MiniClusters.awaitRedundancyCycles(cluster, 3, 10_000));

      Counts after = meter.now().minus(before);
      assertEquals(new Counts(1, 0, 0, 0, 0), after, "unit " + crowded.get(0) + " rebuilt on our order alone");
      everyByteReadsBack(cluster, fs, file, lrc, data);
    } finally {
      cluster.shutdown();
    }
  }

  @Test
  void aGroupQueuedForACorruptUnitThatLosesAnotherStaysHdfssAndIsRepairedWhole(@TempDir java.nio.file.Path dir)
      throws Exception {
    MiniDFSCluster cluster = start(dir, "3600", 300, 5, 3);
    try {
      DistributedFileSystem fs = cluster.getFileSystem();
      ErasureCodingPolicy lrc = lrcDirectory(fs);
      FSNamesystem fsn = cluster.getNamesystem();
      BlockManager bm = fsn.getBlockManager();
      Path file = new Path(DIR, "f");
      byte[] data = write(fs, file, 7);
      StripedGroups.awaitComplete(fs, file, lrc, 60_000);
      LocatedStripedBlock g = StripedGroups.groups(fs, file).get(0);
      long id = g.getBlock().getBlockId();
      BlockInfo stored = bm.getStoredBlock(new Block(id));

      // Unit 1 silently corrupt, and reported as the scrub's repair reports it. HDFS's RedundancyMonitor does not run by
      // itself here: the test runs its work, so the corrupt unit stays queued while our passes look at it, and HDFS
      // schedules its reconstruction only once the group has lost another unit.
      int corrupt = 1;
      DatanodeInfo holder = StripedGroups.location(g, corrupt);
      ExtendedBlock internal = StripedBlockUtil.constructInternalBlock(g.getBlock(), lrc, corrupt);
      SilentCorruption.flipByte(cluster, holder.getXferAddr(), internal, CELL / 2 + 5, 0x21);
      fs.getClient().reportBadBlocks(new LocatedBlock[] {new LocatedBlock(internal, new DatanodeInfo[] {holder})});
      Eventually.await("unit " + corrupt + " corrupt and the group queued", Duration.ofSeconds(30),
          () -> corruptReplicas(fsn, stored) == 1 && bm.neededReconstruction.contains(stored));
      WideEcLeavingUnits.LostGroups q = WideEcLeavingUnits.lost(fsn, 1000);
      assertTrue(q.whole());
      assertEquals(List.of(), q.lost());
      assertTrue(q.seen().contains(id), "a group queued for a corrupt unit is seen, so HDFS's: " + q.seen());
      awaitPassEnd(2);

      // Unit 4's DataNode dies: the group lacks two units, one corrupt, one lost.
      int lost = 4;
      Meter meter = new Meter(cluster);
      Counts before = meter.now();
      kill(cluster, StripedGroups.location(g, lost));
      q = WideEcLeavingUnits.lost(fsn, 1000);
      assertTrue(q.seen().contains(id), "still seen");
      assertEquals(List.of(), q.lost(), "and not ours to take: HDFS reconstructs it");
      Eventually.await("units " + corrupt + " and " + lost + " rebuilt and the corrupt replica gone",
          Duration.ofSeconds(90), () -> {
            BlockManagerTestUtil.computeAllPendingWork(bm); // HDFS's RedundancyMonitor's cycle
            List<Integer> missing = StripedGroups.missingUnits(StripedGroups.groups(fs, file).get(0), lrc);
            return missing.isEmpty() && corruptReplicas(fsn, stored) == 0 ? null : "missing " + missing + ", "
                + corruptReplicas(fsn, stored) + " corrupt, " + meter.now().minus(before);
          }, java.util.Objects::isNull);

      Counts after = meter.now().minus(before);
      assertEquals(new Counts(0, 0, 0, 1, 0), after,
          "no order of ours; one task of HDFS's rebuilt both units, run by our worker");
      StripedGroups.awaitComplete(fs, file, lrc, 30_000);
      everyByteReadsBack(cluster, fs, file, lrc, data);
    } finally {
      cluster.shutdown();
    }
  }

  /**
   * Lost units rebuilt on the NameNode's orders, left to HDFS and failed, and the reconstruction tasks HDFS sent: those
   * our worker took over (every one for a group of our codecs) and those HDFS's own reconstructor ran.
   */
  private record Counts(long ordered, long leftToHdfs, long orderFailures, long hdfsTasks, long stockTasks) {
    /** Every way a rebuild is counted. */
    long accounted() {
      return ordered + leftToHdfs + orderFailures + hdfsTasks + stockTasks;
    }

    Counts minus(Counts o) {
      return new Counts(ordered - o.ordered, leftToHdfs - o.leftToHdfs, orderFailures - o.orderFailures,
          hdfsTasks - o.hdfsTasks, stockTasks - o.stockTasks);
    }
  }

  /** Reads {@link Counts}, summed over every DataNode it has met, stopped ones included. */
  private static final class Meter {
    private final MiniDFSCluster cluster;
    private final Map<String, RepairMetrics> workers = new HashMap<>();
    private final Map<String, DataNodeMetrics> datanodes = new HashMap<>();

    Meter(MiniDFSCluster cluster) {
      this.cluster = cluster;
    }

    Counts now() throws ReflectiveOperationException {
      for (DataNode dn : cluster.getDataNodes()) {
        String at = dn.getDatanodeId().getXferAddr();
        workers.put(at, WideEcDataNodePlugin.running(dn.getXferPort()).metrics());
        datanodes.put(at, dn.getMetrics());
      }
      Field f = DataNodeMetrics.class.getDeclaredField("ecReconstructionTasks");
      f.setAccessible(true);
      long stock = 0;
      for (DataNodeMetrics m : datanodes.values()) {
        stock += ((MutableCounterLong) f.get(m)).value();
      }
      return new Counts(metrics().lostUnitsRebuilt(), metrics().lostUnitsLeftToHdfs(),
          metrics().lostUnitRebuildFailures(), workers.values().stream().mapToLong(RepairMetrics::tasksTakenOver).sum(),
          stock);
    }
  }

  /**
   * A racked cluster with our placement, NameNode plugin and DataNode worker, HDFS's RedundancyMonitor running every
   * {@code redundancyInterval} and our repair monitor's pass every {@code passMs}.
   */
  private static MiniDFSCluster start(java.nio.file.Path dir, String redundancyInterval, long passMs, int racks,
      int perRack) throws IOException {
    Configuration base = MiniClusters.withWideEcRepair(MiniClusters.withWideEcPlacement(new Configuration()));
    base.set(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, redundancyInterval);
    base.setLong("wide-ec.archive.repair.interval.ms", passMs);
    return MiniClusters.start(base, dir.toFile(), racks, perRack, CELL);
  }

  private static WideEcNameNodeMetrics metrics() {
    return WideEcNameNodePlugin.metrics();
  }

  /** Waits until {@code passes} more passes of the repair monitor have ended (their claims published). */
  private static void awaitPassEnd(int passes) {
    long from = metrics().archiveRepairPasses();
    Eventually.await(passes + " more passes of the repair monitor", Duration.ofSeconds(30),
        () -> metrics().archiveRepairPasses() >= from + passes);
  }

  private static List<DatanodeDescriptor> nodesOf(MiniDFSCluster cluster, String rack) throws IOException {
    DatanodeManager dm = cluster.getNamesystem().getBlockManager().getDatanodeManager();
    List<DatanodeDescriptor> out = new ArrayList<>();
    for (DataNode dn : cluster.getDataNodes()) {
      DatanodeDescriptor d = dm.getDatanode(dn.getDatanodeId());
      if (rack.equals(d.getNetworkLocation())) {
        out.add(d);
      }
    }
    return out;
  }

  /** Starts or stops decommissioning these (empty) DataNodes: while it runs, no write places a unit on them. */
  private static void adminState(FSNamesystem fsn, List<DatanodeDescriptor> nodes, boolean leaving) {
    DatanodeAdminManager admin = fsn.getBlockManager().getDatanodeManager().getDatanodeAdminManager();
    fsn.writeLock();
    try {
      for (DatanodeDescriptor d : nodes) {
        if (leaving) {
          admin.startDecommission(d);
        } else {
          admin.stopDecommission(d);
        }
      }
    } finally {
      fsn.writeUnlock();
    }
  }

  /** Stops the DataNode, and the NameNode declares it dead at once (as after its heartbeats stopped). */
  private static void kill(MiniDFSCluster cluster, DatanodeInfo node) throws IOException {
    DatanodeDescriptor d = cluster.getNamesystem().getBlockManager().getDatanodeManager().getDatanode(node);
    assertTrue(cluster.stopDataNode(node.getXferAddr()) != null, node.toString());
    MiniClusters.declareDeadAtOnce(cluster, List.of(d));
  }

  private static int corruptReplicas(FSNamesystem fsn, BlockInfo stored) {
    fsn.readLock();
    try {
      return fsn.getBlockManager().countNodes(stored).corruptReplicas();
    } finally {
      fsn.readUnlock();
    }
  }

  /** Azure-LRC(6,2,2), enabled and set on {@link #DIR}. */
  private static ErasureCodingPolicy lrcDirectory(DistributedFileSystem fs) throws IOException {
    ErasureCodingPolicy lrc = WideEcPolicies.addAndEnable(fs, WideEcPolicies.policy("azure-lrc-l2", K, 4, CELL));
    fs.mkdirs(DIR);
    fs.setErasureCodingPolicy(DIR, lrc.getName());
    return lrc;
  }

  /** One full group of random bytes. */
  private static byte[] write(DistributedFileSystem fs, Path file, long seed) throws IOException {
    byte[] data = new byte[K * CELL];
    new Random(seed).nextBytes(data);
    try (FSDataOutputStream o = fs.create(file)) {
      o.write(data);
    }
    return data;
  }

  /** The file reads back as written, and every unit on disk is what the code computes. */
  private static void everyByteReadsBack(MiniDFSCluster cluster, DistributedFileSystem fs, Path file,
      ErasureCodingPolicy lrc, byte[] data) throws IOException {
    byte[] back = new byte[data.length];
    try (FSDataInputStream in = fs.open(file)) {
      in.readFully(0, back);
    }
    assertArrayEquals(data, back);
    LinearCode code = StripedCodec.AZURE_LRC_L2.codeFor(K, 4);
    assertEquals(K + 4, StripedGroups.verifyEveryUnit(cluster, fs, file, lrc, code, data));
  }
}
