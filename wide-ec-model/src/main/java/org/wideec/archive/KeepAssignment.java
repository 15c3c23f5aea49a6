package org.wideec.archive;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.wideec.code.LinearCode;
import org.wideec.code.LocalGroup;
import org.wideec.topology.Topology;

/**
 * Which real rack realises each rack of a stripe's placement plan, and which replica each data block keeps, with
 * the fewest bytes moved. Two exact steps, alternated while they improve:
 * <ol>
 *   <li><b>Relabel</b>: with each unit's plan rack fixed, choose an injective map of plan racks to real racks.
 *       The cost of putting plan rack P in real rack R is the fewest bytes P's data units move to land on distinct
 *       nodes of R ({@link KeepMatching}), infinite when R has fewer live nodes than P stores units; the cheapest
 *       map is a minimum-cost assignment (plan racks x real racks), solved exactly as a flow.</li>
 *   <li><b>Reslot</b>: with the real racks fixed, data units with the same local groups are interchangeable (the
 *       placement rules count a group's units per rack, they do not name them), so each such class is placed anew
 *       over its own racks, keeping each rack's count: again a {@link KeepMatching}, exact for those racks.</li>
 * </ol>
 * Both steps never raise the cost, so the alternation ends (bytes are whole numbers). It runs from two starts: the
 * placement planner's units, and racks chosen as if each plan rack could take any unit of its class. The result is
 * never worse than the exact optimum of step 1 alone ({@link Result#relabelOptimum}), and given its real racks it
 * is optimal. Choosing racks and slots jointly is a set-packing problem this does not solve exactly; on small
 * instances it reaches the brute-force joint optimum in about 94% of cases (KeepAssignmentTest). Step 2 keeps every
 * rack's units of each class, so every rule of the placement holds; the rack-loss check confirms it.
 *
 * <p>Two options make it cost what a chain archival sends across racks rather than the bytes moved alone:
 * <ul>
 *   <li>a {@link Delivery}: the stripe has a core rack (EAR: the rack holding replicas of its members), where the
 *       chain computes every parity, so each stored parity costs its bytes unless its plan rack is realised in the core
 *       rack. Without it every parity rack looked alike, and the parities landed outside the core while its places
 *       went to data that had replicas elsewhere too;</li>
 *   <li>{@code blocksFree}: the stripe's blocks may take any of its data units (the manifest names each unit's block,
 *       so nothing reads a stripe in file order). Then all data units are one class in step 2, and the result
 *       keeps the placement's units and gives each data unit the block that lands there ({@link Result#blockOf}):
 *       three blocks whose second replicas share a rack fill that rack's three places of one local group, where in
 *       file order they fell into two groups and one of them moved.</li>
 * </ul>
 */
final class KeepAssignment {
  private static final int MAX_ROUNDS = 64;

  /**
   * @param rackOf plan rack of every unit (a permutation of the base plan within interchangeable data units)
   * @param realRack real rack of every plan rack that stores a unit
   * @param keptNode per unit, the node whose replica a data unit keeps; null for a moved, virtual or parity unit
   * @param relabelOptimum the fewest bytes moved with the base plan's unit-to-rack map (step 1 alone)
   */
  record Result(int[] rackOf, Map<Integer, String> realRack, String[] keptNode, long bytesMoved, long relabelOptimum,
      int[] blockOf) {}

  /**
   * Each stored parity costs {@code parityBytes} unless it lands in {@code coreRack}, where the chain computes it.
   */
  record Delivery(String coreRack, long parityBytes) {}

  private final LinearCode code;
  private final boolean[] stored;
  private final Map<Integer, KeepMatching.Unit> data;
  private final Topology topology;
  private final String stripe;
  private final Delivery delivery;
  private final boolean blocksFree;
  /** The placement planner's units (blocksFree: the structure every result keeps). */
  private int[] base;

  /**
   * @param stored which units are stored (not virtual)
   * @param data the stored data units, by unit
   * @param stripe how errors name the stripe
   */
  KeepAssignment(LinearCode code, boolean[] stored, Map<Integer, KeepMatching.Unit> data, Topology topology,
      String stripe) {
    this(code, stored, data, topology, stripe, null, false);
  }

