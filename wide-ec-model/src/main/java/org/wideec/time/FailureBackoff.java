package org.wideec.time;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * When to try again each thing whose last attempt failed (a block's rebuild, a block's move): the first wait after a
 * failure is {@code firstMs}, each further failure doubles it up to {@code maxMs}, and a success forgets the thing. So
 * one thing that keeps failing costs an attempt per {@code maxMs}, not one per pass. Safe to use from several threads
 * (the attempts run in workers, the passes read it).
 */
public final class FailureBackoff<K> {
  /** When the next attempt may start (System.nanoTime) and the wait that led there. */
  private record Wait(long dueNanos, long ms) {}

  private final long firstMs;
  private final long maxMs;
  private final Map<K, Wait> waits = new ConcurrentHashMap<>();

  public FailureBackoff(long firstMs, long maxMs) {
    // A cap below the first wait caps the waits after it (the first stays as configured).
    if (firstMs <= 0 || maxMs <= 0) {
      throw new IllegalArgumentException("a failure backoff needs positive waits, not " + firstMs + ", " + maxMs);
    }
    this.firstMs = firstMs;
    this.maxMs = maxMs;
  }

  /** Whether {@code key} failed and its wait has not passed yet. */
  public boolean waiting(K key) {
    Wait w = waits.get(key);
    return w != null && System.nanoTime() - w.dueNanos() < 0;
  }

  /** Records a failure of {@code key}; returns the wait before its next attempt, in ms. */
  public long failed(K key) {
    Wait prev = waits.get(key);
    long next = prev == null ? firstMs : Math.min(maxMs, prev.ms() * 2);
    waits.put(key, new Wait(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(next), next));
    return next;
  }

  /** Forgets {@code key}'s failures: it worked. */
  public void succeeded(K key) {
    waits.remove(key);
  }
}
