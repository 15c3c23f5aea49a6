package org.wideec.analysis;

import java.util.Arrays;
import org.wideec.code.LinearCode;
import org.wideec.code.MinimumDistance;
import org.wideec.code.UnitRole;

/**
 * Placement-free cost and reliability facts of a code (UniLRC Table 3 without the cross-cluster terms):
 * per-unit repair cost (helpers read), ARC over all units (the papers' recovery locality r-bar), ADRC over
 * data units, redundancy and minimum distance.
 */
public record CodeMetrics(LinearCode code, int[] repairCost, double arc, Double adrc, double redundancy,
    MinimumDistance distance) {

  public static CodeMetrics of(LinearCode code) {
    int[] cost = new int[code.n()];
    double sum = 0;
    double dataSum = 0;
    int data = 0;
    for (int u = 0; u < code.n(); u++) {
      cost[u] = code.repairPlan(u).cost();
      sum += cost[u];
      if (code.role(u) == UnitRole.DATA) {
        dataSum += cost[u];
        data++;
      }
    }
    return new CodeMetrics(code, cost, sum / code.n(), data == 0 ? null : dataSum / data, code.redundancy(),
        MinimumDistance.of(code));
  }

  @Override
  public int[] repairCost() {
    return repairCost.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CodeMetrics m && m.code == code && Arrays.equals(m.repairCost, repairCost);
  }

  @Override
  public int hashCode() {
    return code.hashCode() * 31 + Arrays.hashCode(repairCost);
  }
}
