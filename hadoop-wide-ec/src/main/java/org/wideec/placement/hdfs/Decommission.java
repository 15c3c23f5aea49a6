package org.wideec.placement.hdfs;

import java.util.Map;
import java.util.concurrent.ExecutorService;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcArchivedBlocks;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.wideec.archive.ArchivedStripe;
import org.wideec.repair.RepairScheme;

/**
 * Decommission and maintenance by local reconstruction, as the archive repair monitor runs it within its passes: the
 * units of our block groups on leaving DataNodes ({@link LostUnitRebuilds} over {@link LeavingNodeUnits}, at each
 * pass's start: a leaving node's
 * decommission waits on every unit) and the archived blocks held only there ({@link LeavingArchivedBlocks}, met as the
 * pass looks at each stripe, each copied from the leaving node or rebuilt from its stripe, priced in one link model
 * with the block groups' units), their claims on HDFS's copy ({@link RebuildClaims}) and the units left. A failing
 * leaving pass never stops the archive repairs: it is one rate-limited warning, and what it did not claim HDFS copies.
 */
final class Decommission implements StripeRebuildDispatch.LeavingCopies {
  private final WideEcNameNodeMetrics metrics;
  private final LeavingNodeUnits leavingUnits;
  private final LostUnitRebuilds groups;
  private final LeavingArchivedBlocks archived;

  Decommission(FSNamesystem fsn, WideEcNameNodeMetrics metrics, RebuildState state, RebuildOrders orders,
      ExecutorService workers, DecommissionSettings settings, RepairScheme scheme, String placementScheme,
      long giveBackMs) {
    this.metrics = metrics;
    this.leavingUnits = new LeavingNodeUnits(fsn, metrics, settings, placementScheme, orders);
    // One load in flight for both: a block group's unit and an archived block are priced against each other's orders.
    LinksInFlight inFlight = new LinksInFlight();
    this.groups = new LostUnitRebuilds(leavingUnits, fsn, state, orders, workers, settings.maxConcurrent(), scheme,
        giveBackMs, inFlight);
    this.archived = new LeavingArchivedBlocks(metrics, state, giveBackMs, settings.rates(), scheme, inFlight,
        leavingUnits::leavingNow);
    state.tell(new RebuildState.Outcomes() {
      @Override
      public void repaired(long block) {
        archived.repaired(block);
      }

      @Override
      public void failed(long block, long backoffMs) {
        // HDFS copies it at least until our next attempt, which the back-off delays (doubling up to an hour).
        archived.failed(block, Math.max(giveBackMs, backoffMs));
      }
    });
  }

  void start(Runnable wakeMonitor) {
    groups.onOrderEnded(wakeMonitor);
  }

  /**
   * A repair pass starts: the leaving nodes' block-group units planned and ordered, unless the NameNode is in safe
   * mode (then nothing of the namespace may change, and HDFS's decommission waits too).
   */
  void beginPass(Map<String, WideEcArchivedBlocks.Target> live, boolean safeMode, RateLimitedWarning failed) {
    if (!safeMode) {
      try {
        groups.pass(live);
      } catch (RuntimeException | LinkageError e) { // the archive repairs still run; HDFS copies what is not claimed
        failed.warn("wide-ec decommission pass failed ({}); archived stripes are still repaired", e.toString(), e);
      }
    }
    archived.beginPass(leavingUnits.leavingNodes());
  }

  /** The monitor looked at this stripe. */
  void note(ArchivedStripe s, ArchivedStripeNow now) {
    archived.note(s, now);
  }

  /**
   * Which of the stripe's lost units on leaving nodes to copy from there, each to the target the monitor chose
   * ({@link LeavingArchivedBlocks#copies}).
   */
  @Override
  public Map<Integer, org.wideec.repair.UnitLocation> copies(org.wideec.archive.ArchivedStripeRepair p,
      Map<Integer, org.wideec.topology.Site> targets,
      java.util.function.Supplier<Map<String, org.apache.hadoop.hdfs.protocol.DatanodeInfo>> nodes) {
    return archived.copies(p, targets, nodes);
  }

  /** The archived block is about to be copied from its leaving node. */
  @Override
  public void copying(long block) {
    archived.copying(block);
  }

  /** The monitor could not order the rebuild of these archived blocks. */
  void notOrdered(long[] blocks) {
    archived.notOrdered(blocks);
  }

  /** A repair pass ended: its archived blocks claimed, and the units left on leaving nodes counted. */
  void endPass() {
    groups.endPass();
    archived.endPass();
    metrics.decommission.unitsLeft.set(leavingUnits.leavingNodes().isEmpty() ? 0
        : leavingUnits.unitsLeft() + archived.left());
  }
}
