package org.wideec.time;

/**
 * Paces a stream of bytes to a rate: each {@link #acquire} reserves its bytes' share of time after the reservations
 * before it and waits until that share starts, so concurrent readers of one disk share its rate and a burst after an
 * idle spell is at most one second's worth. Thread-safe.
 */
public final class ByteRate {
  private final long bytesPerSecond;
  private long nextFreeNanos = System.nanoTime();

  /** @param bytesPerSecond 0 or less: no pacing */
  public ByteRate(long bytesPerSecond) {
    this.bytesPerSecond = bytesPerSecond;
  }

  public long bytesPerSecond() {
    return bytesPerSecond;
  }

  /** Waits until {@code bytes} more fit the rate. */
  public void acquire(long bytes) throws InterruptedException {
    if (bytesPerSecond <= 0 || bytes <= 0) {
      return;
    }
    long wait;
    synchronized (this) {
      long now = System.nanoTime();
      // Idle time earns at most one second of credit.
      long start = Math.max(nextFreeNanos, now - 1_000_000_000L);
      nextFreeNanos = start + bytes * 1_000_000_000L / bytesPerSecond;
      wait = start - now;
    }
    if (wait > 0) {
      Thread.sleep(wait / 1_000_000L, (int) (wait % 1_000_000L));
    }
  }
}
