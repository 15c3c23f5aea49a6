package org.wideec.archive.encode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.topology.Site;

/**
 * Choosing RapidRAID's chain from where the replicas are: every position's node holds its pieces after the moves, the
 * moves are as few as any chain needs (brute force over every chain of small instances), the rack-loss claim is
 * exactly true, and among fewest-move chains a rack-loss tolerant one is found whenever brute force finds one.
 */
class RapidRaidChainPlannerTest {
  private static List<Site> cluster(int racks, int perRack) {
    List<Site> out = new ArrayList<>();
    for (int r = 0; r < racks; r++) {
      for (int v = 0; v < perRack; v++) {
        out.add(new Site("r" + r + "n" + v, "r" + r));
      }
    }
    return out;
  }

  /** Each piece on {@code replicas} distinct random nodes. */
  private static Map<Integer, List<Site>> randomLayout(int k, List<Site> nodes, int replicas, Random rnd) {
    Map<Integer, List<Site>> out = new HashMap<>();
    for (int j = 0; j < k; j++) {
      List<Site> shuffled = new ArrayList<>(nodes);
      java.util.Collections.shuffle(shuffled, rnd);
      out.put(j, List.copyOf(shuffled.subList(0, replicas)));
    }
    return out;
  }

  private static void assertCovered(LinearCode code, RapidRaidChain chain, Map<Integer, List<Site>> replicas) {
    Set<String> held = new HashSet<>();
    replicas.forEach((j, sites) -> sites.forEach(s -> held.add(j + "@" + s.node())));
    for (RapidRaidChain.Move m : chain.moves()) {
      assertTrue(held.contains(m.piece() + "@" + m.from().node()), "a move copies a replica that exists: " + m);
      held.add(m.piece() + "@" + m.to().node());
    }
    assertEquals(code.n(), chain.sites().stream().map(Site::node).distinct().count(), "distinct chain nodes");
    for (int i = 0; i < code.n(); i++) {
      for (int j : RapidRaidPipeline.piecesAt(code.n(), code.k(), i)) {
        assertTrue(held.contains(j + "@" + chain.site(i).node()), "position " + i + " holds piece " + j);
      }
    }
  }

  private static boolean tolerant(LinearCode code, List<Site> sites) {
    Map<String, List<Integer>> byRack = new HashMap<>();
    for (int i = 0; i < sites.size(); i++) {
      byRack.computeIfAbsent(sites.get(i).rack(), r -> new ArrayList<>()).add(i);
    }
    return byRack.values().stream().allMatch(l -> code.isDecodable(l.stream().mapToInt(Integer::intValue).toArray()));
  }

  private static int moves(LinearCode code, List<Site> sites, Map<Integer, List<Site>> replicas) {
    int m = 0;
    for (int i = 0; i < code.n(); i++) {
      for (int j : RapidRaidPipeline.piecesAt(code.n(), code.k(), i)) {
        String node = sites.get(i).node();
        m += replicas.get(j).stream().anyMatch(s -> s.node().equals(node)) ? 0 : 1;
      }
    }
    return m;
  }

  /** Fewest moves over every chain, and the fewest among chains that survive any one rack's loss (or -1). */
  private static int[] bruteForce(LinearCode code, List<Site> nodes, Map<Integer, List<Site>> replicas) {
    int[] best = {Integer.MAX_VALUE, Integer.MAX_VALUE};
    permute(code, nodes, replicas, new ArrayList<>(), new boolean[nodes.size()], best);
    return new int[] {best[0], best[1] == Integer.MAX_VALUE ? -1 : best[1]};
  }

