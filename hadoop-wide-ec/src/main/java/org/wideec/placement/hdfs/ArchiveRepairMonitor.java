package org.wideec.placement.hdfs;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcArchivedBlocks;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.apache.hadoop.hdfs.server.namenode.NameNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.ArchivedStripeRepair;
import org.wideec.archive.RebuildTargets;
import org.wideec.archive.StripeMember;
import org.wideec.archive.RebuildJobs;
import org.wideec.protocol.RebuildRequest;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.UnusableHelpers;

/**
 * Archived stripes repair themselves (DESIGN.md §3.2). In a thread of its own on the active NameNode (a {@link
 * PeriodicPass}: never a NameNode handler, nothing escapes it), every {@link ArchiveRepairSettings#INTERVAL_KEY} ms it
 * reads the manifests ({@link ManifestReader}), looks up each protected stripe's blocks in the blocks map, and for each
 * block with no live replica (a trimmed data block or a parity block whose one replica was lost) orders a rebuild: a
 * live DataNode in the unit's planned rack that holds no other unit of the stripe ({@link RebuildTargets}, least
 * recently selected) is sent a {@link RebuildRequest} over the slice transport with READ tokens for the helpers and a
 * WRITE token for the block, minted by this NameNode's block token secret manager when block tokens are on. The
 * DataNode rebuilds the unit with the repair engine (local group first, in-rack partial sums, pipelined) and stores it
 * under the original id, generation stamp and length if its CRC32C is the manifest's. The block counts as repaired only
 * once this NameNode lists a live replica of it on the target.
 *
 * <p>Several lost units of one stripe that their local groups cannot rebuild alone (a rack that held several units
 * of a group is lost, say) are one order ({@link RebuildJobs}) when that moves fewer bytes across racks: the target of
 * one of them decodes them all from one set of helpers, read once, and writes each to its own target with that
 * target's WRITE token. Each unit is still checked against its own CRC, confirmed live on its own and backs off on
 * its own.
 *
 * <p>At most {@link ArchiveRepairSettings#MAX_CONCURRENT_KEY} rebuild orders run at once, a block in flight is never
 * ordered twice, and a block whose rebuild failed waits {@link ArchiveRepairSettings#BACKOFF_KEY} ms, doubled on every
 * further failure (at most an hour). Each failure is one WARN line naming the file, block, stripe and manifest. A
 * stripe with a member changed since archival (stale) is reported once and never repaired from that member; a lost unit
 * the survivors cannot decode is reported once as unrecoverable.
 *
 * <p>Members changed since archival are not rebuilt here: the {@link ArchiveReprotector} keeps those stripes'
 * protection, with or without this monitor.
 *
 * <p>It also rebuilds in startup safe mode (never writing the namespace there), so that lost single replicas do not
 * keep a restarted NameNode below its safe-mode threshold, and it plans without DataNodes found unusable lately
 * ({@link UnusableHelpers}: slice port not found, worker off, refusing).
 *
 * <p>Its parts: the damaged stripes a pass meets are kept most urgent first ({@link MostUrgentStripes}) and turned
 * into orders at the pass's end ({@link StripeRebuildDispatch}); decommission and maintenance by local reconstruction
 * run within its passes ({@link Decommission}), and so does the rebuild of the units of our block groups lost with
 * their DataNode ({@link LostUnitRebuilds} over {@link DeadNodeUnits}). An archived block lost with its DataNode needs
 * no claim: its one replica is gone, so HDFS has nothing to copy it from and leaves it missing to this monitor.
 */
final class ArchiveRepairMonitor extends ArchivePass {
  private static final Logger LOG = LoggerFactory.getLogger(ArchiveRepairMonitor.class);

  private final WideEcNameNodeMetrics metrics;
  private final ArchiveRepairSettings settings;
  private final long interval;
  /** Blocks in flight and backing off, orders running, nodes left out. */
  private final RebuildState state;
  /** Sends the orders and confirms their units, on the rebuild threads. */
  private final RebuildOrders orders;
  /** How the DataNodes repair (their wide-ec.repair.scheme, assumed the same cluster-wide): what orders are costed by. */
  private final RepairScheme dataNodeScheme;
  /** Turns a damaged stripe into rebuild orders. */
  private final StripeRebuildDispatch dispatch;
  /** Decommission and maintenance by local reconstruction; null when wide-ec.decommission.enabled is false. */
  private final Decommission leaving;
  /** Lost units of our block groups rebuilt on our order; null when wide-ec.lost-units.enabled is false. */
  private final LostUnitRebuilds lost;
  /** What was reported once (stale stripes, unrecoverable blocks), so a pass every few seconds does not flood. */
  private final ReportedOnce<String> reported = new ReportedOnce<>();
  /** When this monitor started (about when the NameNode did) and how long it waits to rebuild in safe mode. */
  private final long startedNanos = System.nanoTime();
  /** Whether this pass runs in startup safe mode (then it writes no namespace: rebuilds only). */
  private boolean safeMode;
  private boolean safeModeAnnounced;

