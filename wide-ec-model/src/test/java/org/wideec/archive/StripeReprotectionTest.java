package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.wideec.archive.NodeLossesTest.bruteForce;
import static org.wideec.archive.NodeLossesTest.everyPlacement;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Which remaining units of a stripe with members changed for good go to f + 1 because their replicas share nodes,
 * held against brute force: on every placement of a few units at the replication {@link StripeProtection} asks for,
 * once the chosen units hold f + 1 replicas (wherever they land), no f node losses take more than f - d units, and a
 * placement that already survives has nothing raised.
 */
class StripeReprotectionTest {

  /** The units the choice left at {@code r}, with the chosen ones out: f losses never take f + 1 distinct nodes. */
  private static Map<Integer, Set<String>> without(Map<Integer, Set<String>> p, Set<Integer> raised) {
    Map<Integer, Set<String>> rest = new TreeMap<>(p);
    raised.forEach(rest::remove);
    return rest;
  }

  /** The chosen units at f + 1: their listed nodes plus new ones (the raise never moves a replica). */
  private static Map<Integer, Set<String>> raised(Map<Integer, Set<String>> p, Set<Integer> units, int f) {
    Map<Integer, Set<String>> out = new TreeMap<>(p);
    for (int u : units) {
      Set<String> s = new TreeSet<>(p.get(u));
      for (int i = 0; s.size() < f + 1; i++) {
        s.add("added" + u + "-" + i);
      }
      out.put(u, s);
    }
    return out;
  }

  @Test
  void onEveryPlacementTheUnitsRaisedForSharedNodesMakeTheStripeSurviveItsCodesLosses() {
    int checked = 0;
    for (int f = 1; f <= 4; f++) {
      for (int d = 1; d < f; d++) {
        StripeProtection need = StripeProtection.of(f, d);
        int r = need.replication();
        for (Map<Integer, Set<String>> p : everyPlacement(4, 5, r, Math.min(r + 1, f), true)) {
          StripeReprotection choice = StripeReprotection.of(need, p);
          String what = "f=" + f + " d=" + d + " r=" + r + " " + p;
          int worst = bruteForce(p, f);
          assertEquals(worst <= f - d, choice.holds(), what);
          if (worst <= f - d) {
            assertEquals(Set.of(), choice.sharedNodeUnits(), what + ": nothing needs raising");
            continue;
          }
          assertTrue(bruteForce(without(p, choice.sharedNodeUnits()), f) <= f - d, what + " raising "
              + choice.sharedNodeUnits());
          for (int u : choice.sharedNodeUnits()) {
            assertEquals(f + 1, choice.replicationOf(u));
            assertTrue(p.entrySet().stream().anyMatch(e -> e.getKey() != u && e.getValue().stream()
                .anyMatch(p.get(u)::contains)), what + ": unit " + u + " shares no node yet is raised");
          }
          // The next pass sees the raised units at f + 1: it keeps them there and raises nothing more.
          StripeReprotection next = StripeReprotection.of(need, raised(p, choice.sharedNodeUnits(), f));
          assertEquals(choice.sharedNodeUnits(), next.sharedNodeUnits(), what);
          assertTrue(next.holds(), what);
          checked++;
        }
      }
    }
    assertTrue(checked > 500, "placements that needed a raise: " + checked);
  }

