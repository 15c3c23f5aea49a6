package org.wideec.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.placement.StripedPlacement;

/**
 * The day-two benchmark's decommission runs end to end on units of one cell: each of the three ways moves every leaving unit
 * to its target with the leaving replica's CRC32C (the sinks and the copy's check fail the run otherwise), and the
 * ratios are those of the seconds it reports. Nothing here is timed against anything.
 */
class DecommissionBenchTest {
  @TempDir
  Path dir;

  @Test
  void aNodesUnitsAreMovedThreeWaysAndTheRatiosAreTheirTimes() throws Exception {
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(text, true, StandardCharsets.UTF_8);
    MiniDFSCluster cluster = RepairBench.start(new Configuration(), out, dir.toFile(), StripedPlacement.AUTO,
        FullNodeSpreadBench.RACKS, FullNodeSpreadBench.PER_RACK, 64 << 10, false, 1 << 20);
    try {
      Map<String, Object> r = new DecommissionBench(out, new BenchProgress(new PrintStream(new ByteArrayOutputStream()),
          "test", 3)).run(cluster, cluster.getFileSystem(), RepairBench.LRC, 12, 4, 3, 1 << 20, 64 << 10);
      assertEquals(3, ((Number) r.get("groups")).intValue(), text.toString(StandardCharsets.UTF_8));
      assertEquals(3L << 20, ((Number) r.get("bytes")).longValue(), "one whole data unit of each group");
      double ours = ((Number) r.get("oursSeconds")).doubleValue();
      assertTrue(ours > 0, r.toString());
      assertEquals(((Number) r.get("stockSeconds")).doubleValue() / ours,
          ((Number) r.get("decommissionStockOverOurs")).doubleValue(), 1e-9);
      assertEquals(((Number) r.get("globalSeconds")).doubleValue() / ours,
          ((Number) r.get("decommissionGlobalOverLocal")).doubleValue(), 1e-9);
    } finally {
      cluster.shutdown();
    }
  }
}
