package org.wideec.placement.hdfs;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcArchivedBlocks;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.ArchivedStripeRepair;
import org.wideec.archive.StripeMember;

/**
 * Archived blocks on leaving DataNodes. A leaving replica is not live in service, so a block held only on leaving
 * nodes is missing to the archive repair monitor and rebuilt from its stripe like any lost block; this counts it for
 * the decommission, claims it while the monitor rebuilds it ({@link RebuildClaims}: HDFS does not copy it from the
 * leaving node meanwhile), and gives back to HDFS's copy one the stripe cannot rebuild, one the monitor could not
 * order, or one whose rebuild failed (for at least its retry back-off). Called on the monitor's thread, but for the
 * outcomes of rebuilds, which come from the rebuild threads.
 */
final class LeavingArchivedBlocks {
  private final WideEcNameNodeMetrics metrics;
  private final RebuildState state;
  private final long giveBackMs;
  /** Archived blocks whose live replicas were all on leaving nodes when the repair monitor ordered them, by length. */
  private final Map<Long, Long> ordered = new ConcurrentHashMap<>();
  /** Archived blocks found held only on leaving nodes in this pass. */
  private final Set<Long> seen = new HashSet<>();
  private final ReportedOnce<Long> givenBack = new ReportedOnce<>();
  /** Transfer addresses of the nodes leaving at this pass. */
  private Set<String> leaving = Set.of();

  LeavingArchivedBlocks(WideEcNameNodeMetrics metrics, RebuildState state, long giveBackMs) {
    this.metrics = metrics;
    this.state = state;
    this.giveBackMs = giveBackMs;
  }

  /** A repair pass starts with these DataNodes leaving (transfer addresses). */
  void beginPass(Set<String> leavingNodes) {
    leaving = leavingNodes;
    seen.clear();
    givenBack.beginPass();
  }

  /** The monitor looked at this stripe: its lost units held only on leaving nodes are counted, and claimed or given back. */
  void note(ArchivedStripe s, ArchivedStripeNow now) {
    if (leaving.isEmpty()) {
      return;
    }
    ArchivedStripeRepair p = now.repair();
    for (int u : p.lost()) {
      StripeMember m = s.member(u);
      if (onLeavingNode(now, m)) {
        ordered.put(m.blockId(), m.length()); // the monitor orders it
        seen.add(m.blockId());
      }
    }
    for (int u : p.unrecoverable()) {
      StripeMember m = s.member(u);
      if (onLeavingNode(now, m)) {
        // The rest of its stripe cannot rebuild it: HDFS copies it from the leaving node, as the plan would say.
        RebuildClaims.giveBack(m.blockId(), giveBackMs);
        if (givenBack.first(m.blockId())) {
          metrics.decommissionUnitsFromLeavingNode.incr();
        }
      }
    }
  }

  private boolean onLeavingNode(ArchivedStripeNow now, StripeMember m) {
    WideEcArchivedBlocks.BlockView v = now.views().get(m.blockId());
    return v != null && v.holders().stream().anyMatch(leaving::contains);
  }

  /**
   * The repair pass could not order these archived blocks (its dispatch failed): HDFS copies them for a back-off
   * rather than wait on an order that is not coming.
   */
  void notOrdered(long[] blocks) {
    for (long b : blocks) {
      if (ordered.remove(b) != null) {
        RebuildClaims.giveBack(b, giveBackMs);
      }
    }
  }

  /** A rebuilt block is live again: counted when it was one of ours. */
  void repaired(long block) {
    Long bytes = ordered.remove(block);
    if (bytes != null) {
      metrics.decommissionUnitsRebuilt.incr();
      metrics.decommissionBytesRebuilt.incr(bytes);
    }
  }

  /** A rebuild failed: HDFS copies the block at least until our next attempt, which {@code ms} delays. */
  void failed(long block, long ms) {
    if (ordered.remove(block) != null) {
      RebuildClaims.giveBack(block, ms);
    }
  }

  /** Blocks this pass found held only on leaving nodes. */
  int left() {
    return seen.size();
  }

  /**
   * At the end of a repair pass: blocks no longer held only on leaving nodes (the node came back in service, say)
   * forgotten unless a rebuild of theirs still runs; the rest claimed until the next pass.
   */
  void endPass() {
    givenBack.endPass();
    ordered.keySet().removeIf(b -> !seen.contains(b) && !state.busy(b));
    RebuildClaims.claimArchived(ordered.keySet(), leaving);
  }
}
