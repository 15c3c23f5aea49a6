package org.apache.hadoop.hdfs.server.blockmanagement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.Block;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.minicluster.MiniClusters;
import org.wideec.minicluster.StripedGroups;

/**
 * What the lost-unit passes call seen in HDFS's queue of low-redundancy blocks: a group HDFS seems to reconstruct
 * already is left to it, so only a group that had a lost unit when looked at may count as seen. HDFS also queues a
 * whole group whose racks break its placement policy (a group written while a writer's streamers failed, found on the
 * real-process cluster with four units in one rack); called seen, the unit it lost next was left to HDFS's
 * reconstruction while our order rebuilt it on the same node, and the two writers of one block collided.
 */
class LostGroupsQueueClusterTest {
  private static final int CELL = 64 * 1024;
  private static final int K = 6;

  @Test
  void aQueuedGroupWithNothingLostIsNotSeenAndItsFirstLostUnitIsFoundAsANewLoss(@TempDir java.nio.file.Path dir)
      throws Exception {
    Configuration base = MiniClusters.withWideEcRepair(MiniClusters.withWideEcPlacement(new Configuration()));
    // Nothing acts on the queue but this test: no lost-unit passes, no redundancy monitor cycle.
    base.setBoolean("wide-ec.lost-units.enabled", false);
    base.set(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, "3600");
    MiniDFSCluster cluster = MiniClusters.start(base, dir.toFile(), 5, 3, CELL);
    try {
      DistributedFileSystem fs = cluster.getFileSystem();
      ErasureCodingPolicy lrc = WideEcPolicies.addAndEnable(fs, WideEcPolicies.policy("azure-lrc-l2", K, 4, CELL));
      Path d = new Path("/lrc");
      fs.mkdirs(d);
      fs.setErasureCodingPolicy(d, lrc.getName());
      Path file = new Path(d, "f");
      byte[] data = new byte[K * CELL];
      new Random(5).nextBytes(data);
      try (FSDataOutputStream o = fs.create(file)) {
        o.write(data);
      }
      StripedGroups.awaitComplete(fs, file, lrc, 60_000);
      LocatedStripedBlock g = StripedGroups.groups(fs, file).get(0);
      long id = g.getBlock().getBlockId();
      BlockManager bm = cluster.getNamesystem().getBlockManager();
      BlockInfo stored = bm.getStoredBlock(new Block(id));
      int n = lrc.getNumDataUnits() + lrc.getNumParityUnits();

      // Whole, queued as HDFS queues a group its placement check rejects (enough units: the badly-distributed queue).
      assertTrue(bm.neededReconstruction.add(stored, n, 0, 0, n), "queued");
      WideEcLeavingUnits.LostGroups q = WideEcLeavingUnits.lost(cluster.getNamesystem(), 1000);
      assertTrue(q.whole());
      assertEquals(List.of(), q.lost());
      assertFalse(q.seen().contains(id), "a queued group with nothing lost is not seen: " + q.seen());

      // Its DataNode of unit 0 dies: the same queued group now has a lost unit, which the next look finds.
      DatanodeInfo holder = StripedGroups.location(g, 0);
      DataNode dn = cluster.getDataNodes().stream()
          .filter(x -> x.getDatanodeId().getXferAddr().equals(holder.getXferAddr())).findFirst().orElseThrow();
      dn.shutdown();
      MiniClusters.declareDeadAtOnce(cluster, List.of(bm.getDatanodeManager().getDatanode(holder)));
      q = WideEcLeavingUnits.lost(cluster.getNamesystem(), 1000);
      assertTrue(q.seen().contains(id), "a group with a lost unit is seen");
      assertEquals(1, q.lost().size());
      assertEquals(id, q.lost().get(0).groupId());
      assertEquals(Set.of(0), q.lost().get(0).lost());
    } finally {
      cluster.shutdown();
    }
  }
}
