package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.wideec.archive.UpdateLifecycle.Found;
import org.wideec.archive.UpdateLifecycle.State;
import org.wideec.archive.UpdateLifecycle.Step;

/** A parity update's one order of steps, what a rerun resumes at, and the grace period before freeing. */
class UpdateLifecycleTest {
  @Test
  void pendingRemovalsArePlannedWrittenVerifiedCommittedAndFreedInThatOrder() {
    assertEquals(List.of(Step.PLAN, Step.WRITE_PARITY, Step.VERIFY, Step.COMMIT, Step.FREE),
        UpdateLifecycle.steps(new Found(false, true, false)));
    assertEquals(List.of(State.PLANNED, State.PARITY_WRITTEN, State.VERIFIED, State.COMMITTED, State.FREED),
        UpdateLifecycle.steps(new Found(false, true, false)).stream().map(Step::reaches).toList());
  }

  @Test
  void aCrashBeforeTheCommitIsRolledBackAndThenPlannedAgain() {
    assertEquals(List.of(Step.ROLL_BACK, Step.PLAN, Step.WRITE_PARITY, Step.VERIFY, Step.COMMIT, Step.FREE),
        UpdateLifecycle.steps(new Found(true, true, false)));
  }

  @Test
  void aCrashAfterTheCommitOnlyFreesWhatTheOldVersionUsed() {
    assertEquals(List.of(Step.FREE), UpdateLifecycle.steps(new Found(false, false, true)));
    assertEquals(List.of(), UpdateLifecycle.steps(new Found(false, false, false)));
  }

  @Test
  void everyStepTakenInOrderPassesItsCheck() {
    for (int bits = 0; bits < 8; bits++) {
      Found found = new Found((bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0);
      EnumSet<Step> done = EnumSet.noneOf(Step.class);
      State state = null;
      for (Step s : UpdateLifecycle.steps(found)) {
        UpdateLifecycle.checkMayRun(s, done, found.uncommitted(), "/a");
        if (state != null && s.reaches() != null) {
          state.checkTransition(s.reaches(), "/a");
        }
        state = s.reaches() != null ? s.reaches() : state;
        done.add(s);
      }
    }
  }

  @Test
  void nothingIsCommittedUnverifiedNorWrittenUnplanned() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> UpdateLifecycle.checkMayRun(Step.COMMIT, EnumSet.of(Step.PLAN, Step.WRITE_PARITY), false, "/a"));
    assertEquals("update of /a: COMMIT before VERIFY is refused: a stripe's parity switches only to new blocks that"
        + " were written and verified, in one commit", e.getMessage());
    e = assertThrows(IllegalStateException.class,
        () -> UpdateLifecycle.checkMayRun(Step.WRITE_PARITY, EnumSet.noneOf(Step.class), false, "/a"));
    assertTrue(e.getMessage().startsWith("update of /a: WRITE_PARITY before PLAN"), e.getMessage());
  }

  @Test
  void aNewVersionIsNotPlannedOverUncommittedLeftovers() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> UpdateLifecycle.checkMayRun(Step.PLAN, EnumSet.noneOf(Step.class), true, "/a"));
    assertTrue(e.getMessage().startsWith("update of /a: PLAN before ROLL_BACK"), e.getMessage());
  }

  @Test
  void aRunThatPlannedFreesOnlyAfterItsCommit() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> UpdateLifecycle.checkMayRun(Step.FREE, EnumSet.of(Step.PLAN, Step.WRITE_PARITY, Step.VERIFY), false,
            "/a"));
    assertTrue(e.getMessage().startsWith("update of /a: FREE before COMMIT"), e.getMessage());
    UpdateLifecycle.checkMayRun(Step.FREE, EnumSet.noneOf(Step.class), false, "/a"); // a rerun after a commit
  }

  @Test
  void statesOnlyMoveForwardOneStep() {
    assertTrue(State.PLANNED.canBecome(State.PARITY_WRITTEN));
    assertFalse(State.PLANNED.canBecome(State.VERIFIED));
    assertFalse(State.COMMITTED.canBecome(State.PLANNED));
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> State.PARITY_WRITTEN.checkTransition(State.COMMITTED, "/a"));
    assertTrue(e.getMessage().contains("PARITY_WRITTEN -> COMMITTED"), e.getMessage());
  }

  @Test
  void supersededUnitsAreFreedOnlyOnceTheGracePeriodHasPassed() {
    assertFalse(UpdateLifecycle.freeDue(1_000, 1_999, 1_000));
    assertTrue(UpdateLifecycle.freeDue(1_000, 2_000, 1_000));
    assertTrue(UpdateLifecycle.freeDue(1_000, 1_000, 0));
    assertThrows(IllegalArgumentException.class, () -> UpdateLifecycle.freeDue(0, 0, -1));
  }
}
