package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.code.UnitRole;

/** What removing members does to a stripe: which parities are rewritten, shrink or vanish, and how it is verified. */
class StripeUpdateTest {
  static final String LRC = "azure-lrc:k=6,l=2,g=2"; // data 0-5 (groups 0-2 and 3-5), globals 6-7, locals 8-9

  /** A committed stripe: data unit u of inode 100 + u, all 4096 bytes long but unit 5 (1000). */
  static ArchivedStripe stripe() {
    LinearCode code = Codes.pinnedFromSpec(LRC);
    List<StripeMember> members = new ArrayList<>();
    for (int u = 0; u < code.k(); u++) {
      members.add(StripeMember.data(100 + u, 5000 + u, 1, u == 5 ? 1000 : 4096, "dn" + u, "/r" + u / 3)
          .withCrc(u));
    }
    for (int u = code.k(); u < code.n(); u++) {
      members.add(new StripeMember(code.role(u), false, 200 + u, 6000 + u, 1, 4096, u, "dn" + u, "/r" + (u % 3)));
    }
    return new ArchivedStripe(3, LRC, 1, StripeState.TRIMMED, "/.wideec/parity/9/3", 300, members);
  }

  @Test
  void theRolesAreAsThisTestAssumes() {
    LinearCode code = Codes.pinnedFromSpec(LRC);
    assertEquals(UnitRole.GLOBAL_PARITY, code.role(6));
    assertEquals(UnitRole.LOCAL_PARITY, code.role(8));
    assertEquals(0, code.generator().get(9, 0)); // the second local parity does not cover unit 0
  }

  @Test
  void removingOneUnitRewritesTheGlobalsAndItsGroupsLocalParityOnly() {
    StripeUpdate up = StripeUpdate.removing(stripe(), Set.of(101L));
    assertArrayEquals(new int[] {1}, up.removedUnits());
    assertArrayEquals(new int[] {6, 7, 8}, up.rewrittenParities());
    assertArrayEquals(new int[0], up.vanishingParities());
    assertEquals(4096, up.nextUnitLength());
    assertFalse(up.dropsStripe());
  }

  @Test
  void aGroupWithNoDataLeftLosesItsLocalParity() {
    StripeUpdate up = StripeUpdate.removing(stripe(), Set.of(103L, 104L, 105L));
    assertArrayEquals(new int[] {6, 7}, up.rewrittenParities());
    assertArrayEquals(new int[] {9}, up.vanishingParities());
  }

  @Test
  void aGroupWithNoDataLeftIsPlannedWithoutItsLocalParityUnderEveryStreamedScheme() {
    StripeUpdate up = StripeUpdate.removing(stripe(), Set.of(103L, 104L, 105L));
    org.wideec.update.UpdatePattern p = up.pattern();
    assertArrayEquals(new int[] {9}, p.droppedParities());
    assertArrayEquals(new int[] {3, 4, 5}, p.changed());
    for (String name : List.of("baseline", "cau", "rackcu")) {
      org.wideec.update.UpdateRoles roles =
          org.wideec.update.UpdateRoles.of(org.wideec.update.UpdateScheme.byName(name).plan(p));
      assertArrayEquals(up.rewrittenParities(), roles.rewrittenParities(), name);
    }
  }

  @Test
  void aUnitReadInAnotherRackIsPlannedThereAndItsDeltaCrossesFromIt() {
    StripeUpdate up = StripeUpdate.removing(stripe(), Set.of(101L)); // unit 1, planned in /r0 with units 0 and 2
    org.wideec.update.UpdatePattern planned = up.pattern();
    assertEquals("/r0", planned.rackName(planned.rackOf(1)));
    org.wideec.update.UpdatePattern read = up.pattern(java.util.Map.of(1, "/elsewhere"));
    assertEquals("/elsewhere", read.rackName(read.rackOf(1)));
    assertEquals("/r0", read.rackName(read.rackOf(0)));
    org.wideec.update.UpdateScheme rackcu = org.wideec.update.UpdateScheme.byName("rackcu");
    // Its delta now leaves a rack with no parity: one more chunk crosses racks than the manifest's racks say.
    assertEquals(rackcu.plan(planned).crossRackChunks() + 1, rackcu.plan(read).crossRackChunks());
  }