  @Test
  void twoUnitsHoldingReplicasOnEachOthersNodesLoseTheStripeUntilOneOfThemHoldsFPlusOne() {
    StripeProtection need = StripeProtection.of(3, 2); // r = 2; three losses may take one remaining unit
    assertEquals(2, need.replication());
    Map<Integer, Set<String>> p = new TreeMap<>();
    p.put(4, Set.of("pA", "pB")); // A's added replica on B's node (q_A = p_B)
    p.put(9, Set.of("pB", "pA")); // and B's on A's (q_B = p_A)
    p.put(10, Set.of("pC", "qC"));
    p.put(11, Set.of("pD", "qD"));
    StripeReprotection choice = StripeReprotection.of(need, p);
    assertFalse(choice.holds());
    assertEquals("losing pA, pB would take units [4, 9], more than the 1 it can spare", choice.shortfall());
    assertEquals(Set.of(4), choice.sharedNodeUnits()); // A alone at f + 1 leaves B to two losses: one unit
    assertEquals(4, choice.replicationOf(4));
    assertEquals(2, choice.replicationOf(9));

    Map<Integer, Set<String>> after = new TreeMap<>(p);
    after.put(4, Set.of("pA", "pB", "pC", "pD")); // the added replicas may land on other units' nodes again
    StripeReprotection next = StripeReprotection.of(need, after);
    assertTrue(next.holds(), next.shortfall());
    assertEquals(Set.of(4), next.sharedNodeUnits());
    assertEquals("", next.shortfall());
  }

  @Test
  void sharedNodesThatCostNoMoreThanTheCodeAllowsRaiseNothing() {
    StripeProtection need = StripeProtection.of(3, 1); // r = 2; three losses may take two units
    Map<Integer, Set<String>> p = new TreeMap<>();
    p.put(0, Set.of("pA", "pB"));
    p.put(1, Set.of("pB", "pA"));
    p.put(2, Set.of("pC", "qC"));
    StripeReprotection pair = StripeReprotection.of(need, p);
    assertTrue(pair.holds());
    assertEquals(Set.of(), pair.sharedNodeUnits());
    p.put(2, Set.of("pC", "pA")); // a cycle of three over three nodes: three losses take all three
    StripeReprotection cycle = StripeReprotection.of(need, p);
    assertFalse(cycle.holds());
    assertEquals(Set.of(0), cycle.sharedNodeUnits());
  }

  @Test
  void replicasStillPendingCountForNothingAndRaiseNothing() {
    StripeProtection need = StripeProtection.of(3, 2);
    Map<Integer, Set<String>> p = new TreeMap<>();
    p.put(0, Set.of("pA")); // raised to 2, its second replica not placed yet
    p.put(1, Set.of("pB", "qB"));
    p.put(2, Set.of("pC", "qC"));
    p.put(3, Set.of()); // missing: taken already
    StripeReprotection choice = StripeReprotection.of(need, p);
    assertEquals(Set.of(), choice.sharedNodeUnits());
    assertFalse(choice.holds());
    assertEquals(List.of(0, 1, 3), choice.worst().units()); // pA, pB, qB
  }

  @Test
  void whenTheSearchRunsOutOfStepsEveryUnitSharingANodeGoesToFPlusOne() {
    StripeProtection need = StripeProtection.of(3, 2);
    Map<Integer, Set<String>> p = new TreeMap<>();
    p.put(0, Set.of("a", "b"));
    p.put(1, Set.of("b", "c"));
    p.put(2, Set.of("c", "d"));
    p.put(3, Set.of("e", "f"));
    StripeReprotection exact = StripeReprotection.of(need, p);
    assertEquals(Set.of(1), exact.sharedNodeUnits());
    StripeReprotection starved = StripeReprotection.of(need, p, 1);
    assertEquals(Set.of(0, 1, 2), starved.sharedNodeUnits());
    assertTrue(bruteForce(without(p, starved.sharedNodeUnits()), 3) <= 1);
  }

  @Test
  void atFPlusOneEveryUnitIsSafeWhereverItsReplicasAre() {
    StripeProtection need = StripeProtection.of(2, 2); // r = f + 1 = 3
    Map<Integer, Set<String>> p = new TreeMap<>();
    p.put(0, new HashSet<>(Set.of("a", "b", "c")));
    p.put(1, new HashSet<>(Set.of("a", "b", "c")));
    StripeReprotection choice = StripeReprotection.of(need, p);
    assertTrue(choice.holds());
    assertEquals(Set.of(), choice.sharedNodeUnits());
    p.put(1, Set.of("a", "b"));
    assertFalse(StripeReprotection.of(need, p).holds());
  }
}
