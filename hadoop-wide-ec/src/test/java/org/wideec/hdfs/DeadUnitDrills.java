package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeDescriptor;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.wideec.code.LinearCode;
import org.wideec.minicluster.Eventually;
import org.wideec.minicluster.MiniClusters;
import org.wideec.minicluster.StripedGroups;
import org.wideec.placement.hdfs.WideEcNameNodeMetrics;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;

/**
 * The steps the dead-node and dead-rack cluster tests share: DataNodes stopped and declared dead at once, the wait
 * until every lost unit is back and every order the NameNode sent for one is counted, and the check that every byte
 * reads back and every unit on disk is what the code computes.
 */
final class DeadUnitDrills {
  private DeadUnitDrills() {}

  static WideEcNameNodeMetrics metrics() {
    return WideEcNameNodePlugin.metrics();
  }

  /**
   * Stops the DataNodes, then the NameNode declares them all dead at once (as after their heartbeats stopped), under
   * the namesystem's write lock: no pass of the repair monitor (which reads under its read lock) sees some of them
   * removed and plans with the others still live (the heartbeat check removes dead nodes one lock at a time). Returns
   * what restarts them.
   */
  static List<MiniDFSCluster.DataNodeProperties> kill(MiniDFSCluster cluster, Set<String> nodes)
      throws IOException {
    List<DatanodeDescriptor> dead = new ArrayList<>();
    List<MiniDFSCluster.DataNodeProperties> stopped = new ArrayList<>();
    for (String node : nodes) {
      DataNode dn = cluster.getDataNodes().stream().filter(d -> d.getDatanodeId().getXferAddr().equals(node))
          .findFirst().orElseThrow();
      dead.add(cluster.getNamesystem().getBlockManager().getDatanodeManager().getDatanode(dn.getDatanodeId()));
      MiniDFSCluster.DataNodeProperties p = cluster.stopDataNode(node);
      assertTrue(p != null, node);
      stopped.add(p);
    }
    MiniClusters.declareDeadAtOnce(cluster, dead);
    return stopped;
  }

  /** The NameNode's counts of lost units rebuilt on its orders, left to HDFS and failed, now. */
  static long[] orderCounts() {
    return new long[] {metrics().lostUnitsRebuilt(), metrics().lostUnitsLeftToHdfs(),
        metrics().lostUnitRebuildFailures()};
  }

  /**
   * A unit is live once its DataNode reports it, but the NameNode counts it rebuilt on its order only when the order's
   * outcome comes back and the unit is confirmed live, a little later: wait until every lost unit is counted one way
   * or another (rebuilt, left to HDFS, failed) and no order runs. A unit rebuilt some other way is never counted, so
   * the wait fails naming the counts.
   */
  static void awaitOrdersAccounted(long[] before, int units) {
    long rebuiltBefore = before[0];
    long leftBefore = before[1];
    long failedBefore = before[2];
    Eventually.await("every lost unit's order counted (rebuilt, left to HDFS or failed)", Duration.ofSeconds(60),
        () -> metrics().lostUnitsRebuilding() == 0 && metrics().lostUnitsRebuilt() - rebuiltBefore
            + metrics().lostUnitsLeftToHdfs() - leftBefore + metrics().lostUnitRebuildFailures() - failedBefore >= units
            ? null : "rebuilt " + (metrics().lostUnitsRebuilt() - rebuiltBefore) + " of " + units + ", left to HDFS "
            + (metrics().lostUnitsLeftToHdfs() - leftBefore) + ", failed " + (metrics().lostUnitRebuildFailures()
            - failedBefore) + ", running " + metrics().lostUnitsRebuilding(), java.util.Objects::isNull);
  }

  /** Waits until every group of the files has every unit again. */
  static void awaitEveryUnitBack(String what, DistributedFileSystem fs, ErasureCodingPolicy policy,
      Collection<Path> files) {
    Eventually.await(what, Duration.ofSeconds(180), () -> {
      List<String> missing = new ArrayList<>();
      for (Path p : files) {
        for (LocatedStripedBlock g : StripedGroups.groups(fs, p)) {
          if (!StripedGroups.missingUnits(g, policy).isEmpty()) {
            missing.add(g.getBlock() + " of " + p + " misses " + StripedGroups.missingUnits(g, policy));
          }
        }
      }
      return missing.isEmpty() ? null : missing + "; rebuilt " + metrics().lostUnitsRebuilt() + ", failures "
          + metrics().lostUnitRebuildFailures();
    }, java.util.Objects::isNull);
  }

  /** Every file reads back as written, and every unit on disk is what the code computes. */
  static void everyByteReadsBack(MiniDFSCluster cluster, DistributedFileSystem fs, ErasureCodingPolicy policy,
      LinearCode code, Map<Path, byte[]> files) throws IOException {
    for (Map.Entry<Path, byte[]> f : files.entrySet()) {
      byte[] back = new byte[f.getValue().length];
      try (FSDataInputStream in = fs.open(f.getKey())) {
        in.readFully(0, back);
      }
      assertArrayEquals(f.getValue(), back, f.getKey().toString());
      int located = StripedGroups.groups(fs, f.getKey()).stream().mapToInt(g -> g.getLocations().length).sum();
      assertEquals(located, StripedGroups.verifyEveryUnit(cluster, fs, f.getKey(), policy, code, f.getValue()),
          f.getKey().toString());
    }
  }
}
