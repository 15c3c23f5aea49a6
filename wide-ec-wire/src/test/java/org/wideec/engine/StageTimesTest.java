package org.wideec.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class StageTimesTest {
  private static final long MS = 1_000_000;

  /**
   * A hop that queued 5 ms for a thread, took 40 ms to ask its upstream, then read, computed, waited for its upstream
   * and to send slice by slice: its line gives each part's sum and when it was ready, sent first and ended, all from
   * the request's arrival.
   */
  @Test
  void aStepsLineSumsEachPartFromTheRequestsArrival() {
    AtomicLong now = new AtomicLong(1_000 * MS);
    StageTimes t = new StageTimes(995 * MS, now::get);
    now.addAndGet(40 * MS);
    t.ready();
    for (int slice = 0; slice < 3; slice++) {
      long from = t.now();
      now.addAndGet(2 * MS);
      from = t.disk(from);
      now.addAndGet(1 * MS);
      from = t.compute(from);
      now.addAndGet(10 * MS);
      from = t.upstream(from);
      now.addAndGet(20 * MS);
      t.sent(from);
    }
    assertEquals("queued 5 ms, ready at 45, first slice out at 78, done at 144; waited for upstreams 30 ms, read 6,"
        + " computed 3, waited to send 60", t.describe());
  }

  /** A step that failed before it was ready or sent anything says so, and one with no arrival time queued 0 ms. */
  @Test
  void aStepThatNeverSentSaysSo() {
    AtomicLong now = new AtomicLong(7 * MS);
    StageTimes t = new StageTimes(-1, now::get);
    now.addAndGet(3 * MS);
    assertEquals("queued 0 ms, ready at -, first slice out at -, done at 3; waited for upstreams 0 ms, read 0,"
        + " computed 0, waited to send 0", t.describe());
  }
}
