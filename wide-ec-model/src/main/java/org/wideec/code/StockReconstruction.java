package org.wideec.code;

import java.util.BitSet;

/**
 * HDFS's own DataNode reconstructor as a rule over a code (DESIGN.md §2): what a striped block group's repair reads
 * when no wide-ec worker takes the task (the DataNode plugin is off, or the task is handed back to HDFS).
 *
 * <p>The NameNode lists a task's sources in internal-block index order: {@code BlockManager#chooseSourceDatanodes}
 * walks the group's storages, which {@code BlockInfoStriped} keeps at the slot of their index, and leaves out
 * corrupt and excess replicas and, unless the group is at the highest priority, replicas on DataNodes at their
 * replication-stream limit ({@code dfs.namenode.replication.max-streams}). The DataNode's {@code StripedReader}
 * then reads the first {@code min(cells, k)} sources it can open, in that order, moving to the next source only when
 * one fails to open or read, and hands exactly those to the raw decoder, together with zeros for the data units past
 * the end of a short group. HDFS assumes MDS codes, where any such set decodes; for an LRC it can be rank-deficient
 * (Azure-LRC 6+2+2 losing units 3, 5 and 6 reads 0, 1, 2, 4, G2 and L1, and L1 adds nothing to 0, 1, 2). The
 * decoder then refuses the inputs, the task fails, and the NameNode sends the same sources again after every
 * pending-reconstruction timeout: the group is never rebuilt without our worker.
 *
 * <p>Every survivor is assumed readable and not busy; a survivor the NameNode or the reader skips is passed in
 * {@code skipped}, and the next unit in index order takes its place.
 */
public final class StockReconstruction {
  private StockReconstruction() {}

  /**
   * The units HDFS's reconstructor decodes from, ascending: the first {@code min(realData, k)} units that exist
   * (data units below {@code realData}, and every parity), are not lost and are not skipped; null when fewer remain
   * (the NameNode does not schedule the task at all then).
   *
   * @param realData data units the group holds bytes in (k for a full group; fewer for a short one)
   */
  public static int[] sources(LinearCode code, int realData, int[] lost, int... skipped) {
    checkRealData(code, realData);
    BitSet unusable = code.unitSet(lost);
    unusable.or(code.unitSet(skipped));
    int want = Math.min(realData, code.k());
    int[] chosen = new int[want];
    int found = 0;
    for (int u = 0; u < code.n() && found < want; u++) {
      if (exists(code, realData, u) && !unusable.get(u)) {
        chosen[found++] = u;
      }
    }
    return found == want ? chosen : null;
  }

  /**
   * True when HDFS's reconstructor rebuilds every lost unit that holds bytes (a full group: {@code realData = k}).
   *
   * @param lost units without a live replica; data units past {@code realData} never existed and are ignored
   */
  public static boolean canRebuild(LinearCode code, int realData, int[] lost, int... skipped) {
    int[] sources = sources(code, realData, lost, skipped);
    if (sources == null) {
      return false;
    }
    RowSpan span = new RowSpan(code.k());
    for (int u : sources) {
      span.add(code.generator().row(u));
    }
    for (int u = realData; u < code.k(); u++) {
      span.add(code.generator().row(u)); // zeros the reader supplies itself
    }
    for (int u : lost) {
      if (exists(code, realData, u) && !span.contains(code.generator().row(u))) {
        return false;
      }
    }
    return true;
  }

  /**
   * How many loss patterns of a full group (every size up to n - k) the code decodes but HDFS's reconstructor
   * cannot rebuild: what only our worker repairs. Exhaustive, so meant for HDFS's n <= 16.
   */
  public static long lossesOnlyOurWorkerRebuilds(LinearCode code) {
    requireSystematic(code);
    long count = 0;
    for (int size = 1; size <= code.n() - code.k(); size++) {
      int[] idx = RecoverabilityCheck.firstCombination(size);
      do {
        if (code.isDecodable(idx) && !canRebuild(code, code.k(), idx)) {
          count++;
        }
      } while (RepairPlanner.next(idx, code.n()));
    }
    return count;
  }

  /**
   * The smallest loss of a full group the code decodes but HDFS's reconstructor cannot rebuild, first in unit
   * order (an example an operator can be shown), or null when it rebuilds every decodable loss (MDS codes).
   */
  public static int[] smallestLossOnlyOurWorkerRebuilds(LinearCode code) {
    requireSystematic(code);
    for (int size = 1; size <= code.n() - code.k(); size++) {
      int[] idx = RecoverabilityCheck.firstCombination(size);
      do {
        if (code.isDecodable(idx) && !canRebuild(code, code.k(), idx)) {
          return idx.clone();
        }
      } while (RepairPlanner.next(idx, code.n()));
    }
    return null;
  }

  private static boolean exists(LinearCode code, int realData, int u) {
    return u < realData || u >= code.k();
  }

  private static void checkRealData(LinearCode code, int realData) {
    requireSystematic(code);
    if (realData < 1 || realData > code.k()) {
      throw new IllegalArgumentException(code.spec() + ": a group holds 1.." + code.k() + " data units, not "
          + realData);
    }
  }

  private static void requireSystematic(LinearCode code) {
    if (!code.isSystematic()) {
      throw new IllegalArgumentException(code.spec() + " is not systematic; HDFS cannot store it as a striped group");
    }
  }
}
