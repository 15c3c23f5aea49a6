package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.wideec.hdfs.RepairClusterFixture.CELL;
import static org.wideec.hdfs.RepairClusterFixture.assertEveryRebuiltUnitStoredByOurWorker;
import static org.wideec.hdfs.RepairClusterFixture.before;
import static org.wideec.hdfs.RepairClusterFixture.cluster;
import static org.wideec.hdfs.RepairClusterFixture.code;
import static org.wideec.hdfs.RepairClusterFixture.everyByteReadsBack;
import static org.wideec.hdfs.RepairClusterFixture.files;
import static org.wideec.hdfs.RepairClusterFixture.fs;
import static org.wideec.hdfs.RepairClusterFixture.layout;
import static org.wideec.hdfs.RepairClusterFixture.loseBusiestNode;
import static org.wideec.hdfs.RepairClusterFixture.stockReconstructionTasks;
import static org.wideec.hdfs.RepairClusterFixture.sum;

import io.netty.buffer.ByteBuf;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.apache.hadoop.http.HttpConfig;
import org.apache.hadoop.io.IOUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wideec.datanode.ReconstructionOutcome.Route;
import org.wideec.datanode.RepairMetrics;
import org.wideec.hdfs.RepairClusterFixture.Before;
import org.wideec.hdfs.RepairClusterFixture.Recorded;
import org.wideec.repair.LinkWeights;
import org.wideec.repair.RepairGraph;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.SingleUnitRepairPlanner;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.hdfs.DataNodeSites;
import org.wideec.transport.Frame;
import org.wideec.transport.TestKeystores;
import org.wideec.transport.TransportFaultInjector;

/**
 * The DataNode repair worker in a real cluster with racks: the NameNode's reconstruction tasks for our codec
 * are run by our worker (not HDFS's reconstructor), with exactly the cross-rack traffic the plan predicts, and
 * every byte reads back, also after g more DataNodes (as many as HDFS's client decodes on its own) are stopped.
 */
class RepairWorkerClusterTest {
  static TestKeystores keystores;

  /**
   * Web UIs on HTTPS only (dfs.http.policy=HTTPS_ONLY): the workers and the endpoints tool find each other's
   * slice ports over HTTPS, trusting ssl-client.xml, as on a secured cluster. The fault tests run on HTTP.
   */
  @BeforeAll
  static void start() throws Exception {
    Configuration conf = new Configuration();
    keystores = new TestKeystores(RepairWorkerClusterTest.class, conf);
    conf.set(DFSConfigKeys.DFS_HTTP_POLICY_KEY, HttpConfig.Policy.HTTPS_ONLY.name());
    conf.set(DFSConfigKeys.DFS_NAMENODE_HTTPS_ADDRESS_KEY, "localhost:0");
    conf.set(DFSConfigKeys.DFS_DATANODE_HTTPS_ADDRESS_KEY, "localhost:0");
    // This test counts the planned cross-rack bytes of the repair scheme exactly; validation's second decode of a
    // random sample would add to them (the other repair tests validate, as the default is).
    conf.setBoolean(org.wideec.datanode.RepairWorkerConf.VALIDATION, false);
    RepairClusterFixture.start(conf);
  }

  @AfterAll
  static void stop() throws Exception {
    RepairClusterFixture.stop();
    keystores.close();
  }

  @Test
  void everyDataNodesWorkerIsDiscoverableByTools() throws Exception {
    java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
    int rc = org.apache.hadoop.util.ToolRunner.run(cluster.getConfiguration(0),
        new org.wideec.cli.WideEcTool(new java.io.PrintStream(buf, true), System.err), new String[] {"nodes", "--json"});
    assertEquals(0, rc, buf.toString());
    com.fasterxml.jackson.databind.JsonNode j = new com.fasterxml.jackson.databind.ObjectMapper().readTree(buf.toString());
    assertEquals(cluster.getDataNodes().size(), j.get("datanodes").size());
    for (com.fasterxml.jackson.databind.JsonNode d : j.get("datanodes")) {
      int xfer = Integer.parseInt(d.get("datanode").asText().split(":")[1]);
      org.wideec.datanode.WideEcDataNodePlugin p = org.wideec.datanode.WideEcDataNodePlugin.running(xfer);
      assertEquals(p.transport().port(), d.get("slicePort").asInt(), "what tools see is where the worker listens");
      assertEquals("hmac", d.get("authentication").asText());
      assertEquals("running", d.get("worker").asText());
      assertEquals(org.wideec.Version.of(), d.get("version").asText());
      assertEquals(org.wideec.coder.Kernels.describe(), d.get("coder").asText(), "which coder runs, as the DataNode says");
      assertEquals("", d.get("lastError").asText());
      // The repair path ran once at the worker's start, in the background: four repairs planned, the kernel agreeing.
      org.wideec.engine.RepairWarmup.Result warm = org.wideec.minicluster.Eventually.await("the warm-up of " + xfer,
          java.time.Duration.ofSeconds(60), p::warmedUp, java.util.Objects::nonNull);
      assertEquals(4, warm.plans(), "the warm-up ran on " + xfer);
      assertTrue(warm.kernelAgrees());
    }
    for (DataNode dn : cluster.getDataNodes()) {
      assertTrue(dn.getDatanodeId().getInfoSecurePort() > 0 && dn.getInfoPort() == 0, "web UI on HTTPS only");
    }
    checkClusterFindsThePolicyFitsAndEveryWorkerRuns();
  }

