package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.apache.hadoop.io.IOUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.code.LinearCode;
import org.wideec.coder.StripedCodec;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.datanode.ReconstructionOutcome;
import org.wideec.datanode.RepairMetrics;
import org.wideec.datanode.WideEcDataNodePlugin;
import org.wideec.minicluster.Eventually;
import org.wideec.minicluster.MiniClusters;
import org.wideec.minicluster.StripedGroups;

/**
 * HDFS's TestReconstructStripedFile#testRecoverAllDataBlocks1 under our worker: three data units' DataNodes stop
 * and a fourth data unit's replica is corrupt on disk. HDFS's reconstructor reports the corrupt source to the
 * NameNode as its read fails, so the NameNode rebuilds it too; our worker must do the same before its repair of the
 * three completes, or the NameNode keeps counting the corrupt unit as live once the three are back.
 */
class CorruptSourceClusterTest {
  private static final int CELL = 64 * 1024;
  private static final long BLOCK = 4L * CELL;
  private static final int[] STOPPED = {1, 4, 7};
  private static final int CORRUPT = 2;

  @TempDir
  java.nio.file.Path base;

  @Test
  void aCorruptSourceFoundWhileRebuildingThreeUnitsIsReportedAndRebuiltToo() throws Exception {
    Configuration conf = MiniClusters.withWideEcRepair(MiniClusters.withWideEcPlacement(new Configuration()));
    // A corrupt helper found by the worker while it runs a task HDFS scheduled: the path a lost unit takes when the
    // NameNode's rebuild orders are off or hand it back.
    conf.setBoolean("wide-ec.lost-units.enabled", false);
    conf.setInt("wide-ec.transport.slice.bytes", 16 * 1024);
    conf = MiniClusters.tuned(conf, new File(base.toFile(), "dfs"), BLOCK);
    // HDFS's default heartbeat (as in HDFS's own test): a helper's DataNode queues its report of a corrupt replica
    // for its next heartbeat, up to 3 s later; the test stops DataNodes and declares them dead itself.
    conf.setInt(DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_KEY, 3);
    MiniDFSCluster cluster = MiniClusters.start(conf, 6, 3);
    try {
      DistributedFileSystem fs = cluster.getFileSystem();
      ErasureCodingPolicy policy = WideEcPolicies.addAndEnable(fs, WideEcPolicies.policy("wide-rs", 10, 4, CELL));
      LinearCode code = StripedCodec.WIDE_RS.codeFor(10, 4);
      Path dir = new Path("/rs");
      fs.mkdirs(dir);
      fs.setErasureCodingPolicy(dir, policy.getName());
      Path file = new Path(dir, "f");
      byte[] data = new byte[(int) (10 * BLOCK) - CELL / 3]; // one group, every data unit holding bytes
      new Random(7).nextBytes(data);
      try (FSDataOutputStream o = fs.create(file)) {
        o.write(data);
      }
      StripedGroups.awaitSettled(cluster, fs, policy, List.of(file), 60_000);
      LocatedStripedBlock group = StripedGroups.groups(fs, file).get(0);
      long groupId = group.getBlock().getBlockId();

      DatanodeInfo corruptHolder = StripedGroups.location(group, CORRUPT);
      cluster.corruptReplica(dataNode(cluster, corruptHolder),
          StripedBlockUtil.constructInternalBlock(group.getBlock(), policy, CORRUPT));
      List<DataNode> stopped = new ArrayList<>();
      for (int unit : STOPPED) {
        stopped.add(dataNode(cluster, StripedGroups.location(group, unit)));
      }
      for (DataNode dn : stopped) {
        cluster.stopDataNode(dn.getDatanodeId().getXferAddr());
        cluster.setDataNodeDead(dn.getDatanodeId());
      }

      // The moment our worker has stored the three, the NameNode no longer counts the corrupt replica as live.
      ReconstructionOutcome three = awaitOutcome(cluster, groupId, 120_000);
      assertEquals(ReconstructionOutcome.Route.OUR_WORKER, three.route(), three.toString());
      assertEquals(List.of(1, 4, 7), three.units());
      LocatedStripedBlock after = StripedGroups.groups(fs, file).get(0);
      DatanodeInfo unit2 = StripedGroups.location(after, CORRUPT);
      assertTrue(unit2 == null || !unit2.getXferAddr().equals(corruptHolder.getXferAddr()),
          "unit " + CORRUPT + " still counted live on " + corruptHolder + " after " + three);

      StripedGroups.awaitComplete(fs, file, policy, 120_000);
      LocatedStripedBlock healed = StripedGroups.groups(fs, file).get(0);
      assertNotEquals(corruptHolder.getXferAddr(), StripedGroups.location(healed, CORRUPT).getXferAddr(),
          "unit " + CORRUPT + " rebuilt on another DataNode");
      assertEquals(14, StripedGroups.verifyEveryUnit(cluster, fs, file, policy, code, data));
      assertArrayEquals(data, read(fs, file, data.length));
      assertEquals(1, reported(cluster), "the worker reported the corrupt source once");
    } finally {
      cluster.shutdown();
    }
  }

  private static DataNode dataNode(MiniDFSCluster cluster, DatanodeInfo where) {
    for (DataNode dn : cluster.getDataNodes()) {
      if (dn.getDatanodeId().getXferAddr().equals(where.getXferAddr())) {
        return dn;
      }
    }
    throw new IllegalStateException("no running DataNode at " + where);
  }

  /** The first task of the group any worker finished, waiting for it. */
  private static ReconstructionOutcome awaitOutcome(MiniDFSCluster cluster, long groupId, long timeoutMs)
      throws InterruptedException, IOException {
    return Eventually.await("a worker finished a task of block group " + groupId, Duration.ofMillis(timeoutMs),
        () -> outcome(cluster, groupId), java.util.Objects::nonNull);
  }

  private static ReconstructionOutcome outcome(MiniDFSCluster cluster, long groupId) {
    for (DataNode dn : cluster.getDataNodes()) {
      WideEcDataNodePlugin p = WideEcDataNodePlugin.running(dn.getXferPort());
      RepairMetrics m = p == null ? null : p.metrics();
      if (m != null) {
        for (ReconstructionOutcome o : m.recentOutcomes()) {
          if (o.blockGroupId() == groupId) {
            return o;
          }
        }
      }
    }
    return null;
  }

  private static long reported(MiniDFSCluster cluster) {
    long n = 0;
    for (DataNode dn : cluster.getDataNodes()) {
      WideEcDataNodePlugin p = WideEcDataNodePlugin.running(dn.getXferPort());
      n += p == null || p.metrics() == null ? 0 : p.metrics().corruptSourcesReported();
    }
    return n;
  }

  private static byte[] read(DistributedFileSystem fs, Path file, int len) throws IOException {
    byte[] back = new byte[len];
    try (FSDataInputStream in = fs.open(file)) {
      IOUtils.readFully(in, back, 0, len);
    }
    return back;
  }
}
