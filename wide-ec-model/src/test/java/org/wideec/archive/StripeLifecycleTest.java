package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.wideec.archive.StripeLifecycle.Step;
import org.wideec.code.Codes;

/** The one stripe lifecycle: the same steps and checks for the systematic and the non-systematic layout. */
class StripeLifecycleTest {
  @Test
  void aRunStepsEachStateForwardAndAResumeRollsBackEveryUnverifiedEncoding() {
    assertEquals(Step.ENCODE, StripeLifecycle.next(StripeState.PLANNED));
    assertEquals(Step.ROLL_BACK, StripeLifecycle.next(StripeState.ENCODING));
    assertEquals(Step.VERIFY, StripeLifecycle.next(StripeState.PARITY_WRITTEN));
    assertEquals(Step.COMMIT, StripeLifecycle.next(StripeState.VERIFIED));
    assertEquals(Step.TAKE_EFFECT, StripeLifecycle.next(StripeState.COMMITTED));
    assertEquals(Step.TAKE_EFFECT, StripeLifecycle.next(StripeState.TRIMMED));
    assertEquals(Step.NONE, StripeLifecycle.next(StripeState.STALE));
    assertEquals(Step.ROLL_BACK, StripeLifecycle.resume(StripeState.PARITY_WRITTEN));
    assertEquals(Step.ROLL_BACK, StripeLifecycle.resume(StripeState.ENCODING));
    for (StripeState s : List.of(StripeState.PLANNED, StripeState.VERIFIED, StripeState.COMMITTED,
        StripeState.TRIMMED, StripeState.STALE)) {
      assertEquals(StripeLifecycle.next(s), StripeLifecycle.resume(s), s.toString());
    }
  }

  @Test
  void everyStepTheLifecycleTakesIsATransitionOfTheStateMachine() {
    assertTrue(StripeState.ENCODING.canBecome(StripeState.PLANNED));
    assertTrue(StripeState.PARITY_WRITTEN.canBecome(StripeState.PLANNED));
    assertTrue(StripeState.PLANNED.canBecome(StripeState.ENCODING));
    assertTrue(StripeState.PARITY_WRITTEN.canBecome(StripeState.VERIFIED));
    assertTrue(StripeState.VERIFIED.canBecome(StripeState.COMMITTED));
    assertTrue(StripeState.COMMITTED.canBecome(StripeState.TRIMMED));
  }

  @Test
  void aRecordThatSkipsTheCommitIsRefusedForBothLayouts() {
    for (StripeManifest m : List.of(ManifestFixtures.golden(), SealedManifestTest.sealed())) {
      ArchivedStripe verified = m.stripes().stream().filter(s -> s.state() == StripeState.VERIFIED).findFirst()
          .orElseThrow();
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> StripeLifecycle.record(m, recordedAs(verified, StripeState.TRIMMED)));
      assertTrue(e.getMessage().startsWith("stripe " + verified.stripeId() + ": VERIFIED -> TRIMMED is not a"),
          e.getMessage());
      assertEquals(StripeState.COMMITTED, StripeLifecycle.record(m, verified.withState(StripeState.COMMITTED))
          .stripe(verified.stripeId()).state());
    }
  }

  @Test
  void aResumeWithAnotherCodeIsRefusedNamingTheRecordedOne() {
    StripeManifest m = SealedManifestTest.sealed();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> StripeLifecycle.checkResumable(m, "rapidraid:n=12,k=6", "/cold/f", "/m"));
    assertEquals("/cold/f is already being archived with rapidraid:n=8,k=4 (manifest /m, stripe 0); rerun with"
        + " --code rapidraid:n=8,k=4 to resume it", e.getMessage());
    StripeLifecycle.checkResumable(m, "rapidraid:n=8,k=4", "/cold/f", "/m");
  }

  @Test
  void aFileTakesEffectOnlyOnceEveryStripeOfItIsCommitted() {
    StripeManifest m = ManifestFixtures.golden(); // stripe 7 VERIFIED (inodes 16386, 16387), 8 PLANNED (16388)
    assertFalse(StripeLifecycle.mayTakeEffect(m, 16386));
    StripeManifest committed = m.with(m.stripe(7).withState(StripeState.COMMITTED));
    assertTrue(StripeLifecycle.mayTakeEffect(committed, 16386));
    assertTrue(StripeLifecycle.mayTakeEffect(committed, 16387));
    assertFalse(StripeLifecycle.mayTakeEffect(committed, 16388));
    assertFalse(StripeLifecycle.mayTakeEffect(committed, 99999));
    assertFalse(StripeLifecycle.allCommitted(committed));
  }

  @Test
  void unitsGoOnlyWhileTheDataStillHasEveryReplica() {
    for (StripeState s : List.of(StripeState.PLANNED, StripeState.ENCODING, StripeState.PARITY_WRITTEN,
        StripeState.VERIFIED)) {
      assertTrue(StripeLifecycle.unitsMayGo(StripeLayout.SYSTEMATIC, s, false), s.toString());
    }
    assertFalse(StripeLifecycle.unitsMayGo(StripeLayout.SYSTEMATIC, StripeState.COMMITTED, false));
    assertFalse(StripeLifecycle.unitsMayGo(StripeLayout.SYSTEMATIC, StripeState.TRIMMED, false));
    assertTrue(StripeLifecycle.unitsMayGo(StripeLayout.NON_SYSTEMATIC, StripeState.COMMITTED, false));
    assertFalse(StripeLifecycle.unitsMayGo(StripeLayout.NON_SYSTEMATIC, StripeState.COMMITTED, true));
  }

  @Test
  void aSealedManifestWithAStripeBeforeVerifiedIsNotTrusted() {
    StripeManifest m = SealedManifestTest.sealed(); // stripe 0 VERIFIED, stripe 1 PLANNED
    assertEquals("/cold/f is sealed, but its manifest /m records stripe 1 as PLANNED; nothing was changed. Run"
        + " wide-ec fsck /cold/f (its reader's index holds a copy of the manifest)",
        StripeLifecycle.onlyCopyUnverified(m, "/cold/f", "/m"));
    StripeManifest verified = new StripeManifest(m.archivedPath(), m.scope(), List.of(m.stripe(0)));
    assertNull(StripeLifecycle.onlyCopyUnverified(verified, "/cold/f", "/m"));
  }

  @Test
  void theLayoutFollowsTheCode() {
    assertEquals(StripeLayout.SYSTEMATIC, StripeLayout.of(Codes.pinnedFromSpec(ManifestFixtures.LRC)));
    assertEquals(StripeLayout.NON_SYSTEMATIC, StripeLayout.of(Codes.pinnedFromSpec(SealedManifestTest.RR)));
    assertEquals(StripeLayout.SYSTEMATIC, StripeLayout.of(ManifestFixtures.golden().stripe(7)));
    assertEquals(StripeLayout.NON_SYSTEMATIC, StripeLayout.of(SealedManifestTest.sealed().stripe(0)));
    assertTrue(StripeLayout.NON_SYSTEMATIC.changeStalesEveryStripe());
    assertFalse(StripeLayout.SYSTEMATIC.changeStalesEveryStripe());
  }

  /** The stripe with another recorded state, built directly (no transition check): what a bad record would say. */
  private static ArchivedStripe recordedAs(ArchivedStripe s, StripeState state) {
    return new ArchivedStripe(s.stripeId(), s.codeSpec(), s.codeFormatVersion(), state, s.parityFilePath(),
        s.parityFileInode(), s.members(), s.sources());
  }
}
