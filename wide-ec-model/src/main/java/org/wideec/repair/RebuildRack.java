package org.wideec.repair;

import java.util.Map;
import org.wideec.analysis.PlanGuarantees;
import org.wideec.repair.FullNodeRecoveryPlanner.GroupLoss;

/**
 * Whether a lost unit may be rebuilt in another rack than its planned one: only where a node there is free and the
 * group keeps every guarantee of its plan ({@link PlanGuarantees}: per-rack cap, rack-loss tolerance, stock
 * readability, repair locality), so spreading a node's recovery over the rack links never weakens a stripe.
 */
final class RebuildRack {
  private RebuildRack() {}

  /**
   * Why unit u of the group may not be rebuilt in {@code rack} instead of its planned rack ({@code planned}), or null
   * when it may.
   */
  static String whyNot(GroupLoss g, int u, String rack, Map<Integer, String> planned, PlanGuarantees guarantees) {
    if (rack.equals(planned.get(u))) {
      return null;
    }
    if (g.freeNodes().getOrDefault(rack, 0) <= 0) {
      return "no free node in " + rack;
    }
    String[] after = racksWith(g, u, rack);
    String broken = guarantees.rackFaultBroken(after, g.zeros());
    if (broken != null) {
      return broken;
    }
    if (!guarantees.keepsRepairLocality(after, racksWith(g, u, planned.get(u)), g.zeros())) {
      return "some unit's repair would reach more racks than under the plan";
    }
    return null;
  }

  /** The rack of every unit of the group with lost unit u rebuilt in {@code rack}; null for zero units. */
  private static String[] racksWith(GroupLoss g, int u, String rack) {
    String[] out = new String[g.plan().code().n()];
    g.liveRacks().forEach((unit, r) -> out[unit] = r);
    out[u] = rack;
    return out;
  }
}
