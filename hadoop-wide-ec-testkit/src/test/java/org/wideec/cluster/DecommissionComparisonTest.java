package org.wideec.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.wideec.cli.Options;

/** The decommission comparison's settings and ratios, without a cluster (the real run is the bench itself). */
class DecommissionComparisonTest {
  private static Map<String, Object> way(double seconds, long unitBytes) {
    Map<String, Object> m = new HashMap<>();
    m.put("seconds", seconds);
    m.put("unitBytes", unitBytes);
    return m;
  }

  @Test
  void ratiosCompareTimePerByteTheLeavingNodeHeld() {
    Map<String, Object> r = new HashMap<>();
    r.put("stock", way(60, 1000)); // 0.06 s per byte
    r.put("global", way(15, 500)); // 0.03 s per byte
    r.put("ours", way(20, 2000)); // 0.01 s per byte
    DecommissionComparison.ratios(r);
    assertEquals(6.0, r.get("decommissionStockOverOurs"));
    assertEquals(3.0, r.get("decommissionGlobalOverLocal"));
  }

  @Test
  void aWayThatDidNotRunOrHeldNothingLeavesItsRatioNull() {
    Map<String, Object> r = new HashMap<>();
    r.put("stock", way(60, 1000));
    r.put("ours", way(20, 0));
    DecommissionComparison.ratios(r);
    assertNull(r.get("decommissionStockOverOurs"));
    assertNull(r.get("decommissionGlobalOverLocal"));
    assertEquals(Set.of("stock", "ours", "decommissionStockOverOurs", "decommissionGlobalOverLocal"), r.keySet());
  }

  @Test
  void theWidePoliciesNeedADataNodeBeyondTheWidestGroup() {
    Options none = new Options(new String[0], ClusterBench.VALUED, ClusterBench.SWITCHES);
    assertEquals(new DecommissionComparison.Settings(2L << 30, 64L << 20, "RS-10-4-1024k", "AZURE-LRC-L2-12-4-1024k"),
        ClusterBench.decommissionSettings(none, 17));
    assertEquals(new DecommissionComparison.Settings(2L << 30, 64L << 20, "RS-6-3-1024k", "AZURE-LRC-L2-6-4-1024k"),
        ClusterBench.decommissionSettings(none, 16));
    Options given = new Options(new String[] {"--decommission-data", "256m", "--file-size", "16m",
        "--decommission-policies", "RS-6-3-1024k, UNILRC-6-6-1024k"}, ClusterBench.VALUED, ClusterBench.SWITCHES);
    assertEquals(new DecommissionComparison.Settings(256L << 20, 16L << 20, "RS-6-3-1024k", "UNILRC-6-6-1024k"),
        ClusterBench.decommissionSettings(given, 24));
  }
}