  /**
   * @throws IOException when the slice transport's settings are wrong (no cluster secret, say)
   * @throws IllegalArgumentException when one of the monitor's settings is
   */
  ArchiveRepairMonitor(NameNode nn, FSNamesystem fsn, Configuration conf, WideEcNameNodeMetrics metrics, long interval)
      throws IOException {
    this(nn, fsn, conf, metrics, interval, ArchiveRepairSettings.from(conf), DecommissionSettings.from(conf),
        LostUnitSettings.from(conf));
  }

  private ArchiveRepairMonitor(NameNode nn, FSNamesystem fsn, Configuration conf, WideEcNameNodeMetrics metrics,
      long interval, ArchiveRepairSettings settings, DecommissionSettings decommission, LostUnitSettings lostUnits)
      throws IOException {
    super(nn, fsn, conf, interval, settings.maxConcurrent() + (decommission.enabled() ? decommission.maxConcurrent() : 0)
        + (lostUnits.enabled() ? lostUnits.maxConcurrent() : 0), "archive repair", LOG, true);
    this.metrics = metrics;
    this.settings = settings;
    this.dataNodeScheme = ArchiveRepairSettings.dataNodeScheme(conf);
    this.interval = interval;
    this.state = new RebuildState(metrics, settings.backoff(), settings.maxBackoff(), settings.avoidMs(),
        RebuildOrders.current(fsn, endpoints));
    this.orders = new RebuildOrders(fsn, transport, endpoints, state, settings.confirmTimeout());
    this.leaving = decommission.enabled() ? new Decommission(fsn, metrics, state, orders, workers, decommission,
        dataNodeScheme, placementScheme(conf), settings.backoff()) : null;
    this.lost = lostUnits.enabled() ? new LostUnitRebuilds(new DeadNodeUnits(fsn, metrics, placementScheme(conf),
        dataNodeScheme), fsn, state, orders, workers, lostUnits.maxConcurrent(), dataNodeScheme, settings.backoff())
        : null;
    this.damaged = new MostUrgentStripes<>(settings.maxConcurrent());
    this.dispatch = new StripeRebuildDispatch(fsn, metrics, settings.maxConcurrent(), state, orders, workers,
        dataNodeScheme, leaving);
  }

  /** The striped placement scheme the NameNode's policy plans by (a wrong value: the policy's own fallback, auto). */
  private static String placementScheme(Configuration conf) {
    try {
      return org.wideec.placement.PlacementConf.scheme(conf.get(org.wideec.placement.StripedPlacement.SCHEME_KEY));
    } catch (RuntimeException e) {
      return org.wideec.placement.StripedPlacement.AUTO;
    }
  }

  /**
   * Archived blocks hold one replica each, so a NameNode restarted while some are lost stays below
   * dfs.namenode.safemode.threshold-pct for good. Rebuilding them needs no namespace write (a DataNode writes a
   * FINALIZED replica under the block's id, and its incremental report counts toward the threshold), so the monitor
   * rebuilds in startup safe mode too, once {@link ArchiveRepairSettings#SAFEMODE_WAIT_KEY} has passed; the NameNode
   * then leaves safe mode by itself. Raising replications waits for safe mode to end.
   */
  @Override
  boolean readyInSafeMode() {
    if (!fsn.isInStartupSafeMode()) {
      metrics.archiveRepairSafeModeWaitMs.set(-1); // an operator's (or low resources') safe mode: nothing runs
      return false;
    }
    long left = settings.safeModeWait() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
    metrics.archiveRepairSafeModeWaitMs.set(Math.max(0, left));
    return left <= 0;
  }

  void start() {
    metrics.archiveRepairRunning.set(1);
    if (leaving != null) {
      leaving.start(this::wake);
    }
    if (lost != null) {
      lost.onOrderEnded(this::wake);
    }
    if (leaving != null || lost != null) {
      RebuildClaims.start(this::wake, interval, leaving != null, lost != null);
    }
    start("wide-ec archive repair monitor: missing blocks of archived stripes are rebuilt every " + interval + " ms ("
        + settings.maxConcurrent() + " at once)");
  }

  @Override
  void stop() {
    metrics.archiveRepairRunning.set(0);
    RebuildClaims.stop();
    super.stop();
  }

  private Tally tally;
  /** The most urgent stripes with units to order found by this pass: ordered at its end, most urgent first. */
  private final MostUrgentStripes<Damaged> damaged;
  /** The live nodes as the pass found them after its first lost unit (null until then): what targets are chosen from. */
  private Map<String, WideEcArchivedBlocks.Target> liveAfterLoss;

  @Override
  void beginPass(Map<String, WideEcArchivedBlocks.Target> live) {
    safeMode = fsn.isInSafeMode();
    if (!safeMode) {
      metrics.archiveRepairSafeModeWaitMs.set(0);
      safeModeAnnounced = false;
    }
    tally = new Tally();
    damaged.clear();
    liveAfterLoss = null;
    reported.beginPass();
    if (leaving != null) {
      leaving.beginPass(live, safeMode, failed);
    }
    if (lost != null && !safeMode) { // in safe mode nothing of the namespace changes, and HDFS reconstructs nothing
      try {
        lost.pass(live);
      } catch (RuntimeException | LinkageError e) { // the archive repairs still run; HDFS reconstructs what is not claimed
        failed.warn("wide-ec lost-unit rebuild pass failed ({}); archived stripes are still repaired", e.toString(), e);
      }
    }
  }