  /** Part of the test above: it runs before any test stops a DataNode. */
  private void checkClusterFindsThePolicyFitsAndEveryWorkerRuns() throws Exception {
    java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
    int rc = org.apache.hadoop.util.ToolRunner.run(cluster.getConfiguration(0),
        new org.wideec.cli.WideEcTool(new java.io.PrintStream(buf, true), System.err),
        new String[] {"check-cluster", "--json"});
    com.fasterxml.jackson.databind.JsonNode j = new com.fasterxml.jackson.databind.ObjectMapper().readTree(buf.toString());
    // The DataNodes run in this JVM: they code natively exactly when this JVM does.
    assertEquals(org.wideec.coder.Kernels.nativeInUse() ? 0 : 1, rc, buf.toString());
    assertEquals(org.wideec.coder.Kernels.nativeInUse(), j.get("ok").asBoolean(), buf.toString());
    assertEquals(1, j.get("policies").size());
    assertTrue(j.get("policies").get(0).get("fits").asText().startsWith("yes"), buf.toString());
    assertEquals("stock-readable", j.get("policies").get(0).get("rackLoss").asText());
    assertEquals(cluster.getDataNodes().size(), j.get("datanodes").size());
    for (com.fasterxml.jackson.databind.JsonNode d : j.get("datanodes")) {
      assertEquals("running", d.get("worker").asText());
      assertEquals(false, d.get("blockPinning").asBoolean(true), d.toString());
    }
    // dfs.datanode.block-pinning.enabled is off here: one warning per DataNode, which leaves the exit status alone.
    assertEquals(cluster.getDataNodes().size(), j.get("warnings").size(), buf.toString());
    j.get("warnings").forEach(w -> assertTrue(w.asText().contains("dfs.datanode.block-pinning.enabled is false"), w.asText()));
  }

