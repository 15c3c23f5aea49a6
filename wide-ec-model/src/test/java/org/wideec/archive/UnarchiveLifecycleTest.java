package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.wideec.archive.UnarchiveLifecycle.Found;
import org.wideec.archive.UnarchiveLifecycle.Step;

/** The way back of an archive: one order of steps for both layouts, and what a rerun resumes at. */
class UnarchiveLifecycleTest {
  @Test
  void anArchiveIsRestoredWaitedForReleasedFreedAndForgottenInThatOrder() {
    assertEquals(List.of(Step.RESTORE, Step.WAIT, Step.RELEASE, Step.FREE, Step.FORGET),
        UnarchiveLifecycle.steps(Found.ARCHIVED));
    assertEquals(List.of(Step.values()), UnarchiveLifecycle.steps(Found.ARCHIVED));
  }

  @Test
  void aRerunAfterTheOwnCopyWasRestoredWaitsForItAgainBeforeFreeingAnything() {
    assertEquals(List.of(Step.WAIT, Step.RELEASE, Step.FREE, Step.FORGET), UnarchiveLifecycle.steps(Found.RESTORED));
  }

  @Test
  void anOrphanPointerGetsItsReplicasBackAndNothingIsFreedForIt() {
    assertEquals(List.of(Step.RESTORE, Step.WAIT, Step.RELEASE), UnarchiveLifecycle.steps(Found.ORPHAN_POINTER));
    assertEquals(List.of(), UnarchiveLifecycle.steps(Found.NOT_ARCHIVED));
  }

  @Test
  void everyStepTakenInOrderPassesItsCheck() {
    for (Found found : Found.values()) {
      EnumSet<Step> done = EnumSet.noneOf(Step.class);
      for (Step s : UnarchiveLifecycle.steps(found)) {
        UnarchiveLifecycle.checkMayRun(s, done, "/a");
        done.add(s);
      }
    }
  }

  @Test
  void nothingIsReleasedOrFreedBeforeTheOwnCopyWasWaitedFor() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> UnarchiveLifecycle.checkMayRun(Step.FREE, EnumSet.of(Step.RESTORE), "/a"));
    assertEquals("unarchive /a: FREE before WAIT is refused: nothing is released or freed before the file's own copy"
        + " is whole and durable", e.getMessage());
    e = assertThrows(IllegalStateException.class,
        () -> UnarchiveLifecycle.checkMayRun(Step.RELEASE, EnumSet.of(Step.RESTORE), "/a"));
    assertTrue(e.getMessage().startsWith("unarchive /a: RELEASE before WAIT"), e.getMessage());
  }

  @Test
  void theUnitsNeverGoWhileTheLayoutStillPointsAtThemAndTheManifestGoesLast() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> UnarchiveLifecycle.checkMayRun(Step.FREE, EnumSet.of(Step.WAIT), "/a"));
    assertTrue(e.getMessage().startsWith("unarchive /a: FREE before RELEASE"), e.getMessage());
    e = assertThrows(IllegalStateException.class,
        () -> UnarchiveLifecycle.checkMayRun(Step.FORGET, EnumSet.of(Step.WAIT, Step.RELEASE), "/a"));
    assertTrue(e.getMessage().startsWith("unarchive /a: FORGET before FREE"), e.getMessage());
    e = assertThrows(IllegalStateException.class,
        () -> UnarchiveLifecycle.checkMayRun(Step.WAIT, EnumSet.of(Step.RESTORE, Step.WAIT), "/a"));
    assertEquals("unarchive /a: WAIT is already done in this run", e.getMessage());
  }

  @Test
  void onlyTheStepsAfterTheWaitChangeTheArchivesRecordsAndNeedItsLock() {
    assertFalse(Step.RESTORE.changesArchive());
    assertFalse(Step.WAIT.changesArchive());
    assertTrue(Step.RELEASE.changesArchive());
    assertTrue(Step.FREE.changesArchive());
    assertTrue(Step.FORGET.changesArchive());
  }
}
