package org.wideec.time;

import java.util.function.LongSupplier;

/**
 * A token bucket over bytes: tokens accrue at {@code bytesPerSecond} up to {@code burstBytes}, and a take succeeds
 * when the bucket holds the bytes, or, for a take larger than the whole burst, when the bucket is full (it then goes
 * into debt, so one slice bigger than the burst is never refused for good). So over any interval the bytes taken are
 * at most rate x interval plus one burst plus one oversized take. The rate can change at any moment: tokens earned so
 * far stay, the next ones accrue at the new rate. It keeps its own account ({@link #takenBytes()}, {@link
 * #earnedBytes()}), which a test compares with the bytes a transport counted. A rate of 0 is no limit. Plain Java with
 * an injected clock (System::nanoTime in production), so the rules are tested without waiting; thread-safe.
 */
public final class TokenBucket {
  private final LongSupplier clock;
  private long bytesPerSecond;
  private long burstBytes;
  private double tokens;
  private long lastNanos;
  /** Bytes taken, and bytes the bucket allowed (its first burst, every token accrued, takes while unlimited). */
  private long taken;
  private double earned;

  /**
   * @param bytesPerSecond 0 or less: no limit
   * @param burstBytes the most tokens the bucket holds (it starts full)
   * @param clock nanoseconds, monotonic
   */
  public TokenBucket(long bytesPerSecond, long burstBytes, LongSupplier clock) {
    if (burstBytes < 1) {
      throw new IllegalArgumentException("a token bucket needs a burst of at least one byte, not " + burstBytes);
    }
    this.clock = clock;
    this.bytesPerSecond = Math.max(0, bytesPerSecond);
    this.burstBytes = burstBytes;
    this.tokens = burstBytes;
    this.earned = burstBytes;
    this.lastNanos = clock.getAsLong();
  }

  public synchronized long bytesPerSecond() {
    return bytesPerSecond;
  }

  public synchronized long burstBytes() {
    return burstBytes;
  }

  /**
   * Changes the rate (and burst) from now on: what accrued until now accrued at the old rate. A bucket that was
   * unlimited starts the new rate full.
   */
  public synchronized void setRate(long newBytesPerSecond, long newBurstBytes) {
    if (newBurstBytes < 1) {
      throw new IllegalArgumentException("a token bucket needs a burst of at least one byte, not " + newBurstBytes);
    }
    refill();
    bytesPerSecond = Math.max(0, newBytesPerSecond);
    burstBytes = newBurstBytes;
    tokens = Math.min(tokens, burstBytes);
  }

  /**
   * Takes {@code bytes} if the bucket allows them now and returns 0; otherwise takes nothing and returns the
   * nanoseconds until it will (at the current rate).
   */
  public synchronized long tryTake(long bytes) {
    if (bytes <= 0) {
      return 0;
    }
    if (bytesPerSecond <= 0) {
      taken += bytes;
      earned += bytes; // no limit: whatever is taken was allowed
      return 0;
    }
    refill();
    if (tokens >= bytes || (bytes > burstBytes && tokens >= burstBytes)) {
      tokens -= bytes;
      taken += bytes;
      return 0;
    }
    double missing = Math.min(bytes, burstBytes) - tokens;
    return Math.max(1, (long) Math.ceil(missing * 1e9 / bytesPerSecond));
  }

  /**
   * Takes {@code bytes} whatever the bucket holds (a sender that may wait no longer): the bucket is left empty, so
   * the next takes wait for fresh tokens, and the bytes beyond what it held count as taken but never earned.
   */
  public synchronized void takeAnyway(long bytes) {
    if (bytes <= 0) {
      return;
    }
    if (bytesPerSecond <= 0) {
      taken += bytes;
      earned += bytes;
      return;
    }
    refill();
    tokens = Math.max(0, tokens - bytes);
    taken += bytes;
  }

  /** Bytes taken since start. */
  public synchronized long takenBytes() {
    return taken;
  }

  /**
   * Bytes the bucket allowed since start: its first burst, what accrued at each rate in force (up to now), and what
   * was taken while it had no limit. Taken bytes never exceed this plus one take larger than the burst.
   */
  public synchronized long earnedBytes() {
    refill();
    return (long) earned;
  }

  private void refill() {
    long now = clock.getAsLong();
    long elapsed = now - lastNanos;
    lastNanos = now;
    if (elapsed <= 0 || bytesPerSecond <= 0) {
      return;
    }
    double add = Math.min(burstBytes - tokens, elapsed * (double) bytesPerSecond / 1e9);
    if (add > 0) {
      tokens += add;
      earned += add;
    }
  }
}
