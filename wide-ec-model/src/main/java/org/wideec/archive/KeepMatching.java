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

  /** The flow network's fixed vertices; the units follow, then the slots, then the replica nodes. */
  private static final int SOURCE = 0;
  private static final int SINK = 1;
  private static final int HUB = 2;
  private static final int FIRST_UNIT = 3;

  private KeepMatching() {}

  /** The placement with the fewest bytes moved, or null when the slots have fewer places than units. */
  static Result solve(List<Unit> units, List<Slot> slots) {
    int places = slots.stream().mapToInt(Slot::places).sum();
    if (places < units.size()) {
      return null;
    }
    Map<String, Integer> slotOfNode = slotOfNode(slots);
    int firstSlot = FIRST_UNIT + units.size();
    Map<String, Integer> nodeVertex = replicaNodeVertices(units, slotOfNode, firstSlot + slots.size());
    MinCostFlow flow = new MinCostFlow(firstSlot + slots.size() + nodeVertex.size());
    int[] moveEdge = new int[units.size()];
    Map<Integer, Map<String, Integer>> keepEdges = unitEdges(flow, units, nodeVertex, moveEdge);
    int[] hubEdge = slotEdges(flow, slots, firstSlot);
    nodeVertex.forEach((node, v) -> flow.edge(v, firstSlot + slotOfNode.get(node), 1, 0));
    MinCostFlow.Result r = flow.run(SOURCE, SINK, units.size());
    if (r.flow() < units.size()) {
      return null;
    }
    int[] slotOf = new int[units.size()];
    String[] kept = new String[units.size()];
    Arrays.fill(slotOf, -1);
    readKeptUnits(flow, keepEdges, slotOfNode, slotOf, kept);
    placeMovedUnits(flow, units, slots, moveEdge, hubEdge, slotOf);
    return new Result(r.cost(), slotOf, kept);
  }

  /** The slot whose rack each node is in. */
  private static Map<String, Integer> slotOfNode(List<Slot> slots) {
    Map<String, Integer> slotOfNode = new HashMap<>();
    for (int s = 0; s < slots.size(); s++) {
      for (String node : slots.get(s).nodes()) {
        slotOfNode.put(node, s);
      }
    }
    return slotOfNode;
  }

  /** A vertex, numbered from {@code next}, for each node that holds a replica and is in a slot's rack. */
  private static Map<String, Integer> replicaNodeVertices(List<Unit> units, Map<String, Integer> slotOfNode,
      int next) {
    Map<String, Integer> nodeVertex = new HashMap<>();
    for (Unit u : units) {
      for (String node : u.replicaNodes()) {
        if (slotOfNode.containsKey(node) && !nodeVertex.containsKey(node)) {
          nodeVertex.put(node, next++);
        }
      }
    }
    return nodeVertex;
  }

  /**
   * Each unit's edges: from the source, to the move hub at its block's length (recorded in {@code moveEdge}), and
   * free to each replica node; returns the replica edges of each unit by node.
   */
  private static Map<Integer, Map<String, Integer>> unitEdges(MinCostFlow flow, List<Unit> units,
      Map<String, Integer> nodeVertex, int[] moveEdge) {
    Map<Integer, Map<String, Integer>> keepEdges = new HashMap<>();
    for (int i = 0; i < units.size(); i++) {
      Unit u = units.get(i);
      flow.edge(SOURCE, FIRST_UNIT + i, 1, 0);
      moveEdge[i] = flow.edge(FIRST_UNIT + i, HUB, 1, u.length());
      Map<String, Integer> edges = new HashMap<>();
      for (String node : u.replicaNodes()) {
        Integer v = nodeVertex.get(node);
        if (v != null && !edges.containsKey(node)) {
          edges.put(node, flow.edge(FIRST_UNIT + i, v, 1, 0));
        }
      }
      keepEdges.put(i, edges);
    }
    return keepEdges;
  }

  /** Each slot's edges: from the move hub and to the sink, both with the slot's places; returns the hub edges. */
  private static int[] slotEdges(MinCostFlow flow, List<Slot> slots, int firstSlot) {
    int[] hubEdge = new int[slots.size()];
    for (int s = 0; s < slots.size(); s++) {
      hubEdge[s] = flow.edge(HUB, firstSlot + s, slots.get(s).places(), 0);
      flow.edge(firstSlot + s, SINK, slots.get(s).places(), 0);
    }
    return hubEdge;
  }

  /** The units the flow keeps on a replica node: that node, and its slot. */
  private static void readKeptUnits(MinCostFlow flow, Map<Integer, Map<String, Integer>> keepEdges,
      Map<String, Integer> slotOfNode, int[] slotOf, String[] kept) {
    for (int i = 0; i < slotOf.length; i++) {
      for (Map.Entry<String, Integer> e : keepEdges.get(i).entrySet()) {
        if (flow.flow(e.getValue()) > 0) {
          kept[i] = e.getKey();
          slotOf[i] = slotOfNode.get(e.getKey());
        }
      }
    }
  }

  /**
   * The slots of the units the flow moves through the hub: moved units cost their length wherever they go, so
   * prefer a slot whose rack holds a replica (an in-rack copy).
   */
  private static void placeMovedUnits(MinCostFlow flow, List<Unit> units, List<Slot> slots, int[] moveEdge,
      int[] hubEdge, int[] slotOf) {
    long[] hubLeft = new long[slots.size()];
    for (int s = 0; s < slots.size(); s++) {
      hubLeft[s] = flow.flow(hubEdge[s]);
    }
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
  }

  private static boolean holdsReplica(Slot slot, Unit unit) {
    return unit.replicaNodes().stream().anyMatch(slot.nodes()::contains);
  }
}
