package org.wideec.transport;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.wideec.time.TokenBucket;

/**
 * A node's background caps as its slice transport applies them: every background slice takes its bytes from the
 * node's bucket, and a cross-rack one from the bucket of the node's share of its rack's uplink too. A wait sleeps at
 * most {@link #MAX_SLEEP_NANOS} before asking again, so a cap an operator raises or lowers governs the very next
 * slices, also of threads already waiting. Senders wait their turn first come, first served (a fair lock: the one
 * at its head sleeps for the tokens, the others queue behind it), so no stream is starved by luckier polling. No
 * slice waits longer than the sender's bound (below the consumer's stall timeout): one that would goes at once, the
 * buckets emptied, and counts as an overrun; a stream is never given up and resent for a cap. Counts what it let
 * through (the cap's own account, compared in tests with the bytes the transport counted), how often and how long
 * senders waited, and the overruns.
 */
public final class CappedBackground implements BackgroundThrottle {
  static final long MAX_SLEEP_NANOS = 100_000_000L;
  /** A bucket holds a tenth of a second of its rate (at least one byte). */
  static final long BURST_DIVISOR = 10;
  private final TokenBucket node;
  private final TokenBucket rack;
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong crossRackBytes = new AtomicLong();
  private final AtomicLong waits = new AtomicLong();
  private final AtomicLong waitNanos = new AtomicLong();
  private final AtomicLong overruns = new AtomicLong();
  private final ReentrantLock turn = new ReentrantLock(true);

  /** Caps of 0 bytes per second: none. */
  public CappedBackground(long nodeBytesPerSecond, long rackShareBytesPerSecond) {
    node = new TokenBucket(nodeBytesPerSecond, burst(nodeBytesPerSecond), System::nanoTime);
    rack = new TokenBucket(rackShareBytesPerSecond, burst(rackShareBytesPerSecond), System::nanoTime);
  }

  static long burst(long bytesPerSecond) {
    return Math.max(1, bytesPerSecond / BURST_DIVISOR);
  }

  /** Sets both caps for the next slices (0: none). */
  public void set(long nodeBytesPerSecond, long rackShareBytesPerSecond) {
    node.setRate(nodeBytesPerSecond, burst(nodeBytesPerSecond));
    rack.setRate(rackShareBytesPerSecond, burst(rackShareBytesPerSecond));
  }

  @Override
  public void acquire(int n, boolean crossRack, long maxWaitNanos) throws InterruptedException {
    long start = System.nanoTime();
    long waited = 0;
    boolean overrun = false;
    boolean mine = turn.tryLock();
    boolean queuedBehind = !mine;
    if (!mine) {
      mine = turn.tryLock(Math.max(0, maxWaitNanos), TimeUnit.NANOSECONDS);
    }
    try {
      // The node's bucket first, then the rack's: bytes taken from one are never returned, so the pair's account
      // stays exact (a slice waits on the rack's share with the node's bytes already spent).
      for (TokenBucket b : crossRack ? new TokenBucket[] {node, rack} : new TokenBucket[] {node}) {
        for (long wait; (wait = b.tryTake(n)) > 0; ) {
          long left = maxWaitNanos - (System.nanoTime() - start);
          if (!mine || left <= 0) {
            b.takeAnyway(n);
            overrun = true;
            break;
          }
          long sleep = Math.min(Math.min(wait, MAX_SLEEP_NANOS), left);
          Thread.sleep(sleep / 1_000_000L, (int) (sleep % 1_000_000L));
          waited += sleep;
        }
      }
    } finally {
      if (mine) {
        turn.unlock();
      }
    }
    if (queuedBehind || waited > 0 || overrun) {
      waits.incrementAndGet();
      waitNanos.addAndGet(System.nanoTime() - start);
    }
    if (overrun) {
      overruns.incrementAndGet();
    }
    bytes.addAndGet(n);
    if (crossRack) {
      crossRackBytes.addAndGet(n);
    }
  }

  public TokenBucket node() {
    return node;
  }

  public TokenBucket rackShare() {
    return rack;
  }

  /** Background bytes sent under the caps since start, and those that crossed racks. */
  public long bytes() {
    return bytes.get();
  }

  public long crossRackBytes() {
    return crossRackBytes.get();
  }

  /** Slices that had to wait for a cap, and the time they waited, since start. */
  public long waits() {
    return waits.get();
  }

  public long waitNanos() {
    return waitNanos.get();
  }

  /** Slices sent without their bytes because they had waited as long as their stream could, since start. */
  public long overruns() {
    return overruns.get();
  }
}
