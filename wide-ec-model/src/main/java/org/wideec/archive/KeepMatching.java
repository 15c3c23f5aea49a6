package org.wideec.archive;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which data units stay where a replica already is, when each must land in one of a few racks (slots) with a
 * fixed number of places: a unit kept on a node that holds its replica moves nothing, any other unit moves its
 * whole block; one unit per node. As a flow: source -> unit -> (a replica node in a slot's rack, cost 0 | the move
 * hub, cost the block's length) -> slot (its places) -> sink. A minimum-cost flow that places every unit is a
 * placement with the fewest bytes moved (exact: the flow's integral optimum is the assignment's).
 */
final class KeepMatching {
  /** A data unit: its block's length and the nodes holding live replicas. */
  record Unit(int unit, long length, List<String> replicaNodes) {}

  /** A rack that takes {@code places} of the units; its nodes hold one unit each. */
  record Slot(String rack, int places, List<String> nodes) {}

  /**
   * @param slotOf the slot (index into the slots) of each unit, parallel to the units
   * @param keptNode the node a unit stays on, or null when it moves
   */
  record Result(long bytesMoved, int[] slotOf, String[] keptNode) {}

  private KeepMatching() {}

  /** The placement with the fewest bytes moved, or null when the slots have fewer places than units. */
  static Result solve(List<Unit> units, List<Slot> slots) {
    int places = slots.stream().mapToInt(Slot::places).sum();
    if (places < units.size()) {
      return null;
    }
    Map<String, Integer> slotOfNode = new HashMap<>();
    for (int s = 0; s < slots.size(); s++) {
      for (String node : slots.get(s).nodes()) {
        slotOfNode.put(node, s);
      }
    }
    Map<String, Integer> nodeVertex = new HashMap<>();
    int source = 0;
    int sink = 1;
    int hub = 2;
    int firstUnit = 3;
    int firstSlot = firstUnit + units.size();
    int next = firstSlot + slots.size();
    for (Unit u : units) {
      for (String node : u.replicaNodes()) {
        if (slotOfNode.containsKey(node) && !nodeVertex.containsKey(node)) {
          nodeVertex.put(node, next++);
        }
      }
    }
    MinCostFlow flow = new MinCostFlow(next);
    int[] moveEdge = new int[units.size()];
    Map<Integer, Map<String, Integer>> keepEdges = new HashMap<>();
    for (int i = 0; i < units.size(); i++) {
      Unit u = units.get(i);
      flow.edge(source, firstUnit + i, 1, 0);
      moveEdge[i] = flow.edge(firstUnit + i, hub, 1, u.length());
      Map<String, Integer> edges = new HashMap<>();
      for (String node : u.replicaNodes()) {
        Integer v = nodeVertex.get(node);
        if (v != null && !edges.containsKey(node)) {
          edges.put(node, flow.edge(firstUnit + i, v, 1, 0));
        }
      }
      keepEdges.put(i, edges);
    }
    int[] hubEdge = new int[slots.size()];
    for (int s = 0; s < slots.size(); s++) {
      hubEdge[s] = flow.edge(hub, firstSlot + s, slots.get(s).places(), 0);
      flow.edge(firstSlot + s, sink, slots.get(s).places(), 0);
    }
    nodeVertex.forEach((node, v) -> flow.edge(v, firstSlot + slotOfNode.get(node), 1, 0));
    MinCostFlow.Result r = flow.run(source, sink, units.size());
    if (r.flow() < units.size()) {
      return null;
    }
    int[] slotOf = new int[units.size()];
    String[] kept = new String[units.size()];
    long[] hubLeft = new long[slots.size()];
    for (int s = 0; s < slots.size(); s++) {
      hubLeft[s] = flow.flow(hubEdge[s]);
    }
    Arrays.fill(slotOf, -1);
    for (int i = 0; i < units.size(); i++) {
      for (Map.Entry<String, Integer> e : keepEdges.get(i).entrySet()) {
        if (flow.flow(e.getValue()) > 0) {
          kept[i] = e.getKey();
          slotOf[i] = slotOfNode.get(e.getKey());
        }
      }
    }
    // Moved units cost their length wherever they go; prefer a slot whose rack holds a replica (an in-rack copy).
    for (int pass = 0; pass < 2; pass++) {
      for (int i = 0; i < units.size(); i++) {
        if (flow.flow(moveEdge[i]) == 0 || slotOf[i] >= 0) {
          continue;
        }
        for (int s = 0; s < slots.size() && slotOf[i] < 0; s++) {
          if (hubLeft[s] > 0 && (pass == 1 || holdsReplica(slots.get(s), units.get(i)))) {
            slotOf[i] = s;
            hubLeft[s]--;
          }
        }
      }
    }
    return new Result(r.cost(), slotOf, kept);
  }

  private static boolean holdsReplica(Slot slot, Unit unit) {
    return unit.replicaNodes().stream().anyMatch(slot.nodes()::contains);
  }
}
