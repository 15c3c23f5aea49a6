package org.wideec.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.wideec.code.LinearCode;
import org.wideec.code.UnitRole;
import org.wideec.code.UnitSpan;
import org.wideec.placement.PlacementPlan;

/**
 * What repairs and reads cost under a placement (UniLRC Table 3; ECWide §3.5-3.6). A unit's repair cost is
 * the number of helpers its cheapest plan reads; its cross-rack cost is the number of other racks that must
 * send something, each rack sending one partial sum of its helpers (ECWide §4.1, inner-rack repair): the
 * fewer of the racks spanned by the cheapest plan and by a greedy choice of whole racks (own rack first,
 * then the fullest) that together can rebuild the unit.
 *
 * <ul>
 *   <li>ADRC / ARC: average repair cost over data units / all units;</li>
 *   <li>CDRC / CARC: the same for cross-rack cost; CARC is ECWide's C, the average cross-rack repair
 *       traffic in chunks that its MTTDL model uses;</li>
 *   <li>LBNR: load balance of a normal read, the most data units in one rack over the average per rack.</li>
 * </ul>
 */
public record PlacementCosts(PlacementPlan plan, int[] repairCost, int[] crossRackCost, double adrc, double cdrc,
    double arc, double carc, double lbnr) {

  public static PlacementCosts of(PlacementPlan plan) {
    LinearCode code = plan.code();
    int n = code.n();
    int[] cost = new int[n];
    int[] cross = new int[n];
    for (int u = 0; u < n; u++) {
      cost[u] = code.repairPlan(u).cost();
      cross[u] = Math.min(racksSpanned(plan, u, code.repairPlan(u).helpers()), greedyRacks(plan, u));
    }
    double dataCost = 0;
    double dataCross = 0;
    int data = 0;
    int[] dataPerRack = new int[plan.racks()];
    for (int u = 0; u < n; u++) {
      if (code.role(u) == UnitRole.DATA) {
        dataCost += cost[u];
        dataCross += cross[u];
        data++;
        dataPerRack[plan.rackOf(u)]++;
      }
    }
    double adrc = data == 0 ? Double.NaN : dataCost / data;
    double cdrc = data == 0 ? Double.NaN : dataCross / data;
    double lbnr = Double.NaN;
    if (data > 0) {
      int max = Arrays.stream(dataPerRack).max().orElse(0);
      lbnr = max / ((double) data / plan.racks());
    }
    return new PlacementCosts(plan, cost, cross, adrc, cdrc, Arrays.stream(cost).average().orElse(0),
        Arrays.stream(cross).average().orElse(0), lbnr);
  }

  /** Racks other than the lost unit's that hold some helper. */
  static int racksSpanned(PlacementPlan plan, int lost, int[] helpers) {
    boolean[] seen = new boolean[plan.racks()];
    int count = 0;
    for (int h : helpers) {
      int r = plan.rackOf(h);
      if (r != plan.rackOf(lost) && !seen[r]) {
        seen[r] = true;
        count++;
      }
    }
    return count;
  }

  /** Whole racks, own rack first then the fullest, until the unit can be rebuilt; other racks used. */
  static int greedyRacks(PlacementPlan plan, int lost) {
    LinearCode code = plan.code();
    UnitSpan span = new UnitSpan(code);
    int own = plan.rackOf(lost);
    for (int u : plan.units(own)) {
      if (u != lost) {
        span.add(u);
      }
    }
    if (span.canRebuild(lost)) {
      return 0;
    }
    List<Integer> others = new ArrayList<>();
    for (int r = 0; r < plan.racks(); r++) {
      if (r != own) {
        others.add(r);
      }
    }
    int[] size = plan.unitsPerRack();
    others.sort((a, b) -> size[b] != size[a] ? size[b] - size[a] : a - b);
    int used = 0;
    for (int r : others) {
      boolean useful = false;
      for (int u : plan.units(r)) {
        useful |= span.add(u);
      }
      if (useful) {
        used++;
      }
      if (span.canRebuild(lost)) {
        return used;
      }
    }
    return Integer.MAX_VALUE;
  }

  @Override
  public int[] repairCost() {
    return repairCost.clone();
  }

  @Override
  public int[] crossRackCost() {
    return crossRackCost.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PlacementCosts c && c.plan == plan;
  }

  @Override
  public int hashCode() {
    return plan.hashCode();
  }
}
