package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.update.BaselineUpdate;
import org.wideec.update.RackCu;
import org.wideec.update.ReEncoding;
import org.wideec.update.UpdateChooser;

/**
 * How a stripe update renews its parity: the scheme's delta plan, or the chain re-encoding of the rewritten parities
 * from the data the stripe keeps. On {@link StripeUpdateTest#stripe()}: data 0-2 in /r0, 3-5 in /r1; parities 6 and
 * 9 in /r0, 7 in /r1, 8 in /r2.
 */
class UpdateChoiceTest {
  private static final EncodePlan.Shape CHAIN = EncodePlan.Shape.CHAIN;

  @Test
  void aMemberDeletedBehindOurBackIsReEncodedWhateverTheDeltaPlanCosts() {
    StripeUpdate up = StripeUpdate.removing(StripeUpdateTest.stripe(), Set.of(101L));
    UpdateChoice set = UpdateChoice.of(up, new RackCu(), Set.of(), CHAIN);
    UpdateChoice gone = UpdateChoice.of(up, new RackCu(), Set.of(101L), CHAIN);
    assertTrue(gone.reEncodes());
    assertTrue(gone.reason().contains("unit 1 was deleted behind wide-ec's back (inode 101)"), gone.reason());
    assertEquals(gone.reEncode().crossRackBytes(), gone.crossRackBytes());
    assertEquals(set.reEncode().crossRackBytes(), gone.reEncode().crossRackBytes(), "the same re-encoding");
  }

  @Test
  void reEncodingIsChosenExactlyWhenItCrossesRacksStrictlyLess() {
    for (Set<Long> removed : java.util.List.of(Set.of(101L), Set.of(100L, 101L, 102L, 103L),
        Set.of(100L, 101L, 102L, 103L, 104L), Set.of(103L, 104L, 105L))) {
      StripeUpdate up = StripeUpdate.removing(StripeUpdateTest.stripe(), removed);
      for (org.wideec.update.UpdateScheme scheme : java.util.List.of(new BaselineUpdate(), new RackCu())) {
        UpdateChoice c = UpdateChoice.of(up, scheme, Set.of(), CHAIN);
        long delta = (long) c.delta().crossRackChunks() * up.nextUnitLength();
        assertEquals(UpdateChooser.prefersReEncoding(c.reEncode().crossRackBytes(), delta), c.reEncodes(),
            removed + " " + scheme.name());
        assertEquals(Math.min(delta, c.reEncode().crossRackBytes()), c.crossRackBytes(), removed + " " + scheme.name());
      }
    }
    // Five of six units removed: the one left (in /r1) is re-encoded into the parities, where the baseline sends
    // each removed unit's delta to every parity rack of its row.
    StripeUpdate five = StripeUpdate.removing(StripeUpdateTest.stripe(), Set.of(100L, 101L, 102L, 103L, 104L));
    UpdateChoice c = UpdateChoice.of(five, new BaselineUpdate(), Set.of(), CHAIN);
    assertTrue(c.reEncodes(), c.delta().describe() + "\n" + c.reEncode().describe());
  }

  @Test
  void theReEncodingRunsOnlyTheTreesOfTheRewrittenParitiesAndDeliversOnlyThem() {
    // Unit 1 leaves: globals 6, 7 and group 0's local parity 8 are rewritten; group 1's local parity 9 stays.
    StripeUpdate up = StripeUpdate.removing(StripeUpdateTest.stripe(), Set.of(101L));
    EncodePlan p = UpdateChoice.of(up, new RackCu(), Set.of(101L), CHAIN).reEncode();
    Set<Integer> rows = new TreeSet<>();
    p.trees().forEach(t -> Arrays.stream(t.rows()).forEach(rows::add));
    assertEquals(Set.of(6, 7, 8), rows);
    assertTrue(p.deliveries().stream().allMatch(d -> d.parity() != 9));
    assertFalse(p.trees().stream().anyMatch(t -> t.steps().stream().anyMatch(s -> s.unit() == 1)),
        "the removed unit is read by no tree");
    assertEquals(up.nextUnitLength(), p.unitBytes());
  }

  @Test
  void aDroppedStripeHasNoReEncoding() {
    StripeUpdate up = StripeUpdate.removing(StripeUpdateTest.stripe(), Set.of(100L, 101L, 102L, 103L, 104L, 105L));
    UpdateChoice c = UpdateChoice.of(up, new RackCu(), Set.of(), CHAIN);
    assertNull(c.reEncode());
    assertFalse(c.reEncodes());
  }

