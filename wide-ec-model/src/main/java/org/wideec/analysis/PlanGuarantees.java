package org.wideec.analysis;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.wideec.code.LinearCode;
import org.wideec.code.StockStripedReader;
import org.wideec.placement.PlacementPlan;
import org.wideec.placement.StockReadablePlacement;

/**
 * What a placement plan promises a group, judged on the real racks a group actually occupies, so a rebuilt unit
 * may leave its planned rack without the group losing anything the plan gave it: no rack holds more of its units
 * than the plan's fullest rack (the losses the code always survives, ECWide §3.4); the loss of any one rack is
 * decodable and, when the plan promises it, readable by HDFS's stock client (DESIGN.md §2); and no unit's repair
 * reaches more other racks than under the plan (its cheapest plan's helpers, local group first: ECWide §4.1's
 * cross-rack repair cost), so the locality the plan bought is kept.
 */
public final class PlanGuarantees {
  private final PlacementPlan plan;
  private final int cap;
  private final boolean stockReadable;
  private final int[] crossRackCost;

  private PlanGuarantees(PlacementPlan plan) {
    this.plan = plan;
    this.cap = plan.maxUnitsPerRack();
    LinearCode code = plan.code();
    this.stockReadable = code.isSystematic() && StockReadablePlacement.unreadableRacks(plan).isEmpty();
    String[] racks = new String[code.n()];
    for (int u = 0; u < racks.length; u++) {
      racks[u] = "plan rack " + plan.rackOf(u);
    }
    this.crossRackCost = IntStream.range(0, code.n()).map(u -> crossRackCost(code, racks, Set.of(), u)).toArray();
  }

  public static PlanGuarantees of(PlacementPlan plan) {
    return new PlanGuarantees(plan);
  }

  public PlacementPlan plan() {
    return plan;
  }

  /** Most units of the group one rack may hold. */
  public int cap() {
    return cap;
  }

  /** Other racks unit u's cheapest repair reaches under the plan. */
  public int plannedCrossRackCost(int unit) {
    return crossRackCost[unit];
  }

  /**
   * Other racks that hold a helper of unit u's cheapest repair plan, units known to be zero (data units past the
   * end of a short group) left out: they are never read.
   *
   * @param rackOf real rack of every unit; null for a zero unit
   */
  public static int crossRackCost(LinearCode code, String[] rackOf, Set<Integer> zeros, int unit) {
    Set<String> others = new HashSet<>();
    for (int h : code.repairPlan(unit).helpers()) {
      if (!zeros.contains(h) && rackOf[h] != null && !rackOf[h].equals(rackOf[unit])) {
        others.add(rackOf[h]);
      }
    }
    return others.size();
  }

  /**
   * What the group as placed breaks of the plan's rack guarantees (per-rack cap, every single-rack loss decodable
   * and, if promised, stock-readable), or null when it keeps them all.
   *
   * @param rackOf real rack of every unit; null for a zero unit (never lost)
   * @param zeros units known to be zero
   */
  public String rackFaultBroken(String[] rackOf, Set<Integer> zeros) {
    for (Map.Entry<String, int[]> e : byRack(rackOf).entrySet()) {
      String broken = broken(e.getKey(), e.getValue(), zeros);
      if (broken != null) {
        return broken;
      }
    }
    return null;
  }

  /**
   * What one rack of the group as placed breaks of the plan's rack guarantees, or null when it keeps them: for a
   * caller that moves one unit into that rack and must not be blamed for what other racks already break.
   *
   * @param rackOf real rack of every unit; null for a zero unit (never lost)
   * @param zeros units known to be zero
   */
  public String rackBroken(String rack, String[] rackOf, Set<Integer> zeros) {
    int[] units = byRack(rackOf).get(rack);
    return units == null ? null : broken(rack, units, zeros);
  }

  private String broken(String rack, int[] units, Set<Integer> zeros) {
    LinearCode code = plan.code();
    int realData = code.k() - (int) zeros.stream().filter(z -> z < code.k()).count();
    if (units.length > cap) {
      return rack + " would hold " + units.length + " units " + Arrays.toString(units) + ", more than the " + cap
          + " of the plan's fullest rack";
    }
    if (!code.isDecodable(units)) {
      return "the loss of " + rack + " (units " + Arrays.toString(units) + ") would not be decodable";
    }
    if (stockReadable && realData > 0 && !StockStripedReader.canReadEveryStripe(code, realData, units)) {
      return "a stock client could not read through the loss of " + rack + " (units " + Arrays.toString(units) + ")";
    }
    return null;
  }

  /**
   * True when no unit's repair reaches more other racks than under the plan or, where {@code reference} already
   * reaches more (a unit that had to leave a full rack), than under the reference placement.
   */
  public boolean keepsRepairLocality(String[] rackOf, String[] reference, Set<Integer> zeros) {
    LinearCode code = plan.code();
    for (int u = 0; u < code.n(); u++) {
      if (zeros.contains(u) || rackOf[u] == null) {
        continue;
      }
      int allowed = Math.max(crossRackCost[u], crossRackCost(code, reference, zeros, u));
      if (crossRackCost(code, rackOf, zeros, u) > allowed) {
        return false;
      }
    }
    return true;
  }

  private static Map<String, int[]> byRack(String[] rackOf) {
    Map<String, int[]> out = new TreeMap<>();
    for (int u = 0; u < rackOf.length; u++) {
      if (rackOf[u] != null) {
        int[] prev = out.getOrDefault(rackOf[u], new int[0]);
        int[] next = Arrays.copyOf(prev, prev.length + 1);
        next[prev.length] = u;
        out.put(rackOf[u], next);
      }
    }
    return out;
  }
}
