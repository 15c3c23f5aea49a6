package org.wideec.placement;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Whether a live topology can hold a placement plan (our {@code hdfs ec -verifyClusterSetup}, as Ceph checks a
 * profile against its CRUSH map): every plan rack needs a distinct live rack with at least as many live DataNodes
 * as the plan puts units there. Matching the largest demands to the largest racks decides it (a rack that fits a
 * demand fits every smaller one). A rack with a node to spare lets a rebuilt unit stay in its planned rack.
 */
public record ClusterFit(boolean holds, List<String> assignment, int racksWithoutSpare, String problem) {

  /** @param liveNodes live DataNodes per rack */
  public static ClusterFit of(PlacementPlan plan, Map<String, Integer> liveNodes) {
    int[] demand = plan.unitsPerRack();
    Integer[] order = new Integer[demand.length];
    for (int r = 0; r < order.length; r++) {
      order[r] = r;
    }
    java.util.Arrays.sort(order, Comparator.comparingInt((Integer r) -> demand[r]).reversed());
    List<Map.Entry<String, Integer>> racks = new ArrayList<>(liveNodes.entrySet());
    racks.sort(Map.Entry.<String, Integer>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
    int total = liveNodes.values().stream().mapToInt(Integer::intValue).sum();
    if (racks.size() < demand.length) {
      return new ClusterFit(false, List.of(), 0, "the plan spreads " + plan.code().n() + " units over " + demand.length
          + " racks " + java.util.Arrays.toString(demand) + " but only " + racks.size() + " racks have live DataNodes");
    }
    List<String> assignment = new ArrayList<>();
    int noSpare = 0;
    for (int i = 0; i < order.length; i++) {
      Map.Entry<String, Integer> rack = racks.get(i);
      int need = demand[order[i]];
      if (rack.getValue() < need) {
        return new ClusterFit(false, List.of(), 0, "plan rack " + order[i] + " needs " + need + " DataNodes in one rack "
            + "but the " + (i + 1) + ". largest rack (" + rack.getKey() + ") has " + rack.getValue() + " live ("
            + total + " live DataNodes in " + racks.size() + " racks)");
      }
      noSpare += rack.getValue() == need ? 1 : 0;
      assignment.add(rack.getKey() + "=" + need + "/" + rack.getValue());
    }
    return new ClusterFit(true, assignment, noSpare, null);
  }
}
