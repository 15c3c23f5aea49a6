package org.apache.hadoop.hdfs.server.blockmanagement;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
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
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.DataNodeTestUtils;
import org.apache.hadoop.io.IOUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.code.LinearCode;
import org.wideec.code.LocalGroup;
import org.wideec.coder.StripedCodec;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.minicluster.MiniClusters;
import org.wideec.minicluster.StripedGroups;
import org.wideec.placement.PlacementPlan;
import org.wideec.placement.StripedPlacement;

/**
 * An Azure-LRC 12+2+2 group written while HDFS's load check ({@code dfs.namenode.redundancy.considerLoad}, on by
 * default, off in our other cluster tests) calls a DataNode of every rack too busy. The combined-locality plan needs
 * three nodes in five of the six racks; before, the plan failed there and the stock fallback, short of idle nodes,
 * placed the group (on the 24-node multi-process cluster: four data units of local group 0 in one rack, and only 15 of
 * 16 units). Now each planned unit takes a busy node of its rack where no idle one is left. The group then loses a
 * DataNode, is rebuilt, gets the DataNode back and has the excess copy deleted: no rack ever holds more than f = 3
 * units of a local group.
 */
class BusyNodesPlacementClusterTest {
  private static final int CELL = 64 * 1024;
  private static final int K = 12;
  private static final int RACKS = 6;
  private static final int PER_RACK = 3;
  private static final int BUSY_XCEIVERS = 60;

  @TempDir
  java.nio.file.Path base;

  @Test
  void aGroupWrittenWhileEveryRackHasABusyNodeKeepsItsPlanAndNoRackEverHoldsFourUnitsOfALocalGroup()
      throws Exception {
    Configuration conf = MiniClusters.tuned(MiniClusters.withWideEcPlacement(new Configuration()),
        new File(base.toFile(), "c"), CELL);
    conf.setBoolean(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_CONSIDERLOAD_KEY, true);
    MiniDFSCluster cluster = MiniClusters.start(conf, RACKS, PER_RACK);
    try {
      DistributedFileSystem fs = cluster.getFileSystem();
      ErasureCodingPolicy lrc = WideEcPolicies.addAndEnable(fs, WideEcPolicies.policy("azure-lrc-l2", K, 4, CELL));
      Path dir = new Path("/busy");
      fs.mkdirs(dir);
      fs.setErasureCodingPolicy(dir, lrc.getName());
      LinearCode code = StripedCodec.AZURE_LRC_L2.codeFor(K, 4);
      PlacementPlan plan = StripedPlacement.planFor("azure-lrc-l2", K, 4, StripedPlacement.AUTO);
      assertEquals(RACKS, plan.unitsPerRack().length, java.util.Arrays.toString(plan.unitsPerRack()));
      assertEquals(3, plan.maxUnitsPerRack());
      BlockManager bm = cluster.getNamesystem().getBlockManager();
      WideEcBlockPlacementPolicy policy = (WideEcBlockPlacementPolicy) bm.getStriptedBlockPlacementPolicy();
      assertTrue(policy.considerLoad, "HDFS's load check is on in the NameNode");

      // The first DataNode of every rack reports many xceivers and no heartbeat of its own until the file is written:
      // 6 nodes over twice the average load, so 12 idle nodes, 2 a rack, where the plan puts 3 units in 5 racks.
      List<DataNode> busy = new ArrayList<>();
      for (int r = 0; r < RACKS; r++) {
        busy.add(cluster.getDataNodes().get(r * PER_RACK));
      }
      busy.forEach(dn -> DataNodeTestUtils.setHeartbeatsDisabledForTests(dn, true));
      DatanodeManager dm = bm.getDatanodeManager();
      for (DataNode dn : busy) {
        DatanodeDescriptor d = dm.getDatanode(dn.getDatanodeId());
        dm.getHeartbeatManager().updateHeartbeat(d, BlockManagerTestUtil.getStorageReportsForDatanode(d),
            0, 0, BUSY_XCEIVERS, 0, null);
      }
      for (DatanodeDescriptor d : dm.getDatanodeListForReport(
          org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType.LIVE)) {
        boolean isBusy = busy.stream().anyMatch(dn -> dn.getDatanodeId().getXferAddr().equals(d.getXferAddr()));
        assertEquals(isBusy, policy.excludeNodeByLoad(d), d.getXferAddr() + " too busy by HDFS's load check");
      }

      byte[] data = new byte[K * CELL * 2 + 777];
      new Random(3).nextBytes(data);
      Path file = new Path(dir, "f");
      try (FSDataOutputStream o = fs.create(file)) {
        o.write(data);
      }
      busy.forEach(dn -> DataNodeTestUtils.setHeartbeatsDisabledForTests(dn, false));
      assertEquals(0, policy.stockFallbacks(), "the group placed by its plan, not by the stock fallback");
      StripedGroups.awaitSettled(cluster, fs, lrc, List.of(file), 60_000);
      LocatedStripedBlock g = StripedGroups.groups(fs, file).get(0);
      assertEquals(16, g.getBlockIndices().length);
      assertTrue(StripedPlacement.holds(plan, StripedGroups.rackOfUnit(g, 16)), "as planned: "
          + StripedGroups.unitsByRack(g));
      assertLocalGroupsWithinF(code, g, "written");

      // Unit 1's DataNode lost, the unit rebuilt elsewhere, the DataNode back: HDFS deletes one of the two copies.
      DatanodeInfo victim = StripedGroups.location(g, 1);
      int index = -1;
      for (int i = 0; i < cluster.getDataNodes().size(); i++) {
        if (cluster.getDataNodes().get(i).getXferPort() == victim.getXferPort()) {
          index = i;
        }
      }
      MiniDFSCluster.DataNodeProperties stopped = cluster.stopDataNode(index);
      MiniClusters.declareDeadAtOnce(cluster, List.of(dm.getDatanode(victim)));
      StripedGroups.awaitComplete(fs, file, lrc, 120_000);
      LocatedStripedBlock rebuilt = StripedGroups.groups(fs, file).get(0);
      assertFalse(StripedGroups.location(rebuilt, 1).getXferAddr().equals(victim.getXferAddr()));
      assertLocalGroupsWithinF(code, rebuilt, "rebuilt");
      MiniClusters.restart(cluster, stopped, MiniClusters.Ports.SAME);
      cluster.waitActive();
      StripedGroups.awaitSettled(cluster, fs, lrc, List.of(file), 120_000);
      LocatedStripedBlock back = StripedGroups.groups(fs, file).get(0);
      assertEquals(16, back.getBlockIndices().length, "the excess copy deleted");
      assertLocalGroupsWithinF(code, back, "after the DataNode came back");

      byte[] read = new byte[data.length];
      try (FSDataInputStream in = fs.open(file)) {
        IOUtils.readFully(in, read, 0, read.length);
      }
      assertArrayEquals(data, read);
    } finally {
      cluster.shutdown();
    }
  }

  /** No rack holds more than f = 3 units (data and local parity) of one local group. */
  private static void assertLocalGroupsWithinF(LinearCode code, LocatedStripedBlock g, String when) {
    String[] racks = StripedGroups.rackOfUnit(g, code.n());
    for (LocalGroup lg : code.localGroups()) {
      Map<String, Integer> perRack = new HashMap<>();
      for (int u : lg.members()) {
        perRack.merge(racks[u], 1, Integer::sum);
      }
      perRack.forEach((rack, n) -> assertTrue(n <= 3, when + ": " + rack + " holds " + n + " units of local group "
          + lg.index() + ": " + StripedGroups.unitsByRack(g)));
    }
  }
}
