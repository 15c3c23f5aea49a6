package org.wideec.time;

import java.io.InterruptedIOException;
import java.util.concurrent.TimeUnit;

/**
 * The pauses of a wait for something nobody announces (a replica the NameNode lists, a file it can complete, a lease
 * it recovered): the first pause is short, since the answer usually comes within a heartbeat or two, and each next
 * one doubles up to a cap, so a long wait costs whoever is asked one call per cap. An optional bound says when the
 * waiter gives up; what giving up means (an error, a partial result) is the caller's. Plain Java: the same pauses
 * serve the NameNode's threads, the archiver's client and the tests.
 */
public final class Backoff {
  /** The NameNode poll's cap: a long wait costs the NameNode one call a second. */
  public static final long NAMENODE_MAX_PAUSE_MS = 1000;

  private final long maxPauseMs;
  private final long startNanos;
  private final long boundNanos; // Long.MAX_VALUE: no bound
  private long pauseMs;

  private Backoff(long firstPauseMs, long maxPauseMs, long boundMs) {
    if (firstPauseMs <= 0 || maxPauseMs < firstPauseMs) {
      throw new IllegalArgumentException("a backoff needs 0 < first pause <= max pause, not "
          + firstPauseMs + ", " + maxPauseMs + " ms");
    }
    // A negative bound (a wait setting of -1, say) is no bound left: look once, then report, as the waits it
    // replaced did; it must not throw into the NameNode's passes that read those settings.
    boundMs = Math.max(0, boundMs);
    this.pauseMs = firstPauseMs;
    this.maxPauseMs = maxPauseMs;
    this.startNanos = System.nanoTime();
    this.boundNanos = boundMs >= TimeUnit.NANOSECONDS.toMillis(Long.MAX_VALUE) ? Long.MAX_VALUE
        : TimeUnit.MILLISECONDS.toNanos(boundMs);
  }

  /** A poll of the NameNode: {@code firstPauseMs}, doubling to a second, given up after {@code boundMs}. */
  public static Backoff pollingNameNode(long firstPauseMs, long boundMs) {
    return new Backoff(firstPauseMs, Math.max(firstPauseMs, NAMENODE_MAX_PAUSE_MS), boundMs);
  }

  /** A poll of the NameNode with no bound (the caller counts its tries). */
  public static Backoff pollingNameNode(long firstPauseMs) {
    return pollingNameNode(firstPauseMs, Long.MAX_VALUE);
  }

  /** Pauses from {@code firstPauseMs} doubling to {@code maxPauseMs} (equal: a fixed pause), bounded by {@code boundMs}. */
  public static Backoff doubling(long firstPauseMs, long maxPauseMs, long boundMs) {
    return new Backoff(firstPauseMs, maxPauseMs, boundMs);
  }

  /** Whether the bound has passed: the caller stops waiting once it has looked one last time. */
  public boolean expired() {
    return boundNanos != Long.MAX_VALUE && System.nanoTime() - startNanos - boundNanos > 0;
  }

  /** Milliseconds since this poll began. */
  public long elapsedMs() {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }

  /** The pause the next {@link #pause()} waits. */
  long nextPauseMs() {
    return pauseMs;
  }

  /** Waits the current pause, then doubles it up to the cap. */
  public void pause() throws InterruptedException {
    Thread.sleep(pauseMs);
    pauseMs = Math.min(maxPauseMs, pauseMs * 2);
  }

  /**
   * {@link #pause()} for callers that speak IOException: an interrupt ends the wait with {@code interrupted} as the
   * error, the thread's interrupt flag set again.
   */
  public void pause(String interrupted) throws InterruptedIOException {
    try {
      pause();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException(interrupted);
    }
  }
}
