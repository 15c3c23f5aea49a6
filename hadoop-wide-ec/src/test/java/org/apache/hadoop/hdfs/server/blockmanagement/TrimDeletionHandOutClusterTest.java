package org.apache.hadoop.hdfs.server.blockmanagement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DFSTestUtil;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.minicluster.MiniClusters;
import org.wideec.minicluster.Eventually;

/**
 * {@link WideEcBlockTrim#handOutDeletions} hands out the deletions of the excess replicas it is given even when every
 * DataNode has other deletions pending: HDFS picks the DataNodes it hands work to at random among all with deletions
 * pending, so one round as wide as the DataNodes holding ours (as before) would here miss one of the two with
 * probability 27 in 28, and with HDFS's own rounds ten minutes apart the replica would stay.
 */
class TrimDeletionHandOutClusterTest {
  @TempDir
  java.nio.file.Path base;

  @Test
  void theExcessReplicasGivenAreHandedOutWhenEveryDataNodeHasOtherDeletionsPending() throws Exception {
    Configuration conf = new Configuration();
    conf.set(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, "600");
    MiniDFSCluster cluster = MiniClusters.start(conf, new File(base.toFile(), "c"), 2, 4, 64 * 1024);
    try {
      cluster.waitActive();
      DistributedFileSystem fs = cluster.getFileSystem();
      BlockManager bm = cluster.getNamesystem().getBlockManager();
      // A deleted file with a replica on every DataNode: each has a deletion pending that is not ours.
      Path everywhere = new Path("/everywhere");
      DFSTestUtil.createFile(fs, everywhere, 1000, (short) 8, 1L);
      DFSTestUtil.waitReplication(fs, everywhere, (short) 8);
      fs.delete(everywhere, false);

      Path file = new Path("/f");
      DFSTestUtil.createFile(fs, file, 1000, (short) 3, 2L);
      DFSTestUtil.waitReplication(fs, file, (short) 3);
      ExtendedBlock eb = DFSTestUtil.getFirstBlock(fs, file);
      fs.setReplication(file, (short) 1);
      BlockInfo block = bm.getStoredBlock(eb.getLocalBlock());
      List<WideEcBlockTrim.ExcessReplica> excess = new ArrayList<>();
      for (DatanodeStorageInfo s : bm.getStorages(block)) {
        if (bm.isExcess(s.getDatanodeDescriptor(), block)) {
          excess.add(new WideEcBlockTrim.ExcessReplica(s.getDatanodeDescriptor(), block));
        }
      }
      assertEquals(2, excess.size(), "setReplication 3 -> 1 marks two replicas excess");
      for (WideEcBlockTrim.ExcessReplica e : excess) {
        assertTrue(bm.containsInvalidateBlock(e.node(), block), "pending before: " + e.node());
      }

      int handed = WideEcBlockTrim.handOutDeletions(cluster.getNamesystem(), excess);

      for (WideEcBlockTrim.ExcessReplica e : excess) {
        assertFalse(bm.containsInvalidateBlock(e.node(), block), "still pending after the hand-out: " + e.node());
      }
      assertTrue(handed >= 2, "handed out " + handed);
      Eventually.await("one replica of " + eb + " left", Duration.ofSeconds(30),
          () -> fs.getFileBlockLocations(file, 0, 1000)[0].getHosts().length == 1);
      assertEquals(0, WideEcBlockTrim.handOutDeletions(cluster.getNamesystem(), excess), "nothing of ours is pending");
    } finally {
      cluster.shutdown();
    }
  }
}
