package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.wideec.hdfs.RepairClusterFixture.before;
import static org.wideec.hdfs.RepairClusterFixture.cluster;
import static org.wideec.hdfs.RepairClusterFixture.everyByteReadsBack;
import static org.wideec.hdfs.RepairClusterFixture.loseBusiestNode;
import static org.wideec.hdfs.RepairClusterFixture.stockFailedReconstructionTasks;
import static org.wideec.hdfs.RepairClusterFixture.stockReconstructionTasks;
import static org.wideec.hdfs.RepairClusterFixture.unitLocations;
import static org.wideec.hdfs.RepairClusterFixture.workers;

import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.test.GenericTestUtils.LogCapturer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wideec.datanode.RepairWorkerConf;
import org.wideec.datanode.WideEcDataNodePlugin;
import org.wideec.hdfs.RepairClusterFixture.Before;

/**
 * A failure in the DataNode plugin leaves stock reconstruction working. Every DataNode starts
 * with a misspelt repair scheme: each keeps running with our worker off (one error naming the key and its
 * allowed values), and when an LRC group loses units, HDFS's own reconstructor rebuilds every one of them,
 * byte for byte.
 */
class MisconfiguredWorkerClusterTest {
  /** What wide-ec logged while the cluster started. */
  static String startLog;

  @BeforeAll
  static void start() throws Exception {
    Configuration conf = new Configuration();
    conf.set(RepairWorkerConf.SCHEME, "rack_agregated");
    LogCapturer log = LogCapturer.captureLogs(org.apache.log4j.Logger.getLogger("org.wideec"));
    try {
      RepairClusterFixture.startCluster(conf);
    } finally {
      startLog = log.getOutput();
      log.stopCapturing();
    }
  }

  @AfterAll
  static void stop() {
    RepairClusterFixture.stop();
  }

  @Test
  void aBadRepairSchemeLeavesEveryDataNodeRunningAndStockReconstructionRebuildsTheLostUnits() throws Exception {
    for (DataNode dn : cluster.getDataNodes()) {
      assertTrue(dn.isDatanodeUp(), dn.getDisplayName() + " runs");
      WideEcDataNodePlugin p = WideEcDataNodePlugin.running(dn.getXferPort());
      assertNotNull(p, "the plugin was started on " + dn.getDisplayName());
      String why = p.disabledReason();
      assertNotNull(why, "our worker is off on " + dn.getDisplayName());
      assertTrue(why.contains(RepairWorkerConf.SCHEME) && why.contains("'rack_agregated'")
          && why.contains("conventional, pipelined, cyclic, weighted, rack_aggregated"), why);
      assertFalse(p.tookOverReconstruction());
      assertNull(p.transport(), "no slice port is open");
      assertNull(p.metrics());
    }
    assertTrue(workers.isEmpty(), "no worker of ours runs anywhere");
    java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
    int rc = org.apache.hadoop.util.ToolRunner.run(cluster.getConfiguration(0),
        new org.wideec.cli.WideEcTool(new java.io.PrintStream(buf, true), System.err), new String[] {"nodes", "--json"});
    assertEquals(org.wideec.cli.WideEcTool.EXIT_FOUND_PROBLEM, rc, "nodes reports the workers that are off");
    com.fasterxml.jackson.databind.JsonNode nodes = new com.fasterxml.jackson.databind.ObjectMapper().readTree(buf.toString());
    assertEquals(cluster.getDataNodes().size(), nodes.get("withoutWorker").asInt());
    buf.reset();
    assertEquals(org.wideec.cli.WideEcTool.EXIT_FOUND_PROBLEM, org.apache.hadoop.util.ToolRunner.run(
        cluster.getConfiguration(0), new org.wideec.cli.WideEcTool(new java.io.PrintStream(buf, true), System.err),
        new String[] {"check-cluster"}));
    assertTrue(buf.toString().contains("the wide-ec worker is off: " + RepairWorkerConf.SCHEME), buf.toString());
    for (com.fasterxml.jackson.databind.JsonNode d : nodes.get("datanodes")) {
      assertTrue(d.get("worker").asText().startsWith("off: ") && d.get("worker").asText().contains("'rack_agregated'"),
          "an operator sees why on every DataNode: " + d);
    }
    List<String> errors = startLog.lines().filter(l -> l.contains(" ERROR ")).toList();
    assertEquals(cluster.getDataNodes().size(), errors.size(), "one error per DataNode: " + startLog);
    assertTrue(errors.stream().allMatch(l -> l.contains(RepairWorkerConf.SCHEME) && l.contains("stock reconstruction")),
        startLog);

    Before before = before();
    assertEquals(0, stockReconstructionTasks());
    loseBusiestNode();
    Map<Long, Map<Integer, String>> after = unitLocations();
    int rebuilt = 0;
    for (Map.Entry<Long, Map<Integer, String>> g : after.entrySet()) {
      Map<Integer, String> was = before.units().get(g.getKey());
      assertEquals(was.keySet(), g.getValue().keySet(), "group " + g.getKey() + " has every unit again");
      for (Map.Entry<Integer, String> u : g.getValue().entrySet()) {
        rebuilt += u.getValue().equals(was.get(u.getKey())) ? 0 : 1;
      }
    }
    assertTrue(rebuilt >= 2, "the lost DataNode held units of several groups");
    assertEquals(rebuilt, stockReconstructionTasks(), "HDFS's reconstructor ran one task per lost unit");
    assertEquals(0, stockFailedReconstructionTasks(), "and each of them succeeded");
    everyByteReadsBack();
  }
}