  private static void permute(LinearCode code, List<Site> nodes, Map<Integer, List<Site>> replicas, List<Site> chain,
      boolean[] used, int[] best) {
    if (chain.size() == code.n()) {
      int m = moves(code, chain, replicas);
      best[0] = Math.min(best[0], m);
      if (m < best[1] && tolerant(code, chain)) {
        best[1] = m;
      }
      return;
    }
    for (int v = 0; v < nodes.size(); v++) {
      if (!used[v]) {
        used[v] = true;
        chain.add(nodes.get(v));
        permute(code, nodes, replicas, chain, used, best);
        chain.remove(chain.size() - 1);
        used[v] = false;
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"rapidraid:n=6,k=4", "rapidraid:n=5,k=3", "rapidraid:n=6,k=3"})
  void movesAreTheFewestAnyChainNeedsAndRackLossToleranceIsFoundWhenItExists(String spec) {
    LinearCode code = Codes.pinnedFromSpec(spec);
    Random rnd = new Random(spec.hashCode());
    for (int trial = 0; trial < 25; trial++) {
      List<Site> nodes = cluster(3 + trial % 2, 2 + trial % 2); // 6 to 9 nodes in 3 or 4 racks
      Map<Integer, List<Site>> replicas = randomLayout(code.k(), nodes, 1 + trial % 3, rnd);
      RapidRaidChain chain = RapidRaidChainPlanner.plan("object " + trial, code, replicas, nodes);
      assertCovered(code, chain, replicas);
      int[] best = bruteForce(code, nodes, replicas);
      String what = spec + " trial " + trial + ": " + chain;
      assertEquals(best[0], chain.moves().size(), what);
      assertEquals(chain.moves().size(), moves(code, chain.sites(), replicas), what);
      assertEquals(tolerant(code, chain.sites()), chain.rackLossTolerant(), what);
      assertEquals(best[1] == best[0], chain.rackLossTolerant(), what + " (fewest tolerant " + best[1] + ")");
    }
  }

  /** Each piece on the nodes of the positions reading it, position i on node i: no chain needs a move. */
  private static Map<Integer, List<Site>> asThePaperAssumes(LinearCode code, List<Site> nodes) {
    Map<Integer, List<Site>> replicas = new HashMap<>();
    for (int i = 0; i < code.n(); i++) {
      for (int j : RapidRaidPipeline.piecesAt(code.n(), code.k(), i)) {
        replicas.computeIfAbsent(j, x -> new ArrayList<>()).add(nodes.get(i));
      }
    }
    return replicas;
  }

  @Test
  void replicasLaidOutAsThePaperAssumesNeedNoMovesAndRacksStayTogether() {
    LinearCode code = Codes.pinnedFromSpec("rapidraid:n=16,k=11");
    List<Site> nodes = cluster(4, 5);
    // Position i on node i of the cluster: racks of 5 consecutive positions, the chain crosses racks 3 times.
    Map<Integer, List<Site>> replicas = asThePaperAssumes(code, nodes);
    RapidRaidChain chain = RapidRaidChainPlanner.plan("object", code, replicas, nodes);
    assertCovered(code, chain, replicas);
    assertEquals(List.of(), chain.moves());
    assertEquals(3, chain.crossRackHops());
    assertEquals(tolerant(code, chain.sites()), chain.rackLossTolerant());
  }

  @Test
  void aPositionBarredFromANodeTakesAnotherWhenAChainCanAndTheBarredOneOnlyWhenNoneCan() {
    LinearCode code = Codes.pinnedFromSpec("rapidraid:n=16,k=11");
    List<Site> nodes = cluster(4, 5);
    Map<Integer, List<Site>> replicas = asThePaperAssumes(code, nodes);
    // Unbarred, position 0 sits on node 0, with no move; barred from it, it goes elsewhere at the price of copies.
    RapidRaidChain free = RapidRaidChainPlanner.plan("object", code, replicas, nodes);
    assertEquals(nodes.get(0), free.site(0));
    RapidRaidChain barred = RapidRaidChainPlanner.plan("object", code, replicas, nodes,
        Map.of(0, Set.of(nodes.get(0).node()), 5, Set.of(nodes.get(5).node())));
    assertCovered(code, barred, replicas);
    assertTrue(!barred.site(0).equals(nodes.get(0)) && !barred.site(5).equals(nodes.get(5)), barred.toString());
    assertTrue(barred.moves().size() > 0, barred.toString());
    // Sixteen nodes for sixteen positions, position 0 barred from all of them: it takes one anyway.
    List<Site> exact = nodes.subList(0, 16);
    Set<String> all = new HashSet<>();
    exact.forEach(n -> all.add(n.node()));
    RapidRaidChain forced = RapidRaidChainPlanner.plan("object", code, replicas, exact, Map.of(0, all));
    assertCovered(code, forced, replicas);
  }

  @Test
  void aWideRandomLayoutIsCoveredWithTheFewestMovesTheAssignmentAllows() {
    LinearCode code = Codes.pinnedFromSpec("rapidraid:n=16,k=11");
    Random rnd = new Random(7);
    for (int trial = 0; trial < 10; trial++) {
      List<Site> nodes = cluster(5, 5);
      Map<Integer, List<Site>> replicas = randomLayout(code.k(), nodes, 3, rnd);
      RapidRaidChain chain = RapidRaidChainPlanner.plan("object", code, replicas, nodes);
      assertCovered(code, chain, replicas);
      assertEquals(tolerant(code, chain.sites()), chain.rackLossTolerant());
      assertTrue(chain.crossRackHops() >= chain.sites().stream().map(Site::rack).distinct().count() - 1);
    }
  }

  @Test
  void aPieceWithoutALiveReplicaOrTooFewNodesAreRefusedByName() {
    LinearCode code = Codes.pinnedFromSpec("rapidraid:n=6,k=4");
    List<Site> nodes = cluster(3, 2);
    Map<Integer, List<Site>> replicas = new HashMap<>();
    for (int j = 0; j < 4; j++) {
      replicas.put(j, List.of(nodes.get(j)));
    }
    replicas.put(2, List.of(new Site("dead", "r9")));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> RapidRaidChainPlanner.plan("/cold/a", code, replicas, nodes));
    assertEquals("/cold/a: piece 2 has no replica on a live node (replicas [dead (r9)]); it cannot be archived",
        e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> RapidRaidChainPlanner.plan("/cold/a", code, replicas, nodes.subList(0, 5)));
    assertEquals("/cold/a: rapidraid:n=6,k=4 needs 6 distinct live nodes for its chain, only 5 are live",
        e.getMessage());
  }
}
