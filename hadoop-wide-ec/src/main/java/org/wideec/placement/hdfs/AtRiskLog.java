package org.wideec.placement.hdfs;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.code.RemainingTolerance;

/**
 * Reports block groups whose true remaining tolerance is 0 or less, once per group per ten minutes, from wherever
 * the NameNode side first sees them: the placement of their repair (at once, as the RedundancyMonitor schedules
 * it) or the plugin's scan of the low-redundancy queue (groups waiting for a target).
 */
public final class AtRiskLog {
  private static final Logger LOG = LoggerFactory.getLogger(AtRiskLog.class);
  private static final long REPEAT_NANOS = 10L * 60 * 1_000_000_000L;
  private static final ConcurrentHashMap<Long, Long> LAST = new ConcurrentHashMap<>();

  private AtRiskLog() {}

  /** Forgets what was reported: block ids belong to one namespace, and a NameNode (re)starting has its own. */
  static void reset() {
    LAST.clear();
  }

  /** Logs and counts the group unless it was reported within ten minutes; never throws. */
  public static void report(long groupId, String file, String policy, int[] lost, RemainingTolerance remaining) {
    if (remaining.value() > 0) {
      return;
    }
    long now = System.nanoTime();
    Long prior = LAST.get(groupId);
    if (prior != null && now - prior < REPEAT_NANOS) {
      return;
    }
    LAST.put(groupId, now);
    if (LAST.size() > 100_000) {
      LAST.entrySet().removeIf(e -> now - e.getValue() >= REPEAT_NANOS);
    }
    // Data lost is an error; a group one loss from it (as expected while a rack is down) is a warning: it still
    // reads, and its reconstruction is queued at HDFS's highest priority.
    if (remaining.dataLost()) {
      LOG.error("block group blk_{} of {} ({}) has lost units {}: its survivors no longer decode: DATA LOST", groupId,
          file, policy, Arrays.toString(lost));
    } else {
      LOG.warn("block group blk_{} of {} ({}) has lost units {}: one more loss of the wrong unit loses data (HDFS"
          + " counts it as readable)", groupId, file, policy, Arrays.toString(lost));
    }
    WideEcNameNodeMetrics m = WideEcNameNodePlugin.metrics();
    if (m != null) {
      (remaining.dataLost() ? m.groupsLostReported : m.groupsAtRiskReported).incr();
    }
  }
}
