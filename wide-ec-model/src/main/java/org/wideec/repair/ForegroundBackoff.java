package org.wideec.repair;

/**
 * How much of its background cap a DataNode uses while users read and write it: additive increase, multiplicative
 * decrease (AIMD, as TCP shares a link). Each sample of the node's foreground throughput at or above
 * {@code busyBytesPerSecond} halves the factor, down to {@code floor} (repairs never stop: a group may be one loss
 * from data loss); each sample below it adds {@code step} back, up to 1. A burst of users is answered within one
 * sample; the cap comes back over 1 / step quiet samples, so an on-off load does not make background traffic swing
 * from nothing to everything. Plain state machine: the caller samples (with its own clock) and applies
 * {@link #factor()} to its cap; not thread-safe (one sampler).
 */
public final class ForegroundBackoff {
  /** The decrease on a busy sample. */
  static final double DECREASE = 0.5;
  private final long busyBytesPerSecond;
  private final double floor;
  private final double step;
  private double factor = 1;

  /**
   * @param busyBytesPerSecond foreground throughput at or above which the node counts as busy; 0: never backs off
   * @param floor the least factor, in (0, 1]
   * @param step what a quiet sample adds back, in (0, 1]
   */
  public ForegroundBackoff(long busyBytesPerSecond, double floor, double step) {
    if (busyBytesPerSecond < 0 || !(floor > 0 && floor <= 1) || !(step > 0 && step <= 1)) {
      throw new IllegalArgumentException("a foreground back-off needs busy >= 0 bytes/s, floor and step in (0, 1], not "
          + busyBytesPerSecond + ", " + floor + ", " + step);
    }
    this.busyBytesPerSecond = busyBytesPerSecond;
    this.floor = floor;
    this.step = step;
  }

  /**
   * One sample: {@code foregroundBytes} served to users over {@code elapsedNanos}. Returns the new factor. A sample
   * over no time (or a clock that went back) changes nothing.
   */
  public double sample(long foregroundBytes, long elapsedNanos) {
    if (busyBytesPerSecond == 0 || elapsedNanos <= 0) {
      return factor;
    }
    double rate = Math.max(0, foregroundBytes) * 1e9 / elapsedNanos;
    factor = rate >= busyBytesPerSecond ? Math.max(floor, factor * DECREASE) : Math.min(1, factor + step);
    return factor;
  }

  /** The share of the cap background traffic may use now, in [floor, 1]. */
  public double factor() {
    return factor;
  }

  public boolean enabled() {
    return busyBytesPerSecond > 0;
  }
}
