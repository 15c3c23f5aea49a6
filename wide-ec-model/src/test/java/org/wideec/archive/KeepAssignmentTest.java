package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.topology.Site;
import org.wideec.topology.Topology;

/**
 * Keeping replicas: the relabelling step is exactly the brute-force optimum, reslotting only ever lowers it, and
 * nothing beats the brute-force optimum over every rack map and every arrangement of interchangeable units (which
 * the search reaches in most instances).
 */
class KeepAssignmentTest {
  record Case(String spec, PlacementKind kind) {}

  static final List<Case> CASES = List.of(new Case("rs:k=4,m=2", PlacementKind.CL),
      new Case("azure-lrc:k=4,l=2,g=1", PlacementKind.CL), new Case("rs:k=3,m=2", PlacementKind.FLAT),
      new Case("unilrc:alpha=1,z=2", PlacementKind.UNILRC), new Case("azure-lrc:k=6,l=2,g=1", PlacementKind.CL));

  /** One random instance: a code, its base plan, a topology, the stored units and their replicas. */
  record Instance(LinearCode code, int[] base, boolean[] stored, Map<Integer, KeepMatching.Unit> data, Topology topology) {
    KeepAssignment keeper() {
      return new KeepAssignment(code, stored, data, topology, "stripe 0");
    }
  }

  static Instance instance(long seed) {
    Random rnd = new Random(seed);
    Case c = CASES.get(rnd.nextInt(CASES.size()));
    LinearCode code = Codes.pinnedFromSpec(c.spec());
    int[] base = c.kind().planner().plan(code).rackOf();
    int real = rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(code.k()) : code.k();
    boolean[] stored = new boolean[code.n()];
    for (int u = 0; u < code.n(); u++) {
      stored[u] = u < code.k() ? u < real : !ArchivedStripe.zeroParity(code, u, d -> d >= real);
    }
    int planRacks = new TreeSet<>(java.util.Arrays.stream(base).boxed().toList()).size();
    Topology t = PlanFixtures.randomTopology(rnd, planRacks + rnd.nextInt(3), 1, 3 + rnd.nextInt(2));
    Map<Integer, KeepMatching.Unit> data = new HashMap<>();
    for (int u = 0; u < real; u++) {
      List<String> nodes = PlanFixtures.randomReplicas(rnd, t, 1 + rnd.nextInt(3)).stream()
          .map(Site::node).toList();
      data.put(u, new KeepMatching.Unit(u, 1 + rnd.nextInt(100), nodes));
    }
    return new Instance(code, base, stored, data, t);
  }

  @Test
  void relabellingIsTheBruteForceOptimumAndReslottingOnlyImprovesIt() {
    int feasible = 0;
    int strictlyBetter = 0;
    int jointOptimum = 0;
    for (long seed = 0; seed < 250; seed++) {
      Instance in = instance(seed);
      long brute = bruteRelabel(in, in.base());
      if (brute == Long.MAX_VALUE) {
        assertThrows(ArchivalPlanException.class, () -> in.keeper().assign(in.base()), "seed " + seed);
        continue;
      }
      feasible++;
      KeepAssignment.Result r = in.keeper().assign(in.base());
      assertEquals(brute, r.relabelOptimum(), "seed " + seed + ": relabelling optimum");
      assertTrue(r.bytesMoved() <= r.relabelOptimum(), "seed " + seed);
      long joint = bruteFlexible(in);
      assertTrue(r.bytesMoved() >= joint, "seed " + seed + ": nothing beats the joint brute force");
      jointOptimum += r.bytesMoved() == joint ? 1 : 0;
      strictlyBetter += r.bytesMoved() < r.relabelOptimum() ? 1 : 0;
      assertConsistent(in, r, "seed " + seed);
    }
    assertTrue(feasible > 150, feasible + " feasible instances");
    assertTrue(strictlyBetter > 10, "reslotting helped in " + strictlyBetter + " instances");
    // Not a guarantee (the joint problem is not solved exactly), a regression bound: 94% when this was written.
    assertTrue(jointOptimum >= 0.9 * feasible, "joint optimum reached in " + jointOptimum + " of " + feasible);
  }

  @Test
  void reslottingFindsTheJointOptimumWhereRelabellingAloneCannot() {
    // rs:k=4,m=2 under combined locality: plan racks {0,1} {2,3} {4,5}. Blocks 0 and 2 share rack /r0, 1 and 3 rack
    // /r1: with units fixed to their plan racks every rack map moves two blocks; swapping units 1 and 2 moves none.
    KeepAssignment.Result r = assignRs42(new long[] {10, 10, 10, 10}, "r0n0", "r1n0", "r0n1", "r1n1");
    assertEquals(20, r.relabelOptimum());
    assertEquals(0, r.bytesMoved());
    assertEquals(r.rackOf()[0], r.rackOf()[2]);
    assertEquals(r.rackOf()[1], r.rackOf()[3]);
  }

  @Test
  void aUnitStaysOnTheNodeAnotherUnitNeedsLessOften() {
    // Both units of plan rack {0,1} have replicas only on r0n0 (HDFS puts a writer's first replicas on its own node):
    // one keeps it, the other moves; the longer block keeps.
    KeepAssignment.Result r = assignRs42(new long[] {5, 9, 7, 7}, "r0n0", "r0n0", "r1n0", "r1n1");
    assertEquals(5, r.bytesMoved());
    assertEquals("r0n0", r.keptNode()[1]);
    assertEquals(null, r.keptNode()[0]);
  }

