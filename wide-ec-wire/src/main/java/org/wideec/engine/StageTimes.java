package org.wideec.engine;

import java.util.function.LongSupplier;

/**
 * Where one stage of a pipeline spent its time (a helper's step, ECPipe §3.2): how long it queued for a helper
 * thread, when its upstreams were ready and its first slice left, and how long it waited for its upstreams' slices,
 * read its disk, computed and waited to send (the consumer's credits, the background caps). A chain runs at the pace
 * of its slowest hop; the hop that waited least for its upstream and most to send sits just before the bottleneck, the
 * one that waited most for its upstream just after it. Read from the helpers' log lines, not guessed from timestamps.
 */
final class StageTimes {
  private final LongSupplier clock;
  private final long asked;
  private final long start;
  private long ready = -1;
  private long firstSent = -1;
  private static final int UPSTREAM = 0;
  private static final int DISK = 1;
  private static final int COMPUTE = 2;
  private static final int SEND = 3;
  private final long[] nanos = new long[4];

  /** @param askedNanos when the request arrived (System.nanoTime), or -1 when unknown */
  StageTimes(long askedNanos) {
    this(askedNanos, System::nanoTime);
  }

  /** @param clock nanoseconds, as System.nanoTime */
  StageTimes(long askedNanos, LongSupplier clock) {
    this.clock = clock;
    this.start = clock.getAsLong();
    this.asked = askedNanos < 0 ? start : askedNanos;
  }

  /** Now, on this stage's clock: where the next timed part starts. */
  long now() {
    return clock.getAsLong();
  }

  /** The stage's upstreams are asked and its local units open. */
  void ready() {
    ready = clock.getAsLong();
  }

  /** Adds the nanoseconds since {@code from} to waiting for (and adding) upstream slices; returns now. */
  long upstream(long from) {
    return spent(UPSTREAM, from);
  }

  long disk(long from) {
    return spent(DISK, from);
  }

  long compute(long from) {
    return spent(COMPUTE, from);
  }

  private long spent(int part, long from) {
    long now = clock.getAsLong();
    nanos[part] += now - from;
    return now;
  }

  /** Adds the time since {@code from} to sending a slice; the first send marks the first slice out. */
  long sent(long from) {
    long now = spent(SEND, from);
    if (firstSent < 0) {
      firstSent = now;
    }
    return now;
  }

  /** For the step's log line, in milliseconds. */
  String describe() {
    long end = clock.getAsLong();
    return "queued " + ms(start - asked) + " ms, ready at " + at(ready) + ", first slice out at " + at(firstSent)
        + ", done at " + at(end) + "; waited for upstreams " + ms(nanos[UPSTREAM]) + " ms, read "
        + ms(nanos[DISK]) + ", computed " + ms(nanos[COMPUTE]) + ", waited to send " + ms(nanos[SEND]);
  }

  private String at(long t) {
    return t < 0 ? "-" : String.valueOf(ms(t - asked));
  }

  private static long ms(long nanos) {
    return nanos / 1_000_000;
  }
}
