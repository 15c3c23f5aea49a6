package org.wideec.cluster;

import java.util.List;
import java.util.Map;

/**
 * The striped workloads' target ratios, from their results. Recovery compares stock RS-10-4 with Azure-LRC 12+2+2 when
 * both ran (else the widest stock policy with the widest Azure-LRC that ran: ratioBasis says which), by the time from
 * the NameNode dropping the lost replicas to every group whole (failure detection, the same for both, left out) and
 * by the bytes the rack uplinks carried meanwhile: of the warm node loss ({@code nodeLoss}), and of the cold one beside
 * it ({@code ...Cold}). A degraded read is a lost range's read time over a healthy range's read the same client made
 * beside it: while the node was down and still listed (the common case, before any repair), during its recovery, and
 * (ours) during a rack's.
 */
final class StripedRatios {
  /** Every key {@link #put} writes, in the order the bench's summary prints them. */
  static final List<String> KEYS = List.of("ratioBasis", "recoveryStockRs104OverLrc", "crossRackStockRs104OverLrc",
      "recoveryStockRs104OverLrcCold", "crossRackStockRs104OverLrcCold", "degradedReadOverNormal",
      "degradedReadStockOverNormal", "degradedReadOverNormalDuringRecovery",
      "degradedReadStockOverNormalDuringRecovery", "degradedReadOverNormalRackLoss");

  private StripedRatios() {}

  /** Puts the ratios of {@code workloads} (policy name to result) into {@code r}; null where a part is missing. */
  static void put(Map<String, Object> r, Map<String, Object> workloads) {
    Map<String, Object> stock = widest(workloads, true);
    Map<String, Object> lrc = widest(workloads, false);
    if (stock != null && lrc != null) {
      r.put("ratioBasis", stock.get("policy") + " over " + lrc.get("policy"));
      for (String[] loss : new String[][] {{"nodeLoss", ""}, {"nodeLossCold", "Cold"}}) {
        Map<String, Object> s = part(stock, loss[0]);
        Map<String, Object> l = part(lrc, loss[0]);
        r.put("recoveryStockRs104OverLrc" + loss[1], ratio(s.get("repairSeconds"), l.get("repairSeconds")));
        r.put("crossRackStockRs104OverLrc" + loss[1], ratio(s.get("crossRackBytes"), l.get("crossRackBytes")));
      }
    }
    if (lrc != null) {
      // The target is about one DataNode lost (its local group survives); a rack's loss is reported beside it.
      r.put("degradedReadOverNormal", ours(part(lrc, "readsWhileNodeDown")));
      r.put("degradedReadOverNormalDuringRecovery", ours(part(lrc, "readsDuringNodeRecovery")));
      r.put("degradedReadOverNormalRackLoss", ours(part(lrc, "rackLoss")));
      if (stock != null) {
        r.put("degradedReadStockOverNormal", stock(part(stock, "readsWhileNodeDown")));
        r.put("degradedReadStockOverNormalDuringRecovery", stock(part(stock, "readsDuringNodeRecovery")));
      }
    }
  }

  private static Double ours(Map<String, Object> reads) {
    return ratio(reads.get("degradedReadOursSeconds"), reads.get("normalReadSeconds"));
  }

  private static Double stock(Map<String, Object> reads) {
    return ratio(reads.get("degradedReadStockSeconds"), reads.get("normalReadStockSeconds"));
  }

  /** A workload's part by key, empty when it did not run (a skipped rack loss). */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> part(Map<String, Object> workload, String key) {
    Object v = workload.get(key);
    return v instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  /** The run of the preferred policy of its kind (RS-10-4, Azure-LRC 12+2+2), else the widest that ran. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> widest(Map<String, Object> workloads, boolean stock) {
    Map<String, Object> best = null;
    String preferred = stock ? "RS-10-4-1024k" : "AZURE-LRC-L2-12-4-1024k";
    for (Object v : workloads.values()) {
      Map<String, Object> w = (Map<String, Object>) v;
      if (!w.containsKey("policy") || (Boolean) w.get("stock") != stock
          || !stock && !w.get("policy").toString().startsWith("AZURE-LRC")) {
        continue;
      }
      if (w.get("policy").equals(preferred)) {
        return w;
      }
      best = w; // listed narrow to wide
    }
    return best;
  }

  /** a / b rounded to 3 places; null when either is not a number or b is 0. */
  static Double ratio(Object a, Object b) {
    if (!(a instanceof Number x) || !(b instanceof Number y) || y.doubleValue() == 0) {
      return null;
    }
    return Phase.round(x.doubleValue() / y.doubleValue());
  }
}
