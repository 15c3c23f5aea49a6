package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.io.IOUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.minicluster.Eventually;
import org.wideec.minicluster.MiniClusters;
import org.wideec.minicluster.StripedGroups;
import org.wideec.placement.hdfs.WideEcNameNodeMetrics;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;

/**
 * Azure-LRC 6+2+2 with our placement and NameNode plugin, and no DataNode running our worker: HDFS's own
 * reconstructor repairs every loss. It rebuilds one lost unit; losing units 3, 5 and 6 it reads 0, 1, 2, 4, G2, L1,
 * which cannot decode them, and retries forever. The NameNode plugin reports that group (log, metric), fsck names
 * the loss, and check-cluster and nodes name every DataNode without a worker as a repair hazard for the policy.
 */
class StockRepairHazardClusterTest {
  private static final int CELL = 64 * 1024;
  private static final long BLOCK = 4L * CELL;

  @TempDir
  java.nio.file.Path base;

  @Test
  void aLossStockReconstructionCannotRebuildIsReportedAndAStockRebuildableOneIsNot() throws Exception {
    Configuration conf = MiniClusters.withWideEcPlacement(new Configuration());
    conf.setLong(WideEcNameNodePlugin.SCAN_INTERVAL_KEY, 500);
    MiniDFSCluster cluster = MiniClusters.start(conf, new File(base.toFile(), "dfs"), 6, 3, BLOCK);
    try {
      DistributedFileSystem fs = cluster.getFileSystem();
      ErasureCodingPolicy policy = WideEcPolicies.addAndEnable(fs, WideEcPolicies.policy("azure-lrc-l2", 6, 4, CELL));
      Path dir = new Path("/lrc");
      fs.mkdirs(dir);
      fs.setErasureCodingPolicy(dir, policy.getName());
      Path file = new Path(dir, "f");
      byte[] data = new byte[(int) (6 * BLOCK) - 1000]; // one full group
      new Random(3).nextBytes(data);
      try (FSDataOutputStream o = fs.create(file)) {
        o.write(data);
      }
      StripedGroups.awaitSettled(cluster, fs, policy, List.of(file), 60_000);
      WideEcNameNodeMetrics metrics = WideEcNameNodePlugin.metrics();

      // Control: one lost unit, which HDFS's reconstructor rebuilds; nothing is reported.
      stopHolders(cluster, fs, file, 1);
      StripedGroups.awaitComplete(fs, file, policy, 120_000);
      MiniClusters.awaitQuiet(cluster, 60_000);
      assertArrayEquals(data, read(fs, file, data.length), "rebuilt by HDFS's reconstructor");
      long scansAfterRebuild = metrics.scans();
      Eventually.await("two more scans", Duration.ofSeconds(60), metrics::scans, n -> n >= scansAfterRebuild + 2);
      assertEquals(0, metrics.groupsStockRepairStuckReported(), "a loss HDFS rebuilds is no hazard");
      assertEquals(0, metrics.groupsStockRepairStuck());

      // Units 3, 5 and 6: the code decodes them, HDFS's reconstructor never does.
      stopHolders(cluster, fs, file, 3, 5, 6);
      Eventually.await("the stuck group reported", Duration.ofSeconds(180), metrics::groupsStockRepairStuckReported,
          n -> n > 0);
      assertEquals(1, metrics.groupsStockRepairStuckReported(), "the stuck group is reported once");
      assertEquals(1, metrics.groupsStockRepairStuck());
      assertEquals(List.of(3, 5, 6), StripedGroups.missingUnits(StripedGroups.groups(fs, file).get(0), policy),
          "still not rebuilt");

      Configuration client = cluster.getConfiguration(0);
      JsonNode fsck = ToolRun.of(client, "fsck", "--json", "/lrc").json();
      assertEquals(1, fsck.get("groupsOnlyOurWorkerRepairs").asInt());
      JsonNode g = fsck.get("groups").get(0);
      assertEquals("[3,5,6]", g.get("lostUnits").toString());
      assertEquals(false, g.get("stockRepairable").asBoolean());
      assertEquals(true, g.get("repairable").asBoolean());

      String hazard = "REPAIR HAZARD: HDFS's own reconstructor runs this DataNode's reconstruction tasks and cannot"
          + " rebuild some losses of " + policy.getName() + " (e.g. units [3, 4, 5] lost)";
      ToolRun check = ToolRun.of(client, "check-cluster");
      assertEquals(1, check.exit(), check.out());
      ToolRun nodes = ToolRun.of(client, "nodes", "--json");
      assertEquals(1, nodes.exit(), nodes.out());
      for (DataNode dn : cluster.getDataNodes()) {
        String addr = dn.getDatanodeId().getXferAddr();
        if (!dn.isDatanodeUp()) {
          continue;
        }
        assertTrue(check.out().contains(addr + ": ") && lineOf(check.out(), addr).contains(hazard),
            "check-cluster names " + addr + ":\n" + check.out());
      }
      int named = 0;
      for (JsonNode row : nodes.json().get("datanodes")) {
        assertTrue(row.get("repairHazard").asText().startsWith(hazard), row.toString());
        named++;
      }
      assertEquals(fs.getDataNodeStats(org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType.LIVE).length,
          named);
    } finally {
      cluster.shutdown();
    }
  }

  private static String lineOf(String out, String addr) {
    for (String line : out.split("\n")) {
      if (line.contains(addr + ": ")) {
        return line;
      }
    }
    return "";
  }

  /** Stops the DataNodes holding these units of the file's group and has the NameNode declare them dead. */
  private static void stopHolders(MiniDFSCluster cluster, DistributedFileSystem fs, Path file, int... units)
      throws IOException {
    LocatedStripedBlock group = StripedGroups.groups(fs, file).get(0);
    for (int unit : units) {
      DatanodeInfo where = StripedGroups.location(group, unit);
      for (DataNode dn : cluster.getDataNodes()) {
        if (dn.getDatanodeId().getXferAddr().equals(where.getXferAddr())) {
          cluster.stopDataNode(where.getXferAddr());
          cluster.setDataNodeDead(dn.getDatanodeId());
          break;
        }
      }
    }
  }

  private static byte[] read(DistributedFileSystem fs, Path file, int len) throws IOException {
    byte[] back = new byte[len];
    try (FSDataInputStream in = fs.open(file)) {
      IOUtils.readFully(in, back, 0, len);
    }
    return back;
  }
}
