package org.wideec.placement.hdfs;

/**
 * Units of our block groups still held only on leaving DataNodes, counted over whole laps of the walk over the
 * leaving nodes' blocks ({@link LeavingNodeUnits}): a pass walks a stretch of them, so one pass's count is only
 * part of a node. Until the first lap ends, the count so far (it only grows); after, the last whole lap's count, or
 * the lap under way's once it is larger (a node that started leaving since). Not thread-safe: the monitor's thread.
 */
final class LeavingUnitCount {
  private long lap;
  private long lastLap = -1;

  /** A stretch of the walk counted these units; {@code lapEnded}: it reached the end of the last leaving node. */
  void walked(long units, boolean lapEnded) {
    lap += units;
    if (lapEnded) {
      lastLap = lap;
      lap = 0;
    }
  }

  /** No DataNode leaves: nothing is left, and the next walk starts a first lap. */
  void reset() {
    lap = 0;
    lastLap = -1;
  }

  long left() {
    return lastLap < 0 ? lap : Math.max(lastLap, lap);
  }
}
