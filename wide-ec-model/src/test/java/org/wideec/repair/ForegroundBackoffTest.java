package org.wideec.repair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ForegroundBackoffTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void eachBusySampleHalvesTheShareDownToTheFloor() {
    ForegroundBackoff b = new ForegroundBackoff(100, 0.1, 0.25);
    assertEquals(0.5, b.sample(100, SECOND), 1e-9);
    assertEquals(0.25, b.sample(1000, SECOND), 1e-9);
    assertEquals(0.125, b.sample(200, 2 * SECOND), 1e-9, "100 B/s over two seconds is busy too");
    assertEquals(0.1, b.sample(500, SECOND), 1e-9, "never below the floor: repairs keep going");
    assertEquals(0.1, b.sample(500, SECOND), 1e-9);
  }

  @Test
  void quietSamplesBringTheShareBackStepByStepToFull() {
    ForegroundBackoff b = new ForegroundBackoff(100, 0.1, 0.25);
    b.sample(1000, SECOND);
    b.sample(1000, SECOND);
    assertEquals(0.25, b.factor(), 1e-9);
    assertEquals(0.5, b.sample(99, SECOND), 1e-9);
    assertEquals(0.75, b.sample(0, SECOND), 1e-9);
    assertEquals(1.0, b.sample(50, SECOND), 1e-9);
    assertEquals(1.0, b.sample(50, SECOND), 1e-9, "never above the configured cap");
  }

  @Test
  void capsFollowTheFactorAndTheRackShare() {
    BackgroundCaps caps = new BackgroundCaps(1000, 900);
    assertEquals(250, caps.nodeCap(0.25));
    assertEquals(300, caps.rackShare(3));
    assertEquals(900, caps.rackShare(0), "a node that finds no live node in its rack takes the whole cap");
    assertEquals(0, BackgroundCaps.NONE.nodeCap(0.1), "no cap stays no cap");
    assertEquals(0, BackgroundCaps.NONE.rackShare(3));
  }

  @Test
  void withoutABusyThresholdNothingBacksOffAndBadSamplesChangeNothing() {
    ForegroundBackoff off = new ForegroundBackoff(0, 0.1, 0.25);
    assertEquals(1.0, off.sample(Long.MAX_VALUE / 2, 1), 1e-9);
    ForegroundBackoff b = new ForegroundBackoff(100, 0.1, 0.25);
    assertEquals(1.0, b.sample(1_000_000, 0), 1e-9, "a sample over no time");
    assertEquals(1.0, b.sample(1_000_000, -5), 1e-9, "a clock that went back");
    assertThrows(IllegalArgumentException.class, () -> new ForegroundBackoff(100, 0, 0.25));
    assertThrows(IllegalArgumentException.class, () -> new BackgroundCaps(-1, 0));
  }
}
