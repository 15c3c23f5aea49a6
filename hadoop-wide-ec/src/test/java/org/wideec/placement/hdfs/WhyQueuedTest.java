package org.wideec.placement.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Why a queued Azure-LRC(6,2,2) group (10 units) is queued, from the NameNode's counts of its replicas. */
class WhyQueuedTest {
  private static final int UNITS = 10;

  @Test
  void aGroupWithEveryUnitLiveAndNothingElseIsQueuedOnlyForItsRacksAndIsNotSeen() {
    WhyQueued why = WhyQueued.of(UNITS, UNITS, 0, 0, 0, 0, 0, false);
    assertEquals(WhyQueued.RACKS, why);
    assertFalse(why.seen());
  }

  @Test
  void aGroupWithOnlyLostUnitsBesideItsRacksIsOursToRebuildAndSeen() {
    assertEquals(WhyQueued.LOST_UNITS, WhyQueued.of(UNITS, UNITS - 1, 1, 0, 0, 0, 0, false));
    assertEquals(WhyQueued.LOST_UNITS, WhyQueued.of(UNITS, UNITS - 4, 4, 0, 0, 0, 0, false), "a rack's loss");
    assertEquals(WhyQueued.LOST_UNITS, WhyQueued.of(8, 7, 1, 0, 0, 0, 0, false),
        "a short group counts only its real units");
    assertTrue(WhyQueued.LOST_UNITS.seen());
  }

  @Test
  void aCorruptStaleLeavingOrInMaintenanceReplicaLeavesTheGroupToHdfsWithOrWithoutALostUnit() {
    for (int lost = 0; lost <= 1; lost++) {
      int live = UNITS - 1 - lost;
      assertEquals(WhyQueued.HDFS_WORK, WhyQueued.of(UNITS, live, lost, 1, 0, 0, 0, false), "corrupt, lost " + lost);
      assertEquals(WhyQueued.HDFS_WORK, WhyQueued.of(UNITS, live + 1, lost, 0, 1, 0, 0, false), "stale, lost " + lost);
      assertEquals(WhyQueued.HDFS_WORK, WhyQueued.of(UNITS, live, lost, 0, 0, 1, 0, false), "leaving, lost " + lost);
      assertEquals(WhyQueued.HDFS_WORK, WhyQueued.of(UNITS, live, lost, 0, 0, 0, 1, false),
          "in maintenance, lost " + lost);
      assertEquals(WhyQueued.HDFS_WORK, WhyQueued.of(UNITS, live, lost, 0, 0, 0, 0, false),
          "a unit neither live nor lost (on a failed storage), lost " + lost);
    }
    assertTrue(WhyQueued.HDFS_WORK.seen());
  }

  @Test
  void aGroupHdfsReconstructsAlreadyIsHdfssWhateverItsCounts() {
    assertEquals(WhyQueued.HDFS_WORK, WhyQueued.of(UNITS, UNITS, 0, 0, 0, 0, 0, true), "a copy to a new rack pending");
    assertEquals(WhyQueued.HDFS_WORK, WhyQueued.of(UNITS, UNITS - 1, 1, 0, 0, 0, 0, true), "a reconstruction pending");
  }
}
