package org.wideec.datanode;

import java.util.List;

/**
 * How one NameNode reconstruction task of our codecs ended on this DataNode: which path finished it (or that
 * none did), for which block group, units and targets. The worker logs each one and keeps the recent ones
 * ({@link RepairMetrics#recentOutcomes()}).
 *
 * @param blockGroupId the block group's id (internal block ids are this plus the unit index)
 * @param units the units the task was to rebuild, in the order of {@code targets}; empty when they could not
 *     be worked out
 * @param targets transfer addresses the units went (or were to go) to
 * @param attempts repair attempts our worker made (0 when it never started one)
 * @param excludedHelpers helpers blamed for a failed attempt and left out of the next
 * @param detail why the task took this route
 */
public record ReconstructionOutcome(long blockGroupId, List<Integer> units, List<String> targets, Route route,
    int attempts, List<String> excludedHelpers, String detail) {

  /** Who finished the task. */
  public enum Route {
    /** Our worker rebuilt every unit, stored it at its target and the target confirmed its CRC. */
    OUR_WORKER,
    /** Our worker gave up (wide-ec.repair.fallback-to-stock) and HDFS's reconstructor ran the task. */
    HANDED_TO_STOCK,
    /**
     * Nobody here finished it: the DataNode is shutting down, or fallback is off. The NameNode gives the
     * units new targets when its pending-reconstruction timeout expires.
     */
    ABANDONED
  }

  public ReconstructionOutcome {
    units = List.copyOf(units);
    targets = List.copyOf(targets);
    excludedHelpers = List.copyOf(excludedHelpers);
  }
}
