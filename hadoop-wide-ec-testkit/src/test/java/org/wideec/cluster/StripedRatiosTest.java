package org.wideec.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The striped workloads' ratio keys from canned results (the real run is the bench itself). */
class StripedRatiosTest {
  private static Map<String, Object> loss(double repairSeconds, long crossRackBytes) {
    return new HashMap<>(Map.of("repairSeconds", repairSeconds, "crossRackBytes", crossRackBytes));
  }

  private static Map<String, Object> reads(double normal, double normalStock, double stock, double ours) {
    return new HashMap<>(Map.of("normalReadSeconds", normal, "normalReadStockSeconds", normalStock,
        "degradedReadStockSeconds", stock, "degradedReadOursSeconds", ours));
  }

  /** A workload's result: its policy, whether stock, then its parts in the order the bench runs them. */
  private static Map<String, Object> workload(String policy, boolean stock, Object... parts) {
    Map<String, Object> w = new HashMap<>();
    w.put("policy", policy);
    w.put("stock", stock);
    List<String> keys =
        List.of("nodeLossCold", "nodeLoss", "rackLoss", "readsWhileNodeDown", "readsDuringNodeRecovery");
    for (int i = 0; i < parts.length; i++) {
      w.put(keys.get(i), parts[i]);
    }
    return w;
  }

  /** RS-6-3 and RS-10-4 against Azure-LRC 12+2+2 and UniLRC: the preferred pair is compared. */
  private static Map<String, Object> canned() {
    Map<String, Object> narrow = workload("RS-6-3-1024k", true, loss(1, 1), loss(1, 1));
    Map<String, Object> rs = workload("RS-10-4-1024k", true, loss(25.0, 600), loss(24.0, 500), reads(1, 1, 1, 1),
        reads(0.2, 0.25, 0.5, 9), reads(0.3, 0.4, 1.2, 9));
    Map<String, Object> lrc = workload("AZURE-LRC-L2-12-4-1024k", false, loss(16.0, 250), loss(6.0, 200),
        reads(0.5, 9, 9, 6), reads(0.2, 9, 9, 0.7), reads(0.4, 9, 9, 1.8));
    Map<String, Object> unilrc = workload("UNILRC-6-6-1024k", false, loss(1, 1), loss(1, 1));
    Map<String, Object> workloads = new LinkedHashMap<>();
    for (Map<String, Object> w : List.of(narrow, rs, lrc, unilrc)) {
      workloads.put((String) w.get("policy"), w);
    }
    return workloads;
  }

  @Test
  void recoveryComparesTheWarmLossAndReportsTheColdBeside() {
    Map<String, Object> r = new LinkedHashMap<>();
    StripedRatios.put(r, canned());
    assertEquals("RS-10-4-1024k over AZURE-LRC-L2-12-4-1024k", r.get("ratioBasis"));
    assertEquals(4.0, r.get("recoveryStockRs104OverLrc"));
    assertEquals(2.5, r.get("crossRackStockRs104OverLrc"));
    assertEquals(1.563, r.get("recoveryStockRs104OverLrcCold"));
    assertEquals(2.4, r.get("crossRackStockRs104OverLrcCold"));
  }

  @Test
  void degradedReadsCompareEachClientWithItsOwnHealthyRead() {
    Map<String, Object> r = new LinkedHashMap<>();
    StripedRatios.put(r, canned());
    assertEquals(3.5, r.get("degradedReadOverNormal")); // ours, node down and still listed
    assertEquals(2.0, r.get("degradedReadStockOverNormal")); // stock, the same moment
    assertEquals(4.5, r.get("degradedReadOverNormalDuringRecovery"));
    assertEquals(3.0, r.get("degradedReadStockOverNormalDuringRecovery"));
    assertEquals(12.0, r.get("degradedReadOverNormalRackLoss"));
    assertEquals(Set.copyOf(StripedRatios.KEYS), r.keySet());
  }

  @Test
  void aPartThatDidNotRunLeavesItsRatioNull() {
    Map<String, Object> workloads = canned();
    @SuppressWarnings("unchecked")
    Map<String, Object> lrc = (Map<String, Object>) workloads.get("AZURE-LRC-L2-12-4-1024k");
    lrc.remove("rackLoss"); // rackLossSkipped
    lrc.put("readsWhileNodeDown", new HashMap<>(Map.of("normalReadSeconds", 0.2))); // no sample before the drop
    Map<String, Object> r = new LinkedHashMap<>();
    StripedRatios.put(r, workloads);
    assertNull(r.get("degradedReadOverNormalRackLoss"));
    assertNull(r.get("degradedReadOverNormal"));
    assertEquals(4.5, r.get("degradedReadOverNormalDuringRecovery"));
    assertEquals(StripedRatios.KEYS.size(), r.size());
  }

  @Test
  void withoutAStockPolicyOnlyOurReadRatiosAreReported() {
    Map<String, Object> workloads = canned();
    workloads.remove("RS-6-3-1024k");
    workloads.remove("RS-10-4-1024k");
    Map<String, Object> r = new LinkedHashMap<>();
    StripedRatios.put(r, workloads);
    assertEquals(List.of("degradedReadOverNormal", "degradedReadOverNormalDuringRecovery",
        "degradedReadOverNormalRackLoss"), List.copyOf(r.keySet()));
  }

  @Test
  void theSummaryListsEveryRatioKey() {
    Map<String, Object> r = new LinkedHashMap<>();
    StripedRatios.put(r, canned());
    r.put("bytesLost", 0L);
    String summary = ClusterBench.summary(r);
    assertEquals(List.of("ratioBasis: RS-10-4-1024k over AZURE-LRC-L2-12-4-1024k", "recoveryStockRs104OverLrc: 4.0",
        "crossRackStockRs104OverLrc: 2.5", "recoveryStockRs104OverLrcCold: 1.563",
        "crossRackStockRs104OverLrcCold: 2.4",
        "degradedReadOverNormal: 3.5", "degradedReadStockOverNormal: 2.0", "degradedReadOverNormalDuringRecovery: 4.5",
        "degradedReadStockOverNormalDuringRecovery: 3.0", "degradedReadOverNormalRackLoss: 12.0", "bytesLost: 0"),
        summary.lines().toList());
  }
}
