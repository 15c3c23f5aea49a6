package org.wideec.placement.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LeavingUnitCountTest {
  @Test
  void aNodeWalkedOverThreePassesCountsTheUnitsOfAllThreeStretches() {
    LeavingUnitCount c = new LeavingUnitCount();
    c.walked(1000, false);
    assertEquals(1000, c.left(), "the first lap so far");
    c.walked(1000, false);
    c.walked(500, true);
    assertEquals(2500, c.left(), "the whole node, not the last stretch");
    c.walked(400, false);
    assertEquals(2500, c.left(), "the last whole lap while the next one is under way");
    c.walked(0, true);
    assertEquals(400, c.left(), "the units rebuilt meanwhile are gone from the next whole lap");
  }

  @Test
  void aLapUnderWayThatAlreadyCountsMoreThanTheLastShowsItsCount() {
    LeavingUnitCount c = new LeavingUnitCount();
    c.walked(10, true);
    c.walked(30, false); // a second node started leaving
    assertEquals(30, c.left());
    c.reset();
    assertEquals(0, c.left());
  }
}
