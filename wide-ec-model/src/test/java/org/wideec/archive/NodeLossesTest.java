package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The most units f node losses take, held against brute force: every set of at most f of the nodes lost, counting
 * the units all of whose replicas' nodes it holds.
 */
class NodeLossesTest {

  /** Every way of giving {@code units} units replica sets of {@code minSize} to {@code maxSize} of the nodes. */
  static List<Map<Integer, Set<String>>> everyPlacement(int units, int nodes, int minSize, int maxSize) {
    return everyPlacement(units, nodes, minSize, maxSize, false);
  }

  /**
   * As above; {@code upToRenaming}: each multiset of sets once, in one order of the units, for claims that do not
   * depend on which unit holds which set.
   */
  static List<Map<Integer, Set<String>>> everyPlacement(int units, int nodes, int minSize, int maxSize,
      boolean upToRenaming) {
    List<Set<String>> sets = new ArrayList<>();
    for (int mask = 0; mask < 1 << nodes; mask++) {
      int size = Integer.bitCount(mask);
      if (size >= minSize && size <= maxSize) {
        sets.add(nodesOf(mask));
      }
    }
    List<Map<Integer, Set<String>>> out = new ArrayList<>();
    int[] pick = new int[units];
    while (true) {
      Map<Integer, Set<String>> p = new TreeMap<>();
      for (int u = 0; u < units; u++) {
        p.put(u, sets.get(pick[u]));
      }
      out.add(p);
      int i = 0;
      while (i < units && ++pick[i] == sets.size()) {
        i++;
      }
      if (i == units) {
        return out;
      }
      for (int j = 0; j < i; j++) {
        pick[j] = upToRenaming ? pick[i] : 0;
      }
    }
  }

  static Set<String> nodesOf(int mask) {
    Set<String> s = new HashSet<>();
    for (int n = 0; n < 31; n++) {
      if ((mask & 1 << n) != 0) {
        s.add("dn" + n);
      }
    }
    return s;
  }

  /** Brute force: the most units any at most {@code f} lost nodes take (nodes as bits, every subset tried). */
  static int bruteForce(Map<Integer, ? extends Set<String>> replicas, int f) {
    Map<String, Integer> bit = new HashMap<>();
    long[] units = new long[replicas.size()];
    int i = 0;
    for (Set<String> s : replicas.values()) {
      for (String n : s) {
        units[i] |= 1L << bit.computeIfAbsent(n, x -> bit.size());
      }
      i++;
    }
    int most = 0;
    for (long lost = 0; lost < 1L << bit.size(); lost++) {
      if (Long.bitCount(lost) <= f) {
        int taken = 0;
        for (long u : units) {
          taken += (u & ~lost) == 0 ? 1 : 0;
        }
        most = Math.max(most, taken);
      }
    }
    return most;
  }

  private static void assertAgrees(Map<Integer, Set<String>> p, int f) {
    NodeLosses.Worst w = NodeLosses.worst(p, f);
    String what = p + " f=" + f;
    assertTrue(w.exact(), what);
    assertEquals(bruteForce(p, f), w.units().size(), what);
    assertTrue(w.nodes().size() <= f, what + ": " + w);
    for (int u : w.units()) {
      assertTrue(w.nodes().containsAll(p.get(u)), what + ": unit " + u + " is not taken by " + w.nodes());
    }
  }

  @Test
  void theWorstLossesTakeAsManyUnitsAsBruteForceFindsForEveryPlacementOfThreeUnitsOnFiveNodes() {
    for (Map<Integer, Set<String>> p : everyPlacement(3, 5, 0, 3)) {
      for (int f = 0; f <= 4; f++) {
        assertAgrees(p, f);
      }
    }
  }

  @Test
  void theWorstLossesTakeAsManyUnitsAsBruteForceFindsForEveryPlacementOfFourUnitsOnFourNodes() {
    for (Map<Integer, Set<String>> p : everyPlacement(4, 4, 0, 2)) {
      for (int f = 0; f <= 4; f++) {
        assertAgrees(p, f);
      }
    }
  }

  @Test
  void theWorstLossesAgreeWithBruteForceOnRandomWiderPlacements() {
    Random rnd = new Random(17);
    for (int trial = 0; trial < 3000; trial++) {
      int nodes = 4 + rnd.nextInt(9);
      int units = 2 + rnd.nextInt(8);
      Map<Integer, Set<String>> p = new TreeMap<>();
      for (int u = 0; u < units; u++) {
        Set<String> s = new HashSet<>();
        int size = rnd.nextInt(4);
        while (s.size() < size) {
          s.add("dn" + rnd.nextInt(nodes));
        }
        p.put(u * 3, s); // unit numbers need not be dense
      }
      assertAgrees(p, rnd.nextInt(6));
    }
  }

  @Test
  void twoUnitsEachHoldingAReplicaOnTheOthersNodeAreBothTakenByTwoLosses() {
    Map<Integer, Set<String>> p = new TreeMap<>();
    p.put(0, Set.of("pA", "pB")); // A's added replica landed on B's node
    p.put(1, Set.of("pB", "pA")); // and B's on A's
    p.put(2, Set.of("pC", "qC"));
    NodeLosses.Worst w = NodeLosses.worst(p, 2);
    assertEquals(List.of(0, 1), w.units());
    assertEquals(Set.of("pA", "pB"), w.nodes());
    assertEquals(List.of(2), NodeLosses.worst(Map.of(2, Set.of("pC", "qC"), 3, Set.of("pD", "qD", "rD")), 2).units());
  }

  @Test
  void aWideStripeOnNodesOfItsOwnIsCountedWithoutSearchAndAStarOfSharedNodesRunsOutOfSteps() {
    Map<Integer, Set<String>> own = new TreeMap<>();
    Map<Integer, Set<String>> star = new TreeMap<>();
    for (int u = 0; u < 255; u++) {
      own.put(u, Set.of("p" + u, "q" + u));
      star.put(u, Set.of("hub", "p" + u)); // every unit's added replica on one node
    }
    NodeLosses.Worst w = NodeLosses.worst(own, 4);
    assertTrue(w.exact());
    assertEquals(List.of(0, 1), w.units());
    NodeLosses.Worst s = NodeLosses.worst(star, 4);
    assertFalse(s.exact(), "C(255, 3) collections of three units span four nodes: more than the budget");
    assertTrue(s.units().size() >= 3, s.toString());
  }
}
