package org.wideec.placement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Maps a plan onto real racks: each plan rack to a distinct real rack with enough free nodes (largest
 * plan racks first, real racks in random order so load spreads); and, for a repair, the rack that should
 * take a rebuilt unit. Pure; the HDFS policy supplies the free-node counts.
 */
public final class RackAssignment {
  private RackAssignment() {}

  /** Real rack for every plan rack, or PlacementException naming the plan rack that found no room. */
  public static Map<Integer, String> assign(PlacementPlan plan, Map<String, Integer> freeNodes, Random random) {
    List<String> racks = new ArrayList<>(freeNodes.keySet());
    Collections.sort(racks);
    Collections.shuffle(racks, random);
    int[] need = plan.unitsPerRack();
    Integer[] order = new Integer[need.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> need[b] - need[a]);
    Map<Integer, String> real = new HashMap<>();
    Set<String> used = new HashSet<>();
    for (int planRack : order) {
      String pick = null;
      for (String r : racks) {
        if (!used.contains(r) && freeNodes.get(r) >= need[planRack]) {
          pick = r;
          break;
        }
      }
      if (pick == null) {
        throw new PlacementException("no rack with " + need[planRack] + " free nodes left for plan rack " + planRack
            + " of " + plan + " (" + freeNodes.size() + " racks with free nodes)");
      }
      used.add(pick);
      real.put(planRack, pick);
    }
    return real;
  }

  /**
   * Racks for a group's rebuilt units, by unit. Each goes back to the real rack that holds the survivors of its
   * plan rack; a plan rack with no survivor takes an empty rack (most free nodes first), so a repair restores
   * the plan itself, not only rack tolerance. A unit whose planned rack is full or has no free node left takes
   * {@link #repairRack}'s choice. Throws PlacementException when no rack can take a unit.
   *
   * @param liveRackOfUnit real rack of every surviving unit
   * @param lost the units to rebuild
   * @param freeNodes free (not excluded) nodes per real rack
   */
  public static Map<Integer, String> repairRacks(PlacementPlan plan, Map<Integer, String> liveRackOfUnit, int[] lost,
      Map<String, Integer> freeNodes) {
    Map<String, Integer> load = new HashMap<>();
    Map<Integer, Map<String, Integer>> votes = new HashMap<>();
    for (Map.Entry<Integer, String> e : liveRackOfUnit.entrySet()) {
      load.merge(e.getValue(), 1, Integer::sum);
      votes.computeIfAbsent(plan.rackOf(e.getKey()), r -> new HashMap<>()).merge(e.getValue(), 1, Integer::sum);
    }
    // A plan rack lives where most of its survivors are (all of them, unless an earlier fallback split it).
    Map<Integer, String> realOfPlanRack = new HashMap<>();
    votes.forEach((planRack, counts) -> realOfPlanRack.put(planRack, counts.entrySet().stream()
        .max(Map.Entry.<String, Integer>comparingByValue().thenComparing(Map.Entry.comparingByKey(Comparator.reverseOrder())))
        .orElseThrow().getKey()));
    Map<String, Integer> free = new HashMap<>(freeNodes);
    int cap = plan.maxUnitsPerRack();
    Map<String, List<Integer>> unitsIn = new HashMap<>();
    liveRackOfUnit.forEach((u, r) -> unitsIn.computeIfAbsent(r, x -> new ArrayList<>()).add(u));
    Map<Integer, String> out = new HashMap<>();
    for (int u : lost) {
      String rack = realOfPlanRack.get(plan.rackOf(u));
      if (rack == null) {
        rack = emptyRack(free, load, realOfPlanRack.values());
      }
      if (rack == null || free.getOrDefault(rack, 0) == 0 || load.getOrDefault(rack, 0) >= cap) {
        rack = readableRack(plan, unitsIn, u, free, cap);
      }
      if (rack == null) {
        rack = repairRack(load, free, cap);
      }
      realOfPlanRack.putIfAbsent(plan.rackOf(u), rack);
      out.put(u, rack);
      load.merge(rack, 1, Integer::sum);
      free.merge(rack, -1, Integer::sum);
      unitsIn.computeIfAbsent(rack, x -> new ArrayList<>()).add(u);
    }
    return out;
  }

  /**
   * Off the plan, the fullest rack with a free node and room below the cap whose loss, with unit u added, a stock
   * client still reads through (DESIGN.md §2); null when there is none.
   */
  private static String readableRack(PlacementPlan plan, Map<String, List<Integer>> unitsIn, int u,
      Map<String, Integer> free, int cap) {
    String best = null;
    int bestLoad = -1;
    for (Map.Entry<String, Integer> e : new java.util.TreeMap<>(free).entrySet()) {
      List<Integer> units = unitsIn.getOrDefault(e.getKey(), List.of());
      if (e.getValue() == 0 || units.size() >= cap || units.size() <= bestLoad) {
        continue;
      }
      int[] withU = java.util.stream.IntStream.concat(units.stream().mapToInt(Integer::intValue),
          java.util.stream.IntStream.of(u)).toArray();
      if (plan.code().isDecodable(withU) && (!plan.code().isSystematic()
          || org.wideec.code.StockStripedReader.canReadEveryStripe(plan.code(), plan.code().k(), withU))) {
        best = e.getKey();
        bestLoad = units.size();
      }
    }
    return best;
  }

  /** A rack holding none of the group's units and no other plan rack, with the most free nodes. */
  private static String emptyRack(Map<String, Integer> free, Map<String, Integer> load, Collection<String> taken) {
    String best = null;
    for (Map.Entry<String, Integer> e : free.entrySet()) {
      String r = e.getKey();
      if (e.getValue() > 0 && load.getOrDefault(r, 0) == 0 && !taken.contains(r)
          && (best == null || e.getValue() > free.get(best) || (e.getValue().equals(free.get(best)) && r.compareTo(best) < 0))) {
        best = r;
      }
    }
    return best;
  }

  /**
   * The rack for one rebuilt unit when the group's unit indexes are unknown: among racks with a free node and
   * fewer than {@code cap} units of the group, the fullest (for a full group that lost one unit, the rack that
   * lost it), so no rack exceeds what the code tolerates.
   */
  public static String repairRack(Map<String, Integer> groupUnits, Map<String, Integer> freeNodes, int cap) {
    String best = null;
    for (Map.Entry<String, Integer> e : freeNodes.entrySet()) {
      int load = groupUnits.getOrDefault(e.getKey(), 0);
      if (e.getValue() > 0 && load < cap && (best == null || load > groupUnits.getOrDefault(best, 0)
          || (load == groupUnits.getOrDefault(best, 0) && e.getKey().compareTo(best) < 0))) {
        best = e.getKey();
      }
    }
    if (best == null) {
      throw new PlacementException("every rack with a free node already holds " + cap + " units of the group");
    }
    return best;
  }
}