  /**
   * rs:k=4,m=2 under combined locality (plan racks {0,1} {2,3} {4,5}) on three racks of two nodes, data unit u of
   * the given length with its one replica on the given node.
   */
  static KeepAssignment.Result assignRs42(long[] lengths, String... replicaNodes) {
    LinearCode code = Codes.pinnedFromSpec("rs:k=4,m=2");
    Map<Integer, KeepMatching.Unit> data = new HashMap<>();
    for (int u = 0; u < 4; u++) {
      data.put(u, new KeepMatching.Unit(u, lengths[u], List.of(replicaNodes[u])));
    }
    boolean[] stored = {true, true, true, true, true, true};
    return new KeepAssignment(code, stored, data, PlanFixtures.topology(2, 2, 2), "stripe 0")
        .assign(PlacementKind.CL.planner().plan(code).rackOf());
  }

  /** The result's own accounting: kept units on their replicas in their plan rack's real rack, distinct nodes. */
  static void assertConsistent(Instance in, KeepAssignment.Result r, String what) {
    long moved = 0;
    Set<String> nodes = new HashSet<>();
    Set<String> racks = new HashSet<>(r.realRack().values());
    assertEquals(r.realRack().size(), racks.size(), what + ": plan racks share a real rack");
    for (Map.Entry<Integer, KeepMatching.Unit> e : in.data().entrySet()) {
      String kept = r.keptNode()[e.getKey()];
      String rack = r.realRack().get(r.rackOf()[e.getKey()]);
      assertNotNull(rack, what + ": unit " + e.getKey() + " has no real rack");
      if (kept == null) {
        moved += e.getValue().length();
      } else {
        assertTrue(e.getValue().replicaNodes().contains(kept), what);
        assertEquals(rack, PlanFixtures.rackOf(in.topology(), kept), what);
        assertTrue(nodes.add(kept), what + ": two units keep " + kept);
      }
    }
    assertEquals(moved, r.bytesMoved(), what + ": bytes moved");
  }

  /** Fewest bytes moved over every injective map of plan racks to real racks and every choice of kept replicas. */
  static long bruteRelabel(Instance in, int[] rackOf) {
    List<Integer> planRacks = new ArrayList<>();
    for (int u = 0; u < in.code().n(); u++) {
      if (in.stored()[u] && !planRacks.contains(rackOf[u])) {
        planRacks.add(rackOf[u]);
      }
    }
    return mapRacks(in, rackOf, planRacks, 0, new HashSet<>());
  }

  private static long mapRacks(Instance in, int[] rackOf, List<Integer> planRacks, int i, Set<String> taken) {
    if (i == planRacks.size()) {
      return 0;
    }
    int p = planRacks.get(i);
    List<Integer> units = new ArrayList<>();
    int need = 0;
    for (int u = 0; u < in.code().n(); u++) {
      if (in.stored()[u] && rackOf[u] == p) {
        need++;
        if (in.data().containsKey(u)) {
          units.add(u);
        }
      }
    }
    long best = Long.MAX_VALUE;
    for (String rack : in.topology().racks()) {
      if (taken.contains(rack) || in.topology().nodes(rack).size() < need) {
        continue;
      }
      taken.add(rack);
      long rest = mapRacks(in, rackOf, planRacks, i + 1, taken);
      taken.remove(rack);
      if (rest != Long.MAX_VALUE) {
        best = Math.min(best, rest + keep(in, units, 0, new HashSet<>(in.topology().nodes(rack)), new HashSet<>()));
      }
    }
    return best;
  }

  private static long keep(Instance in, List<Integer> units, int i, Set<String> rackNodes, Set<String> used) {
    if (i == units.size()) {
      return 0;
    }
    KeepMatching.Unit u = in.data().get(units.get(i));
    long best = u.length() + keep(in, units, i + 1, rackNodes, used);
    for (String node : u.replicaNodes()) {
      if (rackNodes.contains(node) && used.add(node)) {
        best = Math.min(best, keep(in, units, i + 1, rackNodes, used));
        used.remove(node);
      }
    }
    return best;
  }

  /** The joint optimum: every arrangement of interchangeable data units (same local groups) over their plan racks. */
  static long bruteFlexible(Instance in) {
    Map<String, List<Integer>> classes = new HashMap<>();
    for (int u : new TreeSet<>(in.data().keySet())) {
      StringBuilder key = new StringBuilder();
      in.code().groupsOf(u).forEach(g -> key.append(g.index()).append(','));
      classes.computeIfAbsent(key.toString(), k -> new ArrayList<>()).add(u);
    }
    return arrange(in, new ArrayList<>(classes.values()), 0, in.base().clone());
  }

  private static long arrange(Instance in, List<List<Integer>> classes, int c, int[] rackOf) {
    if (c == classes.size()) {
      return bruteRelabel(in, rackOf);
    }
    List<Integer> units = classes.get(c);
    List<Integer> racks = units.stream().map(u -> in.base()[u]).toList();
    long best = Long.MAX_VALUE;
    for (List<Integer> perm : permutations(racks)) {
      for (int i = 0; i < units.size(); i++) {
        rackOf[units.get(i)] = perm.get(i);
      }
      best = Math.min(best, arrange(in, classes, c + 1, rackOf));
    }
    return best;
  }

  private static Set<List<Integer>> permutations(List<Integer> items) {
    Set<List<Integer>> out = new HashSet<>();
    if (items.isEmpty()) {
      out.add(List.of());
      return out;
    }
    for (int i = 0; i < items.size(); i++) {
      List<Integer> rest = new ArrayList<>(items);
      int head = rest.remove(i);
      for (List<Integer> p : permutations(rest)) {
        List<Integer> l = new ArrayList<>();
        l.add(head);
        l.addAll(p);
        out.add(l);
      }
    }
    return out;
  }
}
