package org.wideec.client;

import java.util.concurrent.atomic.AtomicLong;

/**
 * How far one degraded read's chain has got, for the hedge that may race it with direct decode: whether its helpers
 * were asked yet (before that it is still finding their slice ports), and the bytes that arrived since its first
 * slice. A chain that is delivering moves the range once over each rack uplink it crosses, where direct decode would
 * move one range per helper (the local group's six for Azure-LRC 12+2+2) over the same uplinks; racing it then only
 * slows both, so a chain that keeps delivering and at its pace finishes within the next hedge delay is left to
 * finish. Times are the caller's clock (System.nanoTime), so the rule is tested with any clock. Written by the chain's
 * thread, read by the reader's ({@link #onTrack} by that one thread only).
 */
final class ChainProgress {
  private final AtomicLong arrived = new AtomicLong();
  private volatile long length = -1;
  private volatile long firstSliceAt;
  private volatile boolean asked;
  private volatile boolean askedWhenRaced;
  /** Bytes arrived at the last {@link #onTrack} look. */
  private long seen;

  /** The chain's helpers are being asked for {@code bytes} (set-up done); a restarted attempt asks again. */
  void asked(long bytes) {
    length = bytes;
    arrived.set(0);
    asked = true;
  }

  /** {@code bytes} more arrived at {@code nowNanos}; a new attempt's first slice starts the pace again. */
  void arrived(long offset, long bytes, long nowNanos) {
    if (offset == 0) {
      firstSliceAt = nowNanos;
      arrived.set(0);
    }
    arrived.addAndGet(bytes);
  }

  /** Direct decode starts beside the chain now: remembers whether the chain had asked its helpers by then. */
  void raced() {
    askedWhenRaced = asked;
  }

  /**
   * Whether the helpers had been asked when direct decode started beside the chain: a chain overtaken that had not
   * was held up before them (finding their slice ports, starting the client's transport), not queued on them, and
   * says nothing about how busy they are.
   */
  boolean askedBeforeRace() {
    return askedWhenRaced;
  }

  /**
   * Whether the chain delivered bytes since the last look and, at its pace since its first slice, delivers the rest
   * within {@code withinNanos} of {@code nowNanos}. False for a chain that delivered nothing since the last look
   * (stuck: a helper stalled mid-range, or not started).
   */
  boolean onTrack(long nowNanos, long withinNanos) {
    long a = arrived.get();
    long total = length;
    boolean moved = a > seen;
    seen = a;
    if (!moved || total <= 0) {
      return false;
    }
    if (a >= total) {
      return true;
    }
    long spent = Math.max(1, nowNanos - firstSliceAt);
    return (double) (total - a) * spent / a <= withinNanos;
  }
}