  /**
   * @param delivery what a parity outside the core rack costs; null: only the bytes moved count
   * @param blocksFree whether the blocks may take any data unit (see the class comment)
   */
  KeepAssignment(LinearCode code, boolean[] stored, Map<Integer, KeepMatching.Unit> data, Topology topology,
      String stripe, Delivery delivery, boolean blocksFree) {
    this.code = code;
    this.stored = stored;
    this.data = data;
    this.topology = topology;
    this.stripe = stripe;
    this.delivery = delivery;
    this.blocksFree = blocksFree;
  }

  Result assign(int[] baseRackOf) {
    base = baseRackOf.clone();
    Relabeling first = relabel(baseRackOf, false);
    Descent best = descend(baseRackOf, first);
    // A second start: racks chosen as if each plan rack could take any unit of its class, then the units
    // placed for those racks. The alternation is a local search; two starts find the joint optimum more often.
    int[] pooled = reslot(baseRackOf, relabel(baseRackOf, true).realRack);
    if (pooled != null && rackTolerant(pooled)) {
      Descent other = descend(pooled, relabel(pooled, false));
      best = other.relabeling.cost < best.relabeling.cost ? other : best;
    }
    // Per plan rack, the blocks landing there (by their unit in best.rackOf) take the placement's data units there.
    String[] kept = new String[code.n()];
    int[] blockOf = java.util.stream.IntStream.range(0, code.n()).toArray();
    long moved = 0;
    for (Map.Entry<Integer, String> e : best.relabeling.realRack.entrySet()) {
      List<Integer> blocks = dataIn(best.rackOf, e.getKey());
      List<Integer> units = blocksFree ? dataIn(base, e.getKey()) : blocks;
      KeepMatching.Result r = KeepMatching.solve(unitsOf(blocks), List.of(slot(e.getValue(), blocks.size())));
      for (int i = 0; i < blocks.size(); i++) {
        kept[units.get(i)] = r.keptNode()[i];
        blockOf[units.get(i)] = blocks.get(i);
      }
      moved += r.bytesMoved();
    }
    return new Result(blocksFree ? base : best.rackOf, best.relabeling.realRack, kept, moved, first.cost, blockOf);
  }

  private record Descent(int[] rackOf, Relabeling relabeling) {}

  /** Alternates reslotting and relabelling from a start while the cost falls. */
  private Descent descend(int[] start, Relabeling startLabels) {
    int[] rackOf = start;
    Relabeling best = startLabels;
    for (int round = 0; round < MAX_ROUNDS; round++) {
      int[] reslotted = reslot(rackOf, best.realRack);
      if (reslotted == null || !rackTolerant(reslotted)) {
        break;
      }
      Relabeling again = relabel(reslotted, false);
      if (again.cost >= best.cost) {
        break;
      }
      rackOf = reslotted;
      best = again;
    }
    return new Descent(rackOf, best);
  }

  private record Relabeling(Map<Integer, String> realRack, long cost) {}

