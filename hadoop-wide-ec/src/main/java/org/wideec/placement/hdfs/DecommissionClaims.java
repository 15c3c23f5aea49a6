package org.wideec.placement.hdfs;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Which units on leaving DataNodes our decommission rebuilds, so HDFS does not copy them meanwhile. HDFS's
 * decommission queues every block of a leaving node for redundancy work and, for a striped group whose every unit is
 * present, copies the unit from the leaving node (and so does it for a block whose only replica is there); the
 * placement policies ask here before choosing a target for such work and choose none while we claim the unit, so
 * the RedundancyMonitor leaves it queued (HDFS retries an unscheduled block every cycle, no patch needed). A unit we
 * could not rebuild, or whose plan says only the leaving node has it, is given back for a while: HDFS then copies it
 * as it always did. Read from NameNode threads (the RedundancyMonitor): every method is a lookup that cannot throw.
 */
public final class DecommissionClaims {
  private static volatile boolean active;
  private static volatile Runnable wake = () -> { };
  /** Archived blocks (data and parity of protected stripes) as of the last repair pass, sorted. */
  private static volatile long[] archived = new long[0];
  /** Block groups and archived blocks given back to HDFS, until when (System.nanoTime). */
  private static final Map<Long, Long> returned = new ConcurrentHashMap<>();

  private DecommissionClaims() {}

  /** Our decommission runs (the archive repair monitor with wide-ec.decommission.enabled); {@code wake} runs it soon. */
  static void start(Runnable wakeMonitor) {
    returned.clear();
    wake = wakeMonitor;
    active = true;
  }

  static void stop() {
    active = false;
    wake = () -> { };
    archived = new long[0];
  }

  /** The archived blocks the repair monitor found in its last pass, sorted. */
  static void archivedBlocks(long[] sorted) {
    archived = sorted;
  }

  /** HDFS copies this group's or block's leaving units for the next {@code ms}, as it always did. */
  static void giveBack(long id, long ms) {
    returned.put(id, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms));
  }

  /** Whether HDFS copies this group's or block's leaving units now. */
  static boolean givenBack(long id) {
    Long until = returned.get(id);
    if (until == null) {
      return false;
    }
    if (System.nanoTime() - until < 0) {
      return true;
    }
    returned.remove(id, until);
    return false;
  }

  /**
   * Whether our decommission rebuilds the leaving units of this block group of our codecs; when it does, the repair
   * monitor is woken, so it gets to them before HDFS's next cycle asks again.
   */
  public static boolean claimsGroup(long groupId) {
    boolean ours = active && !givenBack(groupId);
    if (ours) {
      wake.run();
    }
    return ours;
  }

  /** Whether our decommission rebuilds this archived block, whose live replicas are all on leaving nodes. */
  public static boolean claimsArchivedBlock(long blockId) {
    boolean ours = active && Arrays.binarySearch(archived, blockId) >= 0 && !givenBack(blockId);
    if (ours) {
      wake.run();
    }
    return ours;
  }
}