  @Test
  void aReEncodingSchemeIsRunAsTheChain() {
    StripeUpdate up = StripeUpdate.removing(StripeUpdateTest.stripe(), Set.of(101L));
    UpdateChoice c = UpdateChoice.of(up, new ReEncoding(), Set.of(), CHAIN);
    assertTrue(c.reEncodes());
    assertEquals("the reencode scheme re-encodes the stripe", c.reason());
  }

  @Test
  void holdersOrTargetsOtherThanTheKeptDataAndRewrittenParitiesAreRefused() {
    StripeUpdate up = StripeUpdate.removing(StripeUpdateTest.stripe(), Set.of(101L));
    java.util.Map<Integer, org.wideec.topology.Site> holders = new java.util.HashMap<>();
    for (int u : new int[] {0, 1, 2, 3, 4, 5}) {
      holders.put(u, new org.wideec.topology.Site("dn" + u, "/r" + u / 3));
    }
    java.util.Map<Integer, org.wideec.topology.Site> targets = java.util.Map.of(6,
        new org.wideec.topology.Site("dn6", "/r0"), 7, new org.wideec.topology.Site("dn7", "/r1"), 8,
        new org.wideec.topology.Site("dn8", "/r2"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> UpdateChoice.reEncoding(up, holders, targets, CHAIN, 4096, 1 << 20));
    assertEquals("stripe 3: re-encoding reads data units [0, 2, 3, 4, 5] and writes parities [6, 7, 8], given"
        + " holders of [0, 1, 2, 3, 4, 5] and targets of [6, 7, 8]", e.getMessage());
  }

  @Test
  void storingAParityThatIsNoRowOfThePlanIsRefused() {
    StripeUpdate up = StripeUpdate.removing(StripeUpdateTest.stripe(), Set.of(101L));
    EncodePlan p = UpdateChoice.of(up, new RackCu(), Set.of(101L), CHAIN).reEncode();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.storing(Set.of(9)));
    assertTrue(e.getMessage().contains("parities [9] are not all rows of the plan (rows [6, 7, 8])"), e.getMessage());
  }

  /**
   * The update model ({@link UpdateChooser} on the stripe's pattern) and the updater's choice price one re-encoding
   * and decide alike on every layout: RS(6,3) under combined locality (data in two racks of three, the parities in a
   * third) with every way of splitting the data units between the two racks and every set of removed units, since the
   * archiver gives units to blocks by where the blocks were, not in rack order.
   */
  @Test
  void theModelAndTheUpdatersChoiceAgreeWhicheverDataUnitsShareARack() {
    String rs = "rs:k=6,m=3";
    org.wideec.code.LinearCode code = org.wideec.code.Codes.pinnedFromSpec(rs);
    for (int mask = 0; mask < 64; mask++) {
      if (Integer.bitCount(mask) != 3) {
        continue;
      }
      java.util.List<StripeMember> members = new java.util.ArrayList<>();
      for (int u = 0; u < 6; u++) {
        String rack = (mask >> u & 1) == 1 ? "/r0" : "/r1";
        members.add(StripeMember.data(100 + u, 5000 + u, 1, 4096, "dn" + u, rack).withCrc(u));
      }
      for (int u = 6; u < 9; u++) {
        members.add(new StripeMember(code.role(u), false, 200 + u, 6000 + u, 1, 4096, u, "dn" + u, "/r2"));
      }
      ArchivedStripe stripe = new ArchivedStripe(3, rs, 1, StripeState.TRIMMED, "/.wideec/parity/9/3", 300, members);
      for (int removed = 1; removed < 63; removed++) {
        Set<Long> inodes = new TreeSet<>();
        for (int u = 0; u < 6; u++) {
          if ((removed >> u & 1) == 1) {
            inodes.add(100L + u);
          }
        }
        StripeUpdate up = StripeUpdate.removing(stripe, inodes);
        UpdateChoice c = UpdateChoice.of(up, new RackCu(), Set.of(), CHAIN);
        boolean model = new UpdateChooser(new RackCu()).choose(up.pattern()).scheme().equals("reencode");
        assertEquals(model, c.reEncodes(), "data in /r0: " + Integer.toBinaryString(mask) + ", removed "
            + inodes + ": " + up.pattern() + "\n" + c.delta().describe() + "\n" + c.reEncode().describe());
      }
    }
  }
}