  /**
   * Step 1: the cheapest injective map of plan racks to real racks for a fixed unit-to-plan-rack map. With
   * {@code pooled}, a plan rack holding one class of data units is costed as if it could take any units of its
   * class (the bytes it would still move after keeping the class's best replicas in the rack): a start for
   * the search, not a cost.
   */
  private Relabeling relabel(int[] rackOf, boolean pooled) {
    List<Integer> planRacks = new ArrayList<>(new TreeSet<>(storedPlanRacks(rackOf)));
    int[] need = new int[planRacks.size()];
    for (int i = 0; i < need.length; i++) {
      need[i] = storedIn(rackOf, planRacks.get(i));
    }
    checkRoom(need);
    List<String> racks = topology.racks();
    // A plan rack costs all its bytes in any rack without one of its replicas: those edges go through one hub per
    // demand (a rack serves a hub when it has the nodes), so a wide flat plan needs no plan racks x racks edges.
    List<Integer> demands = new ArrayList<>(new TreeSet<>(Arrays.stream(need).boxed().toList()));
    RackNetwork net = new RackNetwork(planRacks, need, demands, racks);
    MinCostFlow flow = new MinCostFlow(net.vertices());
    Map<Integer, Map<Integer, Integer>> edges = planRackEdges(flow, net, rackOf, pooled);
    int[][] hubEdges = hubEdges(flow, net);
    for (int r = 0; r < racks.size(); r++) {
      flow.edge(net.rack(r), RackNetwork.SINK, 1, 0);
    }
    MinCostFlow.Result result = flow.run(RackNetwork.SOURCE, RackNetwork.SINK, planRacks.size());
    if (result.flow() < planRacks.size()) {
      throw new IllegalStateException(stripe + ": no rack assignment although every plan rack fits a distinct rack");
    }
    Map<Integer, String> realRack = new TreeMap<>();
    edges.forEach((p, row) -> row.forEach((r, e) -> {
      if (flow.flow(e) > 0) {
        realRack.put(planRacks.get(p), racks.get(r));
      }
    }));
    assignHubRacks(flow, net, hubEdges, realRack);
    return new Relabeling(realRack, result.cost());
  }

  /**
   * Step 1's flow network: source -> plan rack -> (a real rack holding one of its replicas | the hub of its demand
   * -> a real rack with the nodes) -> sink, each plan rack and real rack taken once.
   */
  private record RackNetwork(List<Integer> planRacks, int[] need, List<Integer> demands, List<String> racks) {
    static final int SOURCE = 0;
    static final int SINK = 1;

    int plan(int p) {
      return 2 + p;
    }

    int hub(int d) {
      return 2 + planRacks.size() + d;
    }

    int rack(int r) {
      return 2 + planRacks.size() + demands.size() + r;
    }

    int vertices() {
      return rack(racks.size());
    }
  }

  /**
   * Each plan rack's edges: from the source, to its demand's hub at all its bytes, and to each real rack with the
   * nodes and one of its replicas at the bytes it would move there; returns those real-rack edges by plan rack.
   */
  private Map<Integer, Map<Integer, Integer>> planRackEdges(MinCostFlow flow, RackNetwork net, int[] rackOf,
      boolean pooled) {
    Map<Integer, Map<Integer, Integer>> edges = new HashMap<>();
    Map<String, Long> classKeeps = new HashMap<>();
    for (int p = 0; p < net.planRacks().size(); p++) {
      flow.edge(RackNetwork.SOURCE, net.plan(p), 1, 0);
      List<Integer> units = dataIn(rackOf, net.planRacks().get(p));
      long allMoved = units.stream().mapToLong(u -> data.get(u).length()).sum();
      int need = net.need()[p];
      long delivered = delivery == null ? 0 : (need - units.size()) * delivery.parityBytes();
      // Through the hub a plan rack may land anywhere, the core rack too, at its dearest: the core's own edge is cheaper.
      flow.edge(net.plan(p), net.hub(net.demands().indexOf(need)), 1, allMoved + delivered);
      Map<Integer, Integer> row = new HashMap<>();
      List<Integer> classmates = pooled ? classmates(units) : null;
      List<Integer> candidates = classmates != null ? classmates : units;
      for (int r = 0; r < net.racks().size(); r++) {
        String rack = net.racks().get(r);
        boolean core = delivery != null && delivered > 0 && rack.equals(delivery.coreRack());
        if (topology.nodes(rack).size() >= need && (core || candidates.stream().anyMatch(u -> hasReplicaIn(u, rack)))) {
          long cost = classmates != null ? pooledCost(units, classmates, rack, classKeeps)
              : KeepMatching.solve(unitsOf(units), List.of(slot(rack, units.size()))).bytesMoved();
          row.put(r, flow.edge(net.plan(p), net.rack(r), 1, cost + (core ? 0 : delivered)));
        }
      }
      edges.put(p, row);
    }
    return edges;
  }

