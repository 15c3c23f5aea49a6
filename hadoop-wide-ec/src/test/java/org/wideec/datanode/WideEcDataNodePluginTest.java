package org.wideec.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Arrays;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.test.GenericTestUtils.LogCapturer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.wideec.transport.TransportConf;

/**
 * The plugin's start never throws and never half-starts: a bad setting or an unbindable slice port gives one
 * error naming the key, nothing of ours keeps running, and the DataNode's reconstruction is never touched.
 */
class WideEcDataNodePluginTest {
  private static int nextPort = 41_000;
  private final WideEcDataNodePlugin plugin = new WideEcDataNodePlugin();
  private LogCapturer log;
  private int xferPort;

  @BeforeEach
  void capture() {
    log = LogCapturer.captureLogs(org.apache.log4j.Logger.getLogger("org.wideec"));
    xferPort = nextPort++;
  }

  @AfterEach
  void stop() {
    plugin.stop();
    log.stopCapturing();
  }

  private DataNode dataNode(String... kv) {
    Configuration conf = new Configuration(false);
    conf.setLong(WideEcDataNodePlugin.CHAIN_WARMUP_KEY, 0); // only the test of it runs loopback chains
    for (int i = 0; i < kv.length; i += 2) {
      conf.set(kv[i], kv[i + 1]);
    }
    DataNode dn = mock(DataNode.class);
    when(dn.getConf()).thenReturn(conf);
    when(dn.getXferPort()).thenReturn(xferPort);
    when(dn.getDisplayName()).thenReturn("dn-" + xferPort);
    return dn;
  }

  private long errorLines() {
    return Arrays.stream(log.getOutput().split("\n")).filter(l -> l.contains(" ERROR ")).count();
  }

  /** Disabled with exactly one error that contains every fragment; nothing of ours runs, HDFS's worker untouched. */
  private void disabledSaying(DataNode dn, String... fragments) {
    String why = plugin.disabledReason();
    assertNotNull(why, "the worker is disabled");
    for (String f : fragments) {
      assertTrue(why.contains(f), "'" + f + "' in: " + why);
    }
    assertEquals(1, errorLines(), log.getOutput());
    assertTrue(log.getOutput().contains(why), log.getOutput());
    assertSame(plugin, WideEcDataNodePlugin.running(xferPort), "tools can ask the DataNode why");
    assertNull(plugin.metrics());
    assertNull(plugin.transport());
    assertFalse(plugin.tookOverReconstruction());
    assertNull(DefaultMetricsSystem.instance().getSource("WideEcRepair-" + xferPort), "no metrics source left behind");
    verify(dn, never()).getErasureCodingWorker();
  }

  @Test
  void anUnknownRepairSchemeLeavesTheDataNodeStock() {
    DataNode dn = dataNode(TransportConf.SECRET, "0123456789abcdef-secret", RepairWorkerConf.SCHEME, "rack_agregated");
    plugin.start(dn);
    disabledSaying(dn, RepairWorkerConf.SCHEME, "'rack_agregated'", "conventional, pipelined, cyclic, weighted, rack_aggregated");
  }

  @Test
  void aMissingSecretLeavesTheDataNodeStock() {
    DataNode dn = dataNode();
    plugin.start(dn);
    disabledSaying(dn, TransportConf.SECRET, TransportConf.AUTH + "=none");
  }

  @Test
  void aMalformedTransportKeyLeavesTheDataNodeStock() {
    DataNode dn = dataNode(TransportConf.AUTH, "none", TransportConf.WINDOW, "four");
    plugin.start(dn);
    disabledSaying(dn, TransportConf.WINDOW, "'four'", "an integer");
  }

  @Test
  void aSlicePortThatCannotBeBoundLeavesTheDataNodeStockAndReleasesWhatHadStarted() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      DataNode dn = dataNode(TransportConf.AUTH, "none", TransportConf.BIND_HOST, "127.0.0.1", TransportConf.PORT,
          String.valueOf(port));
      plugin.start(dn);
      disabledSaying(dn, "127.0.0.1:" + port, TransportConf.PORT, TransportConf.BIND_HOST);
    }
  }

  @Test
  void aServiceThatIsNoDataNodeIsRefusedWithoutThrowing() {
    plugin.start("a NameNode");
    assertTrue(plugin.disabledReason().contains("dfs.datanode.plugins"), plugin.disabledReason());
    assertEquals(1, errorLines(), log.getOutput());
  }

  @Test
  void theWarmUpRunsLoopbackChainsThatRebuildTheLostUnitRight() throws Exception {
    DataNode dn = dataNode(TransportConf.AUTH, "none", TransportConf.BIND_HOST, "127.0.0.1",
        WideEcDataNodePlugin.CHAIN_WARMUP_KEY, "300");
    when(dn.getErasureCodingWorker()).thenReturn(null);
    plugin.start(dn);
    org.wideec.engine.ChainWarmup.Result r = plugin.chainWarmedUp(60_000);
    assertNotNull(r, "the warm-up ran its chains: " + log.getOutput());
    assertEquals(3, r.repairs(), "300 slices: three chains of four helpers and 32 slices each: " + r);
    assertTrue(r.rebuiltRight(), r.toString());
    assertNotNull(plugin.warmedUp(), "the planning warm-up ran first");
    assertEquals(0, errorLines(), log.getOutput());
  }

  @Test
  void aDataNodeWithoutTheExpectedInternalsKeepsStockReconstructionAndStillServesSlices() {
    DataNode dn = dataNode(TransportConf.AUTH, "none", TransportConf.BIND_HOST, "127.0.0.1");
    when(dn.getErasureCodingWorker()).thenReturn(null);
    plugin.start(dn);
    assertNull(plugin.disabledReason());
    assertFalse(plugin.tookOverReconstruction(), "HDFS's reconstructor stays in charge");
    assertTrue(plugin.transport().port() > 0, "the helper service runs: other DataNodes' repairs can use this one");
    assertNotNull(plugin.metrics());
    assertEquals(0, errorLines(), log.getOutput());
    assertEquals(1, log.getOutput().lines().filter(l -> l.contains(" WARN ") && l.contains("stock reconstructor")).count(),
        log.getOutput());
    plugin.stop();
    assertNull(WideEcDataNodePlugin.running(xferPort));
    assertNull(plugin.transport());
  }
}
