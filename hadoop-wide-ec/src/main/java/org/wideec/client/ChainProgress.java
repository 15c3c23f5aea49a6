package org.wideec.client;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * How far one degraded read's chain has got, and when the hedge that may race it with direct decode fires. The chain
 * is judged from when its helpers were asked, not from its first slice: a chain queued behind the repair of the same
 * unit on the same helpers spends that queue before its first slice, and a pace taken from the first slice leaves the
 * queue out (a chain whose first slice came late looks fast) or rests on a single slice. It is given the grace
 * ({@code wide-ec.client.degraded-read.hedge.ms}: connection set-up, the chain's fill, a queue's worth of waiting), and
 * then the time its bytes need at the pace the path allows ({@link RangePace}): after the grace, every byte that has
 * arrived buys the time the path needs for it, so a chain keeping the path's pace is never raced, and one that falls
 * behind it (or delivers nothing) is raced as soon as it does. With no pace known the hedge fires when the grace ends.
 * Before its helpers are asked (it is still finding their slice ports) the grace runs from the read's start.
 *
 * <p>Direct decode beside a chain that is delivering would add one range per helper to the uplinks the chain uses,
 * slowing both, which is why a chain that keeps pace is left to finish. Times are {@code clock}'s (System.nanoTime in
 * the FileSystem), so the rule is tested with any clock. Written by the chain's thread, read by the reader's.
 */
final class ChainProgress {
  private final LongSupplier clock;
  private final long startedAt;
  private final long graceNanos;
  private final AtomicLong arrived = new AtomicLong();
  private volatile long length = -1;
  private volatile long askedAt;
  private volatile long expectedNanos;
  private volatile boolean asked;

  /** A read starting now whose chain gets {@code graceNanos} (> 0) before it must keep the path's pace. */
  ChainProgress(LongSupplier clock, long graceNanos) {
    this.clock = clock;
    this.startedAt = clock.getAsLong();
    this.graceNanos = graceNanos;
  }

  /**
   * The chain's helpers are being asked for {@code bytes} (set-up done), which the path moves in
   * {@code expectedNanos} at the pace it allows (0: not known). Its time runs from now, through any restart.
   */
  void asked(long bytes, long expectedNanos) {
    this.length = bytes;
    this.expectedNanos = Math.max(0, expectedNanos);
    arrived.set(0);
    this.askedAt = clock.getAsLong();
    this.asked = true;
  }

  /** {@code bytes} more arrived at {@code offset} of the range; a new attempt's first slice counts from zero again. */
  void arrived(long offset, long bytes) {
    if (offset == 0) {
      arrived.set(0);
    }
    arrived.addAndGet(bytes);
  }

  /** Whether the helpers were asked: a chain overtaken before that was held up finding them, not queued on them. */
  boolean helpersAsked() {
    return asked;
  }

  /**
   * The clock value at which direct decode should race the chain unless it has answered: the end of the grace plus
   * the time the path needs for the bytes that arrived (so it moves later with every slice that keeps the pace);
   * {@link Long#MAX_VALUE} once every byte is in (the chain is answering).
   */
  long hedgeAt() {
    if (!asked) {
      return startedAt + graceNanos;
    }
    long total = length;
    long a = arrived.get();
    if (total > 0 && a >= total) {
      return Long.MAX_VALUE;
    }
    long graceEnds = askedAt + graceNanos;
    long expected = expectedNanos;
    if (expected == 0 || total <= 0) {
      return graceEnds;
    }
    return graceEnds + (long) ((double) a / total * expected);
  }

  /** Whether the chain is still being waited for after its grace ended at {@code nowNanos}, for keeping the pace. */
  boolean keptPastGrace(long nowNanos) {
    long at = hedgeAt();
    return asked && nowNanos - (askedAt + graceNanos) >= 0 && (at == Long.MAX_VALUE || nowNanos - at < 0);
  }
}
