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
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.wideec.code.LinearCode;
import org.wideec.code.StockStripedReader;

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
   * Where a group's lost units are rebuilt ({@link #repairPlacement}), and which of them a rack takes beyond the
   * plan's per-rack cap because no rack with a free node had room below it.
   *
   * @param racks the real rack of every lost unit, by unit
   * @param beyondCap the units placed beyond the cap, each with why and what its rack's loss then costs
   */
  public record RepairPlacement(Map<Integer, String> racks, Map<Integer, String> beyondCap) {
    public RepairPlacement {
      racks = Map.copyOf(racks);
      beyondCap = Map.copyOf(beyondCap);
    }
  }

  /** {@link #repairPlacement}'s racks, by unit. */
  public static Map<Integer, String> repairRacks(PlacementPlan plan, Map<Integer, String> liveRackOfUnit, int[] lost,
      Map<String, Integer> freeNodes) {
    return repairPlacement(plan, liveRackOfUnit, lost, freeNodes).racks();
  }

  /**
   * Racks for a group's rebuilt units, by unit. Each goes back to the real rack that holds the survivors of its
   * plan rack; a plan rack with no survivor takes an empty rack (most free nodes first), so a repair restores
   * the plan itself, not only rack tolerance. A unit whose planned rack is full or has no free node left takes
   * another rack below the plan's cap (one whose loss a stock client reads through first). When every rack with a
   * free node is at the cap (a whole rack lost and the surviving racks too few for the plan), the unit takes a rack
   * beyond it ({@link #beyondCapRack}), as HDFS's own fallback would, but chosen by the code, and marked so. Throws
   * PlacementException only when no rack has a free node at all.
   *
   * @param liveRackOfUnit real rack of every surviving unit
   * @param lost the units to rebuild
   * @param freeNodes free (not excluded) nodes per real rack
   */
  public static RepairPlacement repairPlacement(PlacementPlan plan, Map<Integer, String> liveRackOfUnit, int[] lost,
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
    Map<Integer, String> beyond = new HashMap<>();
    for (int u : lost) {
      String rack = realOfPlanRack.get(plan.rackOf(u));
      if (rack == null) {
        rack = emptyRack(free, load, realOfPlanRack.values());
      }
      if (rack == null || free.getOrDefault(rack, 0) == 0 || load.getOrDefault(rack, 0) >= cap) {
        rack = readableRack(plan, unitsIn, u, free, cap);
      }
      if (rack == null) {
        rack = fullestBelowCap(load, free, cap);
      }
      if (rack == null) {
        BeyondCap b = beyondCapRack(plan, unitsIn, u, free, lost);
        rack = b.rack();
        beyond.put(u, b.why());
      }
      realOfPlanRack.putIfAbsent(plan.rackOf(u), rack);
      out.put(u, rack);
      load.merge(rack, 1, Integer::sum);
      free.merge(rack, -1, Integer::sum);
      unitsIn.computeIfAbsent(rack, x -> new ArrayList<>()).add(u);
    }
    return new RepairPlacement(out, beyond);
  }

  /** A rack chosen beyond the cap for a lost unit, and why, with what its loss would then cost. */
  private record BeyondCap(String rack, String why) {}

  /**
   * Every rack with a free node holds the plan's cap of the group's units already: the rack that takes unit u
   * beyond it. The loss of that rack would then erase its units plus u, so first a rack where that erasure set is
   * decodable (the other racks' units decode the stripe), then, for a systematic code, one where a stock client
   * reads through it too (DESIGN.md §2), then the one holding fewest of the group's units, the most free nodes, the
   * name. HDFS's stock fallback places such a unit anywhere a rack has room; this keeps every rack's loss survivable
   * where some choice does. Throws PlacementException, naming the unit and the group's lost units, when no rack has
   * a free node at all.
   */
  private static BeyondCap beyondCapRack(PlacementPlan plan, Map<String, List<Integer>> unitsIn, int u,
      Map<String, Integer> free, int[] lost) {
    LinearCode code = plan.code();
    String best = null;
    int[] bestScore = null;
    boolean bestDecodable = false;
    boolean bestReadable = false;
    int[] bestUnits = null;
    for (Map.Entry<String, Integer> e : new TreeMap<>(free).entrySet()) {
      if (e.getValue() <= 0) {
        continue;
      }
      int[] withU = IntStream.concat(unitsIn.getOrDefault(e.getKey(), List.of()).stream().mapToInt(Integer::intValue),
          IntStream.of(u)).sorted().toArray();
      boolean decodable = code.isDecodable(withU);
      boolean readable = decodable && code.isSystematic()
          && StockStripedReader.canReadEveryStripe(code, code.k(), withU);
      // Larger is better: decodable, stock-readable, fewest units, most free nodes (TreeMap order breaks ties).
      int[] score = {decodable ? 1 : 0, readable ? 1 : 0, -withU.length, e.getValue()};
      if (bestScore == null || Arrays.compare(score, bestScore) > 0) {
        best = e.getKey();
        bestScore = score;
        bestDecodable = decodable;
        bestReadable = readable;
        bestUnits = withU;
      }
    }
    if (best == null) {
      throw new PlacementException("no rack has a free node for lost unit " + u + " (the group lost units "
          + Arrays.toString(lost) + ")");
    }
    String onLoss = !bestDecodable ? "its loss would NOT be decodable (no rack with a free node keeps it so)"
        : !code.isSystematic() ? "its loss stays decodable"
        : bestReadable ? "its loss stays decodable and readable by a stock client"
        : "its loss stays decodable, though not by a stock client's parity choice";
    return new BeyondCap(best, "every rack with a free node already holds " + plan.maxUnitsPerRack() + " units of the"
        + " group (the plan's cap); " + best + " takes unit " + u + " and holds " + bestUnits.length + ", units "
        + Arrays.toString(bestUnits) + ": " + onLoss);
  }

  /**
   * Off the plan, the fullest rack with a free node and room below the cap whose loss, with unit u added, a stock
   * client still reads through (DESIGN.md §2); null when there is none.
   */
  private static String readableRack(PlacementPlan plan, Map<String, List<Integer>> unitsIn, int u,
      Map<String, Integer> free, int cap) {
    String best = null;
    int bestLoad = -1;
    for (Map.Entry<String, Integer> e : new TreeMap<>(free).entrySet()) {
      List<Integer> units = unitsIn.getOrDefault(e.getKey(), List.of());
      if (e.getValue() == 0 || units.size() >= cap || units.size() <= bestLoad) {
        continue;
      }
      int[] withU = IntStream.concat(units.stream().mapToInt(Integer::intValue), IntStream.of(u)).toArray();
      if (plan.code().isDecodable(withU) && (!plan.code().isSystematic()
          || StockStripedReader.canReadEveryStripe(plan.code(), plan.code().k(), withU))) {
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
    String best = fullestBelowCap(groupUnits, freeNodes, cap);
    if (best == null) {
      throw new PlacementException("every rack with a free node already holds " + cap + " units of the group");
    }
    return best;
  }

  /** {@link #repairRack}'s choice, or null when every rack with a free node holds {@code cap} units already. */
  private static String fullestBelowCap(Map<String, Integer> groupUnits, Map<String, Integer> freeNodes, int cap) {
    String best = null;
    for (Map.Entry<String, Integer> e : freeNodes.entrySet()) {
      int load = groupUnits.getOrDefault(e.getKey(), 0);
      if (e.getValue() > 0 && load < cap && (best == null || load > groupUnits.getOrDefault(best, 0)
          || (load == groupUnits.getOrDefault(best, 0) && e.getKey().compareTo(best) < 0))) {
        best = e.getKey();
      }
    }
    return best;
  }
}
