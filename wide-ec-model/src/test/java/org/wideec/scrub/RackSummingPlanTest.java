package org.wideec.scrub;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;

class RackSummingPlanTest {
  private static final int PAGE = 64;

  @ParameterizedTest
  @ValueSource(strings = {"rs:k=6,m=3", "rs:k=10,m=4", "azure-lrc:k=12,l=2,g=2", "azure-lrc:k=6,l=2,g=2",
      "unilrc:alpha=1,z=6", "rs:k=4,m=1"})
  void rackSumsOfACleanStripeCheckConsistentAndEverySingleCorruptUnitFailsTheCheck(String spec) {
    LinearCode code = Codes.fromSpec(spec);
    byte[][] units = SummaryCheckTest.encodedStripe(code, new Random(spec.hashCode()));
    RackSummingPlan plan = RackSummingPlan.plan(ScrubChecks.of(code, ScrubChecks.DEFAULT_CHECKS, 9),
        racks(code.n(), 4), "checker");
    assertTrue(consistent(plan, SummaryCheckTest.summaries(units)), spec);
    Random random = new Random(5);
    for (int u = 0; u < code.n(); u++) {
      for (int position : new int[] {0, PAGE - 1, units[u].length - 1}) {
        byte[][] corrupt = SummaryCheckTest.copy(units);
        corrupt[u][position] ^= (byte) (1 + random.nextInt(255));
        assertFalse(consistent(plan, SummaryCheckTest.summaries(corrupt)), spec + ": unit " + u + " byte " + position);
      }
    }
  }

  @Test
  void everyCheckRowCoversEveryUnitAndTheRowsAreIndependent() {
    for (String spec : new String[] {"rs:k=10,m=4", "azure-lrc:k=12,l=2,g=2", "rs:k=100,m=20"}) {
      LinearCode code = Codes.fromSpec(spec);
      for (long seed = 0; seed < 20; seed++) {
        ScrubChecks checks = ScrubChecks.of(code, 3, seed);
        assertEquals(3, checks.count());
        assertEquals(3, checks.rows().rank(), spec + " seed " + seed);
        for (int u = 0; u < code.n(); u++) {
          for (int c : checks.coefficientsOf(u)) {
            assertNotEquals(0, c, spec + " seed " + seed + " unit " + u);
          }
        }
      }
    }
    assertEquals(1, ScrubChecks.of(Codes.fromSpec("rs:k=4,m=1"), 2, 1).count(), "no more rows than H has");
  }

  @Test
  void aRackSumsOnlyWhereItHoldsMoreUnitsThanCheckRowsAndTheCostIsRacksTimesChecksTimesThePage() {
    LinearCode code = Codes.fromSpec("rs:k=10,m=4");
    ScrubChecks checks = ScrubChecks.of(code, 2, 3);
    // Racks a and b hold four units each and c three: more than the two rows. d holds two, e (the checker's) one.
    String[] racks = {"a", "a", "a", "a", "b", "b", "b", "b", "c", "c", "c", "d", "d", "e"};
    RackSummingPlan plan = RackSummingPlan.plan(checks, racks, "e");
    assertEquals(List.of("a", "b", "c"), plan.sums().stream().map(RackSummingPlan.RackSum::rack).toList());
    assertArrayEquals(new int[] {0, 1, 2, 3}, plan.sums().get(0).units());
    assertArrayEquals(new int[] {1, 2, 3}, plan.sums().get(0).helpers());
    assertArrayEquals(new int[] {11, 12, 13}, plan.alone());
    assertEquals((3L * 2 + 2) * PAGE, plan.crossRackBytes(PAGE));
    assertEquals(13L * PAGE, plan.perUnitCrossRackBytes(PAGE));
  }

  @Test
  void unitsKnownToBeZerosAreAskedOfNobody() {
    LinearCode code = Codes.fromSpec("rs:k=6,m=3");
    String[] racks = {"a", "a", null, null, "a", "b", "a", "b", "b"};
    RackSummingPlan plan = RackSummingPlan.plan(ScrubChecks.of(code, 2, 3), racks, "client");
    assertArrayEquals(new int[] {0, 1, 4, 6}, plan.sums().get(0).units());
    assertArrayEquals(new int[] {5, 7, 8}, plan.sums().get(1).units());
    assertEquals(0, plan.alone().length);
    assertEquals(2L * 2 * PAGE, plan.crossRackBytes(PAGE));
  }

  /** Units dealt round-robin over {@code racks} racks. */
  private static String[] racks(int n, int racks) {
    String[] r = new String[n];
    for (int u = 0; u < n; u++) {
      r[u] = "/rack" + u % racks;
    }
    return r;
  }

  /** What the checker concludes, each rack's rows computed by the reference of what its collector sends. */
  private static boolean consistent(RackSummingPlan plan, byte[][] summaries) {
    List<byte[][]> rackRows = new ArrayList<>();
    for (RackSummingPlan.RackSum s : plan.sums()) {
      rackRows.add(plan.sumInRack(s, summaries));
    }
    return plan.consistent(rackRows, summaries, PAGE);
  }
}
