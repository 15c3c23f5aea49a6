package org.wideec.placement.hdfs;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcGroupRiskScanner.Loss;
import org.wideec.code.StockReconstruction;

/**
 * Finds block groups whose reconstruction keeps failing because HDFS's own reconstructor cannot rebuild their loss
 * ({@link StockReconstruction}): a DataNode without our worker (plugin off, or handing the task back) decodes from a
 * rank-deficient set, the task fails, and the NameNode re-sends it after every pending-reconstruction timeout,
 * forever. The NameNode cannot see which DataNode runs a worker, so it judges by what happens: a group whose loss
 * stock reconstruction cannot rebuild, that HDFS has handed to a DataNode, and that still has the same loss a whole
 * pending timeout later (a task that worked would have changed it), is stuck. Single-threaded (the plugin's scan).
 */
final class StockRepairWatch {
  /** A group reported stuck: its loss, the sources HDFS's reconstructor reads, and for how long it has waited. */
  record Stuck(Loss loss, int[] sources, long waitedMs) {
    String reason() {
      return "HDFS's own reconstructor reads units " + Arrays.toString(sources) + " (the first "
          + sources.length + " live units in index order), which cannot rebuild units " + Arrays.toString(loss.lost())
          + " of " + loss.code().spec() + "; its reconstruction was handed to a DataNode and the loss is unchanged "
          + waitedMs / 1000 + " s later, so the task failed and HDFS retries it forever. Run the wide-ec DataNode "
          + "plugin, with the cluster secret, on every DataNode";
    }
  }

  /** Most groups followed at once (each costs one block lookup per scan). */
  static final int MAX_WATCHED = 10_000;

  private record Watched(String pattern, long firstPendingMs) {}

  private final long pendingTimeoutMs;
  private final Map<Long, Watched> watched = new HashMap<>();
  private final ReportedOnce<String> reported = new ReportedOnce<>();

  /** @param pendingTimeoutMs HDFS's dfs.namenode.reconstruction.pending.timeout-sec, in milliseconds */
  StockRepairWatch(long pendingTimeoutMs) {
    this.pendingTimeoutMs = pendingTimeoutMs;
  }

  /** The groups to look up on the next scan wherever HDFS keeps them (pending ones leave the low-redundancy queue). */
  Set<Long> watched() {
    return Set.copyOf(watched.keySet());
  }

  /**
   * One scan's losses (every group examined, the watched ones included) at time {@code nowMs}; returns the groups
   * stuck now, each the first time it is found stuck with this loss (a group is reported again only after a scan
   * that did not find it so).
   */
  List<Stuck> observe(List<Loss> losses, long nowMs) {
    Map<Long, Watched> next = new HashMap<>();
    List<Stuck> now = new ArrayList<>();
    reported.beginPass();
    for (Loss l : losses) {
      if (l.lost().length == 0 || !l.code().isSystematic()
          || StockReconstruction.canRebuild(l.code(), l.realData(), l.lost())) {
        continue;
      }
      int[] sources = StockReconstruction.sources(l.code(), l.realData(), l.lost());
      if (sources == null) {
        continue; // too few units for HDFS to schedule a reconstruction at all: nothing is retried
      }
      String pattern = Arrays.toString(l.lost());
      Watched w = watched.get(l.blockId());
      if (w == null || !w.pattern().equals(pattern)) {
        w = new Watched(pattern, -1);
      }
      if (w.firstPendingMs() < 0 && l.pending()) {
        w = new Watched(pattern, nowMs);
      }
      if (next.size() < MAX_WATCHED || watched.containsKey(l.blockId())) {
        next.put(l.blockId(), w);
      }
      if (w.firstPendingMs() >= 0 && nowMs - w.firstPendingMs() > pendingTimeoutMs
          && reported.first(l.blockId() + pattern)) {
        now.add(new Stuck(l, sources, nowMs - w.firstPendingMs()));
      }
    }
    reported.endPass();
    watched.clear();
    watched.putAll(next);
    return now;
  }

  /** Groups found stuck at the last scan (reported or not). */
  int stuck() {
    return reported.size();
  }
}
