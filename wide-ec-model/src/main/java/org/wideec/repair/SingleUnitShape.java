package org.wideec.repair;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.wideec.code.LinearCode;
import org.wideec.repair.FullNodeRecoveryPlan.Transfer;
import org.wideec.repair.FullNodeRecoveryPlanner.GroupLoss;
import org.wideec.topology.Site;

/**
 * One lost unit's repair alone, as the DataNode worker runs it ({@link SingleUnitRepairPlanner}, the requestor in the
 * rack the unit is rebuilt in): what crosses racks and what it reads from helpers (each helper's unit once, zero units
 * never). Also the other orders in which a rack-aggregated chain may visit the same racks; {@link JointShape} is the
 * same for several lost units decoded together.
 */
record SingleUnitShape(List<Transfer> transfers, long readBytes) {

  /** The worker's repair of unit u of the group alone with its requestor in {@code rack}, under {@code scheme}. */
  static SingleUnitShape of(RepairScheme scheme, GroupLoss g, int u, String rack) {
    LinearCode code = g.plan().code();
    Map<Integer, UnitLocation> available = survivors(g);
    for (int z : g.zeros()) {
      available.put(z, UnitLocation.zero(z, rack));
    }
    // The worker's order: zero units first (free), then unit order (StreamPlan).
    Comparator<Integer> preference = Comparator.comparing((Integer x) -> !g.zeros().contains(x))
        .thenComparing(Comparator.naturalOrder());
    RepairScheme planned = scheme == RepairScheme.CYCLIC ? RepairScheme.PIPELINED : scheme;
    RepairGraph chain = SingleUnitRepairPlanner.plan(planned, code, u, available, "requestor", rack, LinkWeights.UNIFORM,
        preference);
    List<RepairGraph> graphs = scheme == RepairScheme.CYCLIC ? SingleUnitRepairPlanner.cyclic(chain) : List.of(chain);
    List<Transfer> out = new ArrayList<>();
    long read = 0;
    for (RepairGraph graph : graphs) {
      long bytes = g.unitBytes() / graphs.size();
      List<RepairStep> steps = graph.steps();
      for (RepairStep s : steps) {
        if (g.zeros().contains(s.helper().unit())) {
          continue;
        }
        read += bytes;
        // A zero unit is never a step: whatever feeds it goes straight to where it would send (StreamPlan).
        int next = s.next();
        while (next != RepairStep.REQUESTOR && g.zeros().contains(steps.get(next).helper().unit())) {
          next = steps.get(next).next();
        }
        String to = next == RepairStep.REQUESTOR ? rack : steps.get(next).helper().rack();
        if (!to.equals(s.helper().rack())) {
          out.add(new Transfer(s.helper().rack(), to, bytes));
        }
      }
    }
    return new SingleUnitShape(out, read);
  }

  /** Where each surviving unit of the group is, as a helper the repair planners read (a node per unit). */
  static Map<Integer, UnitLocation> survivors(GroupLoss g) {
    Map<Integer, UnitLocation> out = new HashMap<>();
    g.liveRacks().forEach((u, rack) -> out.put(u, new UnitLocation(u, new Site("unit " + u, rack))));
    return out;
  }

  /**
   * The racks a rack-aggregated chain into {@code rack} visits, in order, when this repair is one (each rack hands on
   * one partial sum to the next, the last to {@code rack}, no rack twice; ECWide §4.1); empty when it is not.
   */
  List<String> chainInto(String rack, RepairScheme scheme) {
    List<String> path = new ArrayList<>();
    boolean chain = scheme == RepairScheme.RACK_AGGREGATED;
    for (int i = 0; i < transfers.size() && chain; i++) {
      Transfer t = transfers.get(i);
      String next = i + 1 < transfers.size() ? transfers.get(i + 1).fromRack() : rack;
      chain = t.toRack().equals(next) && !path.contains(t.fromRack());
      path.add(t.fromRack());
    }
    return chain ? path : List.of();
  }

  /** What crosses racks when the chain into {@code rack} visits its racks in {@code order}: one unit per hop. */
  static List<Transfer> along(List<String> order, String rack, long unitBytes) {
    List<Transfer> t = new ArrayList<>();
    for (int i = 0; i < order.size(); i++) {
      t.add(new Transfer(order.get(i), i + 1 < order.size() ? order.get(i + 1) : rack, unitBytes));
    }
    return t;
  }

  /** Every order of the racks (a handful: a chain visits at most every other rack of its group once). */
  static List<List<String>> orders(List<String> racks) {
    if (racks.size() <= 1) {
      return List.of(List.copyOf(racks));
    }
    List<List<String>> out = new ArrayList<>();
    for (String first : racks) {
      List<String> rest = new ArrayList<>(racks);
      rest.remove(first);
      for (List<String> tail : orders(rest)) {
        List<String> o = new ArrayList<>();
        o.add(first);
        o.addAll(tail);
        out.add(o);
      }
    }
    return out;
  }
}
