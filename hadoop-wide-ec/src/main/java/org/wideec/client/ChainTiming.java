package org.wideec.client;

/**
 * Where a chain's time went, for the read-path counters and the DEBUG log: finding the helpers' slice ports and
 * planning, then until the chain's end sent the first slice (every hop's connection set-up and one slice through
 * every hop: the chain's fill, ECPipe §3.2), then the rest of the range.
 *
 * @param helpers helpers of the attempt that delivered (the chain's hops)
 * @param attempts attempts it took (a restart without a helper to blame is a second)
 * @param setupNanos slice-port look-ups and planning
 * @param firstSliceNanos from the start until the first slice of the delivering attempt arrived
 * @param totalNanos from the start until the last slice arrived
 */
record ChainTiming(int helpers, int attempts, long setupNanos, long firstSliceNanos, long totalNanos) {
  void countInto(ReadPathCounters c) {
    c.chainsTimed.incrementAndGet();
    c.chainSetupMicros.addAndGet(setupNanos / 1000);
    c.chainFirstSliceMicros.addAndGet(firstSliceNanos / 1000);
    c.chainMicros.addAndGet(totalNanos / 1000);
    c.chainHops.addAndGet(helpers);
  }

  @Override
  public String toString() {
    return helpers + " helpers, " + attempts + " attempt(s), set-up " + millis(setupNanos) + " ms, first slice after "
        + millis(firstSliceNanos) + " ms, done after " + millis(totalNanos) + " ms";
  }

  private static String millis(long nanos) {
    return String.format("%.1f", nanos / 1e6);
  }
}
