package org.wideec.placement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
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
   * The rack for one rebuilt unit: among racks with a free node and fewer than {@code cap} units of the
   * group, the fullest (the rack that lost the unit, when one was lost), so the plan is restored and no
   * rack exceeds what the code tolerates.
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