  @Test
  void ourWorkerRebuildsLostUnitsWithThePlannedCrossRackTrafficAndNothingIsLost() throws Exception {
    Before first = before();
    long stockBefore = stockReconstructionTasks();
    long crossBefore = sum(RepairMetrics::bytesSentCrossRack);
    Map<String, Map<Integer, DatanodeInfo>> before = layout();
    DatanodeInfo lost = loseBusiestNode();
    List<Recorded> done = assertEveryRebuiltUnitStoredByOurWorker(first);
    Map<String, Map<Integer, DatanodeInfo>> after = layout();

    // Predict the cross-rack bytes from the plan: each lost unit, rebuilt by the rack-aggregated chain with
    // its new location as requestor, sends (racks its helpers span beyond the requestor's) x unit length.
    long expected = 0;
    int rebuilt = 0;
    for (Map.Entry<String, Map<Integer, DatanodeInfo>> g : before.entrySet()) {
      long groupBytes = Long.parseLong(g.getKey().substring(g.getKey().indexOf('@') + 1));
      for (Map.Entry<Integer, DatanodeInfo> u : g.getValue().entrySet()) {
        if (!u.getValue().getXferAddr().equals(lost.getXferAddr())) {
          continue;
        }
        Map<Integer, UnitLocation> survivors = new HashMap<>();
        g.getValue().forEach((i, d) -> {
          if (i != u.getKey().intValue()) {
            survivors.put(i, new UnitLocation(i, DataNodeSites.of(d)));
          }
        });
        java.util.Set<Integer> zeros = new java.util.HashSet<>();
        for (int i = 0; i < code.k(); i++) {
          if (StripedBlockUtil.getInternalBlockLength(groupBytes, CELL, code.k(), i) == 0) {
            zeros.add(i);
            survivors.put(i, UnitLocation.zero(i, "-"));
          }
        }
        DatanodeInfo target = after.get(g.getKey()).get(u.getKey());
        RepairGraph plan = SingleUnitRepairPlanner.plan(RepairScheme.RACK_AGGREGATED, code, u.getKey(), survivors,
            target.getXferAddr(), target.getNetworkLocation(), LinkWeights.UNIFORM,
            java.util.Comparator.comparing((Integer i) -> !zeros.contains(i)).thenComparing(i -> i));
        long len = StripedBlockUtil.getInternalBlockLength(groupBytes, CELL, code.k(), u.getKey());
        for (var step : plan.steps()) {
          if (zeros.contains(step.helper().unit())) {
            continue;
          }
          String to = step.next() == -1 ? target.getNetworkLocation() : plan.steps().get(step.next()).helper().rack();
          expected += step.helper().rack().equals(to) ? 0 : len;
        }
        rebuilt++;
      }
    }
    assertTrue(rebuilt >= 2, "the lost node held units of several groups");
    assertEquals(rebuilt, sum(RepairMetrics::succeeded), "each lost unit rebuilt by our worker");
    assertEquals(rebuilt, sum(RepairMetrics::tasksTakenOver));
    assertEquals(stockBefore, stockReconstructionTasks(), "HDFS's reconstructor ran no task");
    assertEquals(expected, sum(RepairMetrics::bytesSentCrossRack) - crossBefore, "cross-rack bytes as planned");
    assertTrue(sum(m -> m.repairs(RepairScheme.RACK_AGGREGATED)) >= rebuilt);
    assertEquals(rebuilt, done.stream().filter(r -> r.outcome().route() == Route.OUR_WORKER).count(),
        "one task of our worker per lost unit, each in its first attempt: " + done);
    assertTrue(done.stream().allMatch(r -> r.outcome().attempts() == 1), done.toString());
    everyByteReadsBack();

    // A corrupt slice on the wire: the repair restarts without its sender and still stores the right bytes.
    Before second = before();
    AtomicReference<ByteBuf> marked = new AtomicReference<>();
    AtomicBoolean corrupted = new AtomicBoolean();
    AtomicReference<String> sender = new AtomicReference<>();
    TransportFaultInjector.set(new TransportFaultInjector() {
      @Override
      public void beforeSend(String node, String to, long repairId, int slice, ByteBuf payload) {
        if (slice == 1 && payload.readableBytes() > 8 && !corrupted.getAndSet(true)) {
          sender.set(node);
          marked.set(payload);
        }
      }

      @Override
      public void afterEncode(Frame frame, ByteBuf out, int offset, int length) {
        if (frame.payload() == marked.get()) {
          out.setByte(offset + 3, out.getByte(offset + 3) ^ 1);
          marked.set(null);
        }
      }
    });
    long retriesBefore = sum(RepairMetrics::retries);
    loseBusiestNode();
    List<Recorded> afterCorruption = assertEveryRebuiltUnitStoredByOurWorker(second);
    assertTrue(corrupted.get());
    assertTrue(sum(RepairMetrics::retries) > retriesBefore, "the corrupt slice forced a restart");
    assertEquals(stockBefore, stockReconstructionTasks());
    assertEquals(1, afterCorruption.stream().filter(r -> r.outcome().route() == Route.OUR_WORKER
        && r.outcome().attempts() == 2 && r.outcome().excludedHelpers().equals(List.of(sender.get()))).count(),
        "our worker finished the repair the corrupt slice broke, without its sender " + sender.get() + ": " + afterCorruption);
    TransportFaultInjector.set(null);
    everyByteReadsBack();

    // After the repairs the groups are whole again: stop as many DataNodes as HDFS's client decodes on its
    // own (g; it reads the lowest-index parities, so an LRC's g + 1st loss is not always served, DESIGN §2),
    // all in one rack, and read everything.
    int tolerance = code.guaranteedTolerance() - 1;
    for (int i = 0; i < tolerance; i++) {
      cluster.stopDataNode(0);
    }
    for (Map.Entry<Path, byte[]> e : files.entrySet()) {
      byte[] back = new byte[e.getValue().length];
      try (FSDataInputStream in = fs.open(e.getKey())) {
        IOUtils.readFully(in, back, 0, back.length);
      }
      assertArrayEquals(e.getValue(), back, "degraded read of " + e.getKey());
    }
  }
}