  /** Each demand hub's edges to the real racks with that many nodes (-1 where a rack has too few). */
  private int[][] hubEdges(MinCostFlow flow, RackNetwork net) {
    List<String> racks = net.racks();
    int[][] hubEdges = new int[net.demands().size()][racks.size()];
    for (int d = 0; d < net.demands().size(); d++) {
      for (int r = 0; r < racks.size(); r++) {
        hubEdges[d][r] = topology.nodes(racks.get(r)).size() >= net.demands().get(d)
            ? flow.edge(net.hub(d), net.rack(r), 1, 0) : -1;
      }
    }
    return hubEdges;
  }

  /** Plan racks that went through a hub take the racks their hub feeds, any one each (they cost the same there). */
  private static void assignHubRacks(MinCostFlow flow, RackNetwork net, int[][] hubEdges,
      Map<Integer, String> realRack) {
    List<Integer> planRacks = net.planRacks();
    for (int d = 0; d < net.demands().size(); d++) {
      List<String> fed = new ArrayList<>();
      for (int r = 0; r < net.racks().size(); r++) {
        if (hubEdges[d][r] >= 0 && flow.flow(hubEdges[d][r]) > 0) {
          fed.add(net.racks().get(r));
        }
      }
      for (int p = 0; p < planRacks.size(); p++) {
        if (net.need()[p] == net.demands().get(d) && !realRack.containsKey(planRacks.get(p))) {
          realRack.put(planRacks.get(p), fed.remove(0));
        }
      }
    }
  }

  /** Every data unit of the class of the given units, or null when they are none or of several classes. */
  private List<Integer> classmates(List<Integer> units) {
    if (units.isEmpty() || units.stream().map(this::classOf).distinct().count() > 1) {
      return null;
    }
    String c = classOf(units.get(0));
    return new TreeSet<>(data.keySet()).stream().filter(u -> classOf(u).equals(c)).toList();
  }

  /**
   * A plan rack's bytes less the most its class could keep in the rack with as many places (never below zero).
   * What a class keeps depends on the rack and the places only, so it is computed once per plan-rack size.
   */
  private long pooledCost(List<Integer> units, List<Integer> candidates, String rack, Map<String, Long> classKeeps) {
    long own = units.stream().mapToLong(u -> data.get(u).length()).sum();
    long kept = classKeeps.computeIfAbsent(classOf(candidates.get(0)) + "/" + rack + "/" + units.size(), key -> {
      long all = candidates.stream().mapToLong(u -> data.get(u).length()).sum();
      return all - KeepMatching.solve(unitsOf(candidates), List.of(slot(rack, units.size()),
          new KeepMatching.Slot("elsewhere", candidates.size() - units.size(), List.of()))).bytesMoved();
    });
    return Math.max(0, own - kept);
  }

  /**
   * Refuses, naming the stripe, a topology without a distinct rack for every plan rack with as many live nodes as
   * the plan rack stores units (one unit per node). Largest demands against largest racks decide it: a rack that
   * fits a demand fits every smaller one.
   */
  private void checkRoom(int[] need) {
    int[] sortedNeed = Arrays.stream(need).boxed().sorted((a, b) -> b - a).mapToInt(Integer::intValue).toArray();
    int[] have = topology.racks().stream().mapToInt(r -> topology.nodes(r).size()).boxed().sorted((a, b) -> b - a)
        .mapToInt(Integer::intValue).toArray();
    if (have.length < sortedNeed.length) {
      throw new ArchivalPlanException(stripe + ": the placement needs " + sortedNeed.length + " racks holding "
          + Arrays.toString(sortedNeed) + " units each, the live topology has " + have.length + " racks");
    }
    for (int i = 0; i < sortedNeed.length; i++) {
      if (have[i] < sortedNeed[i]) {
        throw new ArchivalPlanException(stripe + ": the placement puts " + sortedNeed[i] + " units, one per node, into"
            + " its " + ordinal(i + 1) + " largest rack, but the " + ordinal(i + 1) + " largest live rack has "
            + have[i] + " nodes (racks need " + Arrays.toString(sortedNeed) + ", have " + Arrays.toString(have) + ")");
      }
    }
  }