  @Override
  void visit(ArchivedStripe s, String manifest, Map<String, WideEcArchivedBlocks.Target> live) {
    if (ArchivedStripeRepair.protects(s)) {
      examine(s, manifest, live, tally);
    }
  }

  /** The gauges hold what this pass found. */
  @Override
  void endPass(Map<String, WideEcArchivedBlocks.Target> live) {
    dispatchMostUrgentFirst();
    metrics.archivedBlocksMissing.set(tally.missing);
    metrics.archivedStripesStale.set(tally.stale);
    metrics.archivedBlocksUnrecoverable.set(tally.unrecoverable);
    metrics.archivedBlocksRebuilding.set(state.blocksInFlight());
    metrics.archiveRepairPasses.incr();
    if (safeMode && tally.missing > 0 && !safeModeAnnounced) {
      safeModeAnnounced = true;
      LOG.warn("the NameNode is in startup safe mode with {} archived blocks missing ({} unrecoverable): wide-ec"
          + " rebuilds them now, writing no namespace, and the NameNode leaves safe mode by itself once enough blocks"
          + " are back; replications are raised after safe mode", tally.missing, tally.unrecoverable);
    }
    reported.endPass(); // what this pass no longer found is forgotten (and reported again if it comes back)
    if (leaving != null) {
      leaving.endPass();
    }
    if (lost != null) {
      lost.endPass();
    }
  }

  private static final class Tally {
    long missing;
    long stale;
    long unrecoverable;
  }

  private void examine(ArchivedStripe s, String manifest, Map<String, WideEcArchivedBlocks.Target> live, Tally tally) {
    ArchivedStripeNow seen = ArchivedStripeNow.of(fsn, s);
    ArchivedStripeRepair p = seen.repair();
    Set<String> stripeNodes = seen.nodes();
    String where = "stripe " + s.stripeId() + " of manifest " + manifest;
    if (p.stale().length > 0) {
      tally.stale++;
      if (reported.first("stale " + manifest + " " + s.stripeId() + " " + java.util.Arrays.toString(p.stale()))) {
        LOG.warn("archived {} is stale: {}; those members changed since archival and are never used to repair the"
            + " others", where, p.describe());
      }
    }
    tally.missing += p.lost().length + p.unrecoverable().length;
    tally.unrecoverable += p.unrecoverable().length;
    for (int u : p.unrecoverable()) {
      StripeMember m = s.member(u);
      if (reported.first("unrecoverable " + m.blockId())) {
        LOG.error("archived block blk_{} of {} ({}, unit {}) is lost and the stripe's surviving units cannot rebuild"
            + " it: {}", m.blockId(), RebuildOrders.fileOf(fsn, s, m), where, u, p.describe());
      }
    }
    if (leaving != null) {
      leaving.note(s, seen);
    }
    Map<String, Integer> unitsPerRack = new HashMap<>();
    p.helpers().values().forEach(h -> unitsPerRack.merge(h.rack(), 1, Integer::sum));
    if (p.lost().length > 0 && liveAfterLoss == null) {
      // Targets from the nodes live now, not at the pass's start: the loss just seen may have come with more nodes
      // dying (a rack going down one node at a time), and an order to one of them fails and backs off.
      liveAfterLoss = WideEcArchivedBlocks.targets(fsn);
    }
    if (p.lost().length > 0 && java.util.Arrays.stream(p.lost()).anyMatch(u -> !state.busy(s.member(u).blockId()))) {
      damaged.add(new Damaged(p, manifest, liveAfterLoss != null ? liveAfterLoss : live, stripeNodes, unitsPerRack),
          s.code(), p.lost().length + p.unrecoverable().length + p.stale().length);
    }
  }

  /** A stripe this pass found with units to rebuild. */
  private record Damaged(ArchivedStripeRepair p, String manifest, Map<String, WideEcArchivedBlocks.Target> live,
      Set<String> stripeNodes, Map<String, Integer> unitsPerRack) {}

  /**
   * Orders the rebuilds this pass found, the stripes with the least margin first (a stripe one loss from data loss
   * before one that can lose two more), so when more are damaged than {@link ArchiveRepairSettings#MAX_CONCURRENT_KEY}
   * orders run, the free places go to the most urgent; equals in the order the pass met them.
   */
  private void dispatchMostUrgentFirst() {
    for (Damaged d : damaged.takeMostUrgentFirst()) {
      try {
        dispatch.dispatch(d.p(), d.manifest(), d.live(), d.stripeNodes(), d.unitsPerRack());
      } catch (RuntimeException e) { // one stripe must not hold up the others' rebuilds
        failed.warn("wide-ec archive repair skipped stripe {} of {}: {}", d.p().stripe().stripeId(), d.manifest(),
            e.toString(), e);
        if (leaving != null) {
          leaving.notOrdered(RebuildOrders.blocks(d.p().stripe(), d.p().lost()));
        }
      }
    }
  }
}
