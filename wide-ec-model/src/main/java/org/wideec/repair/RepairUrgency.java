package org.wideec.repair;

import java.util.Comparator;
import org.wideec.code.LinearCode;
import org.wideec.code.RemainingTolerance;

/**
 * Which queued repair goes first: the group with the least remaining tolerance (ECWide and HDFS alike repair the
 * group closest to data loss first; HDFS's LowRedundancyBlocks counts parities, which overstates an LRC's margin, so
 * the margin here is the code's own, {@link RemainingTolerance}). Among equals, the one queued first. A group that
 * has already lost data cannot be repaired by anyone and goes last, so it delays no repair that can still succeed.
 *
 * @param tolerance more units the group can lose (-1: data already lost)
 * @param sequence the order it was queued in
 */
public record RepairUrgency(int tolerance, long sequence) {
  /** Most urgent first. */
  public static final Comparator<RepairUrgency> MOST_URGENT_FIRST = Comparator
      .comparingInt((RepairUrgency u) -> u.tolerance < 0 ? Integer.MAX_VALUE : u.tolerance)
      .thenComparingLong(RepairUrgency::sequence);

  public static RepairUrgency of(RemainingTolerance t, long sequence) {
    return new RepairUrgency(t.value(), sequence);
  }

  /**
   * For a stripe too wide to check every loss pattern on each pass (an archived stripe of up to 255 units): the losses
   * its code provably survives less the units it is missing, a lower bound of its margin; 0 when the code states no
   * bound, so such a stripe is never put behind one that has a margin for certain.
   */
  public static RepairUrgency guaranteed(LinearCode code, int missing, long sequence) {
    int g = code.guaranteedTolerance();
    return new RepairUrgency(g < 0 ? 0 : Math.max(0, g - missing), sequence);
  }
}
