package org.wideec.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A background slice waits for its caps no longer than its sender's bound (half the consumer's stall timeout): one
 * the caps could not let through in time goes anyway, counted as an overrun, rather than stalling its stream into a
 * retry that resends every byte.
 */
class CappedBackgroundTest {
  @Test
  void aSliceTheCapCannotPassWithinItsBoundGoesAnywayAsAnOverrun() throws Exception {
    CappedBackground caps = new CappedBackground(1000, 0); // a burst of 100 bytes; 50 000 bytes take 50 s
    caps.acquire(100, false, TimeUnit.SECONDS.toNanos(1));
    caps.acquire(50_000, false, TimeUnit.MILLISECONDS.toNanos(50));
    assertEquals(1, caps.overruns());
    assertEquals(1, caps.waits());
    assertEquals(50_100, caps.bytes());
    assertEquals(50_100, caps.node().takenBytes(), "the overrun's bytes count as taken");
  }

  @Test
  void aSliceTheCapPassesWithinItsBoundWaitsForItsBytes() throws Exception {
    CappedBackground caps = new CappedBackground(1_000_000, 1_000_000); // bursts of 100 000 bytes
    caps.acquire(100_000, true, TimeUnit.SECONDS.toNanos(10));
    caps.acquire(10_000, true, TimeUnit.SECONDS.toNanos(10)); // ten milliseconds of tokens, on each bucket
    assertEquals(0, caps.overruns());
    assertEquals(1, caps.waits());
    assertEquals(110_000, caps.crossRackBytes());
    assertEquals(110_000, caps.rackShare().takenBytes());
  }
}
