package org.wideec.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.minicluster.MiniClusters;

/**
 * The repair benchmark's full-node recovery over racks runs end to end on small units: every rebuilt unit matches its
 * replica's CRC32C (the sink fails the run otherwise), the figures it reports are consistent with its plan, and the
 * transports' cross-rack bytes through each rack gateway are exactly the plan's.
 * Nothing here is timed against anything.
 */
class FullNodeSpreadBenchTest {
  @TempDir
  Path dir;

  @Test
  void everyUnitOfTheBusiestNodeIsRebuiltAlongItsPlannedChainAndEachGatewayCarriesThePlannedBytes() throws Exception {
    RepairBench.Settings s = new RepairBench.Settings(1 << 20, 200L << 20, 10, List.of(64 << 10), 6, 1 << 20,
        200L << 20, false, false);
    Configuration conf = MiniClusters.withWideEcRepair(MiniClusters.withWideEcPlacement(new Configuration()));
    conf.setInt("wide-ec.transport.slice.bytes", 64 << 10);
    MiniDFSCluster cluster = MiniClusters.start(conf, dir.toFile(), FullNodeSpreadBench.RACKS,
        FullNodeSpreadBench.PER_RACK, 1 << 20);
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    try {
      Map<String, Object> r = new FullNodeSpreadBench(new PrintStream(text, true, StandardCharsets.UTF_8),
          new BenchProgress(new PrintStream(new ByteArrayOutputStream()), "test", FullNodeSpreadBench.steps()), s)
          .run(cluster, cluster.getFileSystem(), 64 << 10);
      int lost = ((Number) r.get("lostUnits")).intValue();
      assertTrue(lost >= 2, "the busiest of 24 DataNodes holds units of several of the 6 groups: " + r);
      assertEquals(1L << 20, ((Number) r.get("unitBytes")).longValue());
      double bound = ((Number) r.get("uplinkBoundSeconds")).doubleValue();
      assertEquals((double) ((Number) r.get("mustCrossRackBytes")).longValue() * 2 / (6 * (200.0 * (1 << 20) / 10)),
          bound, 1e-9, "must-cross bytes over 6 shared gateways, each byte counted at both");
      assertEquals(((Number) r.get("recoverySeconds")).doubleValue() / bound,
          ((Number) r.get("fullNodeOverUplinkBound")).doubleValue(), 1e-9);
      assertTrue(text.toString(StandardCharsets.UTF_8).contains("fullNodeOverUplinkBound"), text.toString());
      System.out.println(text.toString(StandardCharsets.UTF_8));
      assertTrue(!((Map<?, ?>) r.get("plannedRackLinkBytes")).isEmpty(), "the plan crosses racks: " + r);
      assertEquals(r.get("plannedRackLinkBytes"), r.get("measuredRackLinkBytes"), "the DataNodes' transports sent"
          + " across each rack gateway exactly the bytes of the plan's chains: " + text);
    } finally {
      cluster.shutdown();
    }
  }
}