  /**
   * Step 2: each class of interchangeable data units (same local groups) re-placed over its racks, each rack
   * keeping its count of the class. Racks that mix classes stay as they are. Null when nothing changes.
   */
  private int[] reslot(int[] rackOf, Map<Integer, String> realRack) {
    Map<String, List<Integer>> classes = new LinkedHashMap<>();
    for (int u : new TreeSet<>(data.keySet())) {
      classes.computeIfAbsent(classOf(u), c -> new ArrayList<>()).add(u);
    }
    Map<Integer, String> classOfRack = new HashMap<>();
    for (int u : data.keySet()) {
      String c = classOf(u);
      classOfRack.merge(rackOf[u], c, (a, b) -> a.equals(b) ? a : "");
    }
    int[] next = rackOf.clone();
    boolean changed = false;
    for (Map.Entry<String, List<Integer>> cls : classes.entrySet()) {
      List<Integer> units = cls.getValue();
      List<Integer> planRacks = new ArrayList<>(new TreeSet<>(units.stream().map(u -> rackOf[u]).toList()));
      if (planRacks.stream().anyMatch(p -> !cls.getKey().equals(classOfRack.get(p)))) {
        continue;
      }
      List<KeepMatching.Slot> slots = new ArrayList<>();
      for (int p : planRacks) {
        slots.add(slot(realRack.get(p), dataIn(rackOf, p).size()));
      }
      KeepMatching.Result r = KeepMatching.solve(unitsOf(units), slots);
      for (int i = 0; i < units.size(); i++) {
        int p = planRacks.get(r.slotOf()[i]);
        changed |= p != rackOf[units.get(i)];
        next[units.get(i)] = p;
      }
    }
    return changed ? next : null;
  }

  /**
   * Every plan rack's stored units decode when lost together (the reslotting keeps this; checked anyway). With free
   * blocks the result keeps the placement's units, whose racks are the base plan's.
   */
  private boolean rackTolerant(int[] candidate) {
    int[] rackOf = blocksFree ? base : candidate;
    for (int p : new TreeSet<>(storedPlanRacks(rackOf))) {
      int[] units = java.util.stream.IntStream.range(0, code.n()).filter(u -> stored[u] && rackOf[u] == p).toArray();
      if (!code.isDecodable(units)) {
        return false;
      }
    }
    return true;
  }

  private String classOf(int unit) {
    if (blocksFree) {
      return "data"; // any block may take any data unit
    }
    StringBuilder sb = new StringBuilder("g");
    for (LocalGroup g : code.groupsOf(unit)) {
      sb.append(g.index()).append(',');
    }
    return sb.toString();
  }

  private List<Integer> storedPlanRacks(int[] rackOf) {
    List<Integer> out = new ArrayList<>();
    for (int u = 0; u < code.n(); u++) {
      if (stored[u]) {
        out.add(rackOf[u]);
      }
    }
    return out;
  }

  private int storedIn(int[] rackOf, int planRack) {
    int c = 0;
    for (int u = 0; u < code.n(); u++) {
      c += stored[u] && rackOf[u] == planRack ? 1 : 0;
    }
    return c;
  }

  private List<Integer> dataIn(int[] rackOf, int planRack) {
    return new TreeSet<>(data.keySet()).stream().filter(u -> rackOf[u] == planRack).toList();
  }

  private List<KeepMatching.Unit> unitsOf(List<Integer> units) {
    return units.stream().map(data::get).toList();
  }

  private KeepMatching.Slot slot(String rack, int places) {
    return new KeepMatching.Slot(rack, places, topology.nodes(rack));
  }

  private boolean hasReplicaIn(int unit, String rack) {
    List<String> nodes = topology.nodes(rack);
    return data.get(unit).replicaNodes().stream().anyMatch(nodes::contains);
  }

  private static String ordinal(int i) {
    return i + (i % 100 >= 11 && i % 100 <= 13 ? "th" : switch (i % 10) {
      case 1 -> "st";
      case 2 -> "nd";
      case 3 -> "rd";
      default -> "th";
    });
  }
}