  @Test
  void removingEveryLongestBlockShrinksEveryStoredParity() {
    StripeUpdate up = StripeUpdate.removing(stripe(), Set.of(100L, 101L, 102L, 103L, 104L));
    assertEquals(1000, up.nextUnitLength());
    assertArrayEquals(new int[] {6, 7, 9}, up.rewrittenParities()); // 8 covers no data any more
    assertArrayEquals(new int[] {8}, up.vanishingParities());
  }

  @Test
  void removingEveryDataUnitDropsTheStripe() {
    StripeUpdate up = StripeUpdate.removing(stripe(), Set.of(100L, 101L, 102L, 103L, 104L, 105L));
    assertTrue(up.dropsStripe());
    assertArrayEquals(new int[0], up.rewrittenParities());
  }

  @Test
  void theNextStripeHasTheNewBlocksAndStaysInItsState() {
    StripeUpdate up = StripeUpdate.removing(stripe(), Set.of(103L, 104L, 105L));
    ArchivedStripe next = up.next(written(up));
    assertEquals(StripeState.TRIMMED, next.state());
    assertTrue(next.member(4).padding());
    assertTrue(next.member(9).padding());
    assertEquals(7006, next.member(6).blockId());
    assertEquals(4096, next.unitLength());
    assertEquals(next.member(8), stripe().member(8));
  }

  @Test
  void aNewBlockMissingOrForAnotherUnitIsRefused() {
    StripeUpdate up = StripeUpdate.removing(stripe(), Set.of(101L));
    Map<Integer, StripeMember> w = written(up);
    w.remove(8);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> up.next(w));
    assertTrue(e.getMessage().contains("the update rewrites units [6, 7, 8]"), e.getMessage());
  }

  @Test
  void aStripeWithoutTheInodesIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> StripeUpdate.removing(stripe(), Set.of(999L)));
    assertTrue(e.getMessage().contains("stripe 3 holds no data block of inodes [999]"), e.getMessage());
  }

  @Test
  void everyVerificationSetIsKIndependentUnitsAndTogetherTheyHoldEveryRewrittenParity() {
    for (Set<Long> removed : List.of(Set.of(101L), Set.of(103L, 104L, 105L), Set.of(100L, 101L, 102L, 103L, 104L),
        Set.of(100L, 103L))) {
      StripeUpdate up = StripeUpdate.removing(stripe(), removed);
      ArchivedStripe next = up.next(written(up));
      LinearCode code = next.code();
      for (long seed = 0; seed < 50; seed++) {
        Set<Integer> covered = new HashSet<>();
        for (int[] set : up.verificationSets(next, new Random(seed))) {
          List<Integer> rows = new ArrayList<>();
          for (int u = 0; u < code.k(); u++) {
            if (next.member(u).padding()) {
              rows.add(u);
            }
          }
          for (int u : set) {
            assertFalse(next.member(u).padding(), "unit " + u + " is stored");
            rows.add(u);
            covered.add(u);
          }
          assertEquals(code.k(), rows.size(), removed + ": " + java.util.Arrays.toString(set));
          assertEquals(code.k(), code.generator().selectRows(rows.stream().mapToInt(Integer::intValue).toArray())
              .rank(), removed + ": " + java.util.Arrays.toString(set));
        }
        for (int p : up.rewrittenParities()) {
          assertTrue(covered.contains(p), removed + ": parity " + p + " verified");
        }
      }
    }
  }

  /** New blocks for the rewritten parities: ids 7000 + unit, the next unit length. */
  static Map<Integer, StripeMember> written(StripeUpdate up) {
    Map<Integer, StripeMember> w = new HashMap<>();
    for (int u : up.rewrittenParities()) {
      StripeMember old = up.before().member(u);
      w.put(u, new StripeMember(old.role(), false, 400 + u, 7000 + u, 2, up.nextUnitLength(), 77, old.plannedNode(),
          old.plannedRack()));
    }
    return w;
  }
}
