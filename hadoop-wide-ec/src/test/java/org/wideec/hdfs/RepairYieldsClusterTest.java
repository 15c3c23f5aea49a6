package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import javax.management.Attribute;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.wideec.datanode.BackgroundTraffic;
import org.wideec.datanode.JmxEndpointResolver;
import org.wideec.datanode.WideEcDataNodePlugin;
import org.wideec.time.TokenBucket;
import org.wideec.transport.CappedBackground;

/**
 * Repairs under a per-node background cap: every DataNode's transport counts the background slices it sent, the cap
 * counts what it let through, and the two agree; what went through stays within the cap times the time since the
 * DataNode started plus one burst; a cap changed through the DataNode's JMX bean governs the next repair's slices; and
 * every byte reads back after each repair.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RepairYieldsClusterTest {
  // Low enough that the cap binds however slowly a loaded machine runs the repair: a bucket holds a tenth of a
  // second's bytes (12.8 KiB here), less than one 16 KiB slice, so after its first slice a helper sends one slice per
  // 0.1 s at most, and a 256 KiB unit takes at least 1.6 s; at 512 KiB/s a repair slower than 0.4 s a unit never
  // waited, and the suite once saw that.
  static final long CAP = 128 * 1024;
  static final long LOWER_CAP = 64 * 1024;
  static final long RACK_CAP = 3 * 1024 * 1024;
  static long startedNanos;

  @BeforeAll
  static void start() throws Exception {
    Configuration conf = new Configuration();
    conf.setLong(BackgroundTraffic.NODE_KEY, CAP);
    startedNanos = System.nanoTime();
    RepairClusterFixture.start(conf);
  }

  @AfterAll
  static void stop() {
    RepairClusterFixture.stop();
  }

  @Test
  @Order(1)
  void aRepairUnderANodeCapSendsNoMoreThanTheCapAllowsAndTheTransportCountsTheSame() throws Exception {
    loseANodeAndRepairItsUnits();
    long sent = 0;
    long waits = 0;
    double seconds = (System.nanoTime() - startedNanos) / 1e9;
    for (DataNode dn : RepairClusterFixture.cluster.getDataNodes()) {
      WideEcDataNodePlugin p = WideEcDataNodePlugin.running(dn.getXferPort());
      CappedBackground caps = throttleOf(p);
      TokenBucket node = caps.node();
      assertEquals(CAP, node.bytesPerSecond(), "the configured cap, the back-off off");
      assertEquals(p.metrics().backgroundBytesSent(), caps.bytes(),
          dn.getXferPort() + ": the transport counted exactly the background bytes the cap let through");
      assertTrue(node.takenBytes() <= node.earnedBytes(), "never more than the bucket earned: " + node.takenBytes()
          + " > " + node.earnedBytes());
      assertTrue(node.takenBytes() <= CAP * seconds + node.burstBytes(), "cap x time + one burst");
      sent += caps.bytes();
      waits += caps.waits();
    }
    assertTrue(sent > 0, "the repairs' slices went through the cap");
    assertTrue(waits > 0, "and some waited for it: the cap was in force");
  }

  @Test
  @Order(2)
  void aCapChangedThroughJmxGovernsTheNextRepairsSlices() throws Exception {
    MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
    Map<Integer, long[]> before = new HashMap<>();
    for (DataNode dn : RepairClusterFixture.cluster.getDataNodes()) {
      ObjectName bean = beanOf(dn);
      jmx.setAttribute(bean, new Attribute("BackgroundNodeCap", LOWER_CAP));
      assertEquals(LOWER_CAP, jmx.getAttribute(bean, "BackgroundNodeCap"));
      assertEquals(LOWER_CAP, jmx.getAttribute(bean, "BackgroundNodeCapNow"), "in force at once");
      TokenBucket node = throttleOf(WideEcDataNodePlugin.running(dn.getXferPort())).node();
      before.put(dn.getXferPort(), new long[] {node.takenBytes(), node.earnedBytes(), System.nanoTime()});
    }
    ToolRun nodes = ToolRun.of(RepairClusterFixture.cluster.getConfiguration(0), "nodes", "--json");
    int shown = 0;
    for (com.fasterxml.jackson.databind.JsonNode row : nodes.json().get("datanodes")) {
      assertEquals(LOWER_CAP, row.get("backgroundNodeCapNow").asLong(), "wide-ec nodes shows the new cap: " + row);
      shown++;
    }
    assertEquals(RepairClusterFixture.cluster.getDataNodes().size(), shown);
    loseANodeAndRepairItsUnits();
    long sent = 0;
    for (DataNode dn : RepairClusterFixture.cluster.getDataNodes()) {
      TokenBucket node = throttleOf(WideEcDataNodePlugin.running(dn.getXferPort())).node();
      long[] then = before.get(dn.getXferPort());
      double seconds = (System.nanoTime() - then[2]) / 1e9;
      long taken = node.takenBytes() - then[0];
      assertEquals(LOWER_CAP, node.bytesPerSecond());
      // What was left in the bucket at the change, plus what accrued at the new rate since.
      assertTrue(taken <= Math.max(0, then[1] - then[0]) + LOWER_CAP * seconds + node.burstBytes(),
          dn.getXferPort() + " sent " + taken + " bytes in " + seconds + " s under " + LOWER_CAP + " B/s");
      sent += taken;
    }
    assertTrue(sent > 0, "the second repair's slices went through the new cap");
  }

  @Test
  @Order(3)
  void eachDataNodeTakesAnEqualShareOfItsRacksUplinkCapForItsCrossRackSlices() throws Exception {
    MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
    Map<String, Integer> liveInRack = new HashMap<>();
    Map<String, String> rackOf = new HashMap<>();
    for (org.apache.hadoop.hdfs.protocol.DatanodeInfo d : RepairClusterFixture.fs.getDataNodeStats(
        org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType.LIVE)) {
      liveInRack.merge(d.getNetworkLocation(), 1, Integer::sum);
      rackOf.put(d.getXferAddr(), d.getNetworkLocation());
    }
    for (DataNode dn : RepairClusterFixture.cluster.getDataNodes()) {
      ObjectName bean = beanOf(dn);
      jmx.setAttribute(bean, new Attribute("BackgroundRackCap", RACK_CAP));
    }
    for (DataNode dn : RepairClusterFixture.cluster.getDataNodes()) {
      ObjectName bean = beanOf(dn);
      long share = RACK_CAP / liveInRack.get(rackOf.get(dn.getDatanodeId().getXferAddr()));
      org.wideec.minicluster.Eventually.await(dn.getXferPort() + "'s share of its rack's cap",
          java.time.Duration.ofSeconds(30), () -> (Long) jmx.getAttribute(bean, "BackgroundRackShareNow"),
          v -> v == share);
    }
    loseANodeAndRepairItsUnits();
    long crossRack = 0;
    for (DataNode dn : RepairClusterFixture.cluster.getDataNodes()) {
      CappedBackground caps = throttleOf(WideEcDataNodePlugin.running(dn.getXferPort()));
      TokenBucket rack = caps.rackShare();
      assertEquals(caps.crossRackBytes(), rack.takenBytes(), "every cross-rack background byte took the rack share");
      assertTrue(rack.takenBytes() <= rack.earnedBytes(), "never more than the share earned");
      crossRack += caps.crossRackBytes();
    }
    assertTrue(crossRack > 0, "the repairs sent background slices across racks");
  }

  /**
   * {@code wide-ec caps set} proves the cluster secret to each DataNode's slice port, and the caps it sets are in
   * force at once and shown by {@code caps show} (the DataNodes' /jmx pages); a cap a DataNode refuses changes
   * neither of its caps, and a tool without the secret cannot set any.
   */
  @Test
  @Order(4)
  void capsSetThroughTheCliAreInForceOnEveryDataNodeAndOnlyWithTheClusterSecret() throws Exception {
    Configuration conf = RepairClusterFixture.cluster.getConfiguration(0);
    long cap = 1 << 20;
    ToolRun set = ToolRun.of(conf, "caps", "set", "--node-bytes-per-second", "1m", "--json");
    assertEquals(0, set.exit(), set.out() + set.err());
    assertEquals(RepairClusterFixture.cluster.getDataNodes().size(), set.json().get("datanodes").size(), set.out());
    for (com.fasterxml.jackson.databind.JsonNode row : set.json().get("datanodes")) {
      assertEquals(cap, row.get("nodeCap").asLong(), row.toString());
      assertEquals(RACK_CAP, row.get("rackCap").asLong(), "the rack cap left as it was: " + row);
    }
    for (DataNode dn : RepairClusterFixture.cluster.getDataNodes()) {
      assertEquals(cap, throttleOf(WideEcDataNodePlugin.running(dn.getXferPort())).node().bytesPerSecond(),
          dn.getXferPort() + ": in force from the next slice on");
    }
    ToolRun show = ToolRun.of(conf, "caps", "show", "--json");
    assertEquals(0, show.exit(), show.out() + show.err());
    for (com.fasterxml.jackson.databind.JsonNode row : show.json().get("datanodes")) {
      assertEquals(cap, row.get("nodeCap").asLong(), row.toString());
      assertEquals(cap, row.get("nodeCapNow").asLong(), row.toString());
      assertEquals(RACK_CAP, row.get("rackCap").asLong(), row.toString());
    }

    DataNode one = RepairClusterFixture.cluster.getDataNodes().get(0);
    String addr = one.getDatanodeId().getXferAddr();
    ToolRun low = ToolRun.of(conf, "caps", "set", "--datanode", addr, "--node-bytes-per-second", "1",
        "--rack-bytes-per-second", "0", "--json");
    assertEquals(1, low.exit(), low.out() + low.err());
    assertTrue(low.json().get("datanodes").get(0).get("error").asText().contains("BackgroundNodeCap=1 bytes/s is below"),
        low.out());
    BackgroundTraffic b = WideEcDataNodePlugin.running(one.getXferPort()).background();
    assertEquals(cap, b.caps().nodeBytesPerSecond(), "neither cap changed");
    assertEquals(RACK_CAP, b.caps().rackBytesPerSecond(), "neither cap changed");

    Configuration withoutSecret = new Configuration(conf);
    withoutSecret.unset("wide-ec.transport.secret");
    ToolRun refused = ToolRun.of(withoutSecret, "caps", "set", "--node-bytes-per-second", "2m");
    assertEquals(3, refused.exit(), refused.out() + refused.err());
    assertTrue(refused.err().contains("wide-ec.transport.secret"), refused.err());
    assertEquals(cap, b.caps().nodeBytesPerSecond());
  }

  /** The busiest DataNode lost; every unit it held rebuilt by our worker, and every byte reads back. */
  private static void loseANodeAndRepairItsUnits() throws Exception {
    RepairClusterFixture.Before b = RepairClusterFixture.before();
    RepairClusterFixture.loseBusiestNode();
    RepairClusterFixture.assertEveryRebuiltUnitStoredByOurWorker(b);
    RepairClusterFixture.everyByteReadsBack();
  }

  private static ObjectName beanOf(DataNode dn) throws Exception {
    return new ObjectName("Hadoop:service=DataNode,name=" + JmxEndpointResolver.beanName(dn.getXferPort()));
  }

  private static CappedBackground throttleOf(WideEcDataNodePlugin p) {
    return p.background().throttle();
  }
}
