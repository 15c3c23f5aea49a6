package org.wideec.placement.hdfs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenSecretManager;
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
import org.wideec.repair.MultiUnitStreams;
import org.wideec.repair.BlockRef;
import org.wideec.protocol.RebuildRequest;
import org.wideec.repair.RepairGraph;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.RepairUrgency;
import org.wideec.repair.RepairStep;
import org.wideec.repair.SingleUnitRepairPlanner;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;
import org.wideec.repair.UnusableHelpers;
import org.wideec.topology.Site;
import org.wideec.topology.hdfs.DataNodeSites;

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
 */
final class ArchiveRepairMonitor extends ArchivePass {
  private static final Logger LOG = LoggerFactory.getLogger(ArchiveRepairMonitor.class);

  private final WideEcNameNodeMetrics metrics;
  private final ArchiveRepairSettings settings;
  private final long interval;
  private final RepairScheme scheme;
  private final RebuildTargets targets = new RebuildTargets();
  /** Blocks in flight and backing off, orders running, nodes left out. */
  private final RebuildState state;
  /** Sends the orders and confirms their units, on the rebuild threads. */
  private final RebuildOrders orders;
  /** How the DataNodes repair (their wide-ec.repair.scheme, assumed the same cluster-wide): what orders are costed by. */
  private final RepairScheme dataNodeScheme;
  /** Decommission and maintenance by local reconstruction; null when wide-ec.decommission.enabled is false. */
  private final LeavingUnitRebuilds leaving;
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
    this(nn, fsn, conf, metrics, interval, ArchiveRepairSettings.from(conf), DecommissionSettings.from(conf));
  }

  private ArchiveRepairMonitor(NameNode nn, FSNamesystem fsn, Configuration conf, WideEcNameNodeMetrics metrics,
      long interval, ArchiveRepairSettings settings, DecommissionSettings decommission) throws IOException {
    super(nn, fsn, conf, interval, settings.maxConcurrent() + (decommission.enabled() ? decommission.maxConcurrent() : 0),
        "archive repair", LOG, true);
    this.metrics = metrics;
    this.settings = settings;
    this.scheme = RepairScheme.PIPELINED; // a placeholder: the DataNode repairs by its own wide-ec.repair.scheme
    this.dataNodeScheme = ArchiveRepairSettings.dataNodeScheme(conf);
    this.interval = interval;
    this.state = new RebuildState(metrics, settings.backoff(), settings.maxBackoff(), settings.avoidMs());
    this.orders = new RebuildOrders(fsn, transport, endpoints, state, settings.confirmTimeout());
    this.leaving = decommission.enabled() ? new LeavingUnitRebuilds(fsn, metrics, state, orders, workers, decommission,
        dataNodeScheme, placementScheme(conf), settings.backoff()) : null;
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
      DecommissionClaims.start(this::wake, interval);
    }
    start("wide-ec archive repair monitor: missing blocks of archived stripes are rebuilt every " + interval + " ms ("
        + settings.maxConcurrent() + " at once)");
  }

  @Override
  void stop() {
    metrics.archiveRepairRunning.set(0);
    DecommissionClaims.stop();
    super.stop();
  }

  private Tally tally;
  /**
   * The most urgent stripes with units to order, found by this pass: ordered at its end, most urgent first. Only as
   * many are kept as orders may run (the least urgent of them at the head, dropped when a more urgent one comes), so
   * a rack loss damaging 100,000 stripes costs a bounded memory; the rest are found again by the next passes.
   */
  private final java.util.PriorityQueue<Damaged> damaged = new java.util.PriorityQueue<>(
      java.util.Comparator.comparing(Damaged::urgency, RepairUrgency.MOST_URGENT_FIRST).reversed());
  /** Stripes with units to order met so far in this pass: the order among equals. */
  private long damagedSeen;
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
    damagedSeen = 0;
    liveAfterLoss = null;
    reported.beginPass();
    if (leaving != null && !safeMode) {
      try {
        leaving.pass(live); // a leaving node's block groups first: its decommission waits on every unit
      } catch (RuntimeException | LinkageError e) { // the archive repairs still run; HDFS copies what is not claimed
        failed.warn("wide-ec decommission pass failed ({}); archived stripes are still repaired", e.toString(), e);
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
      noteLeaving(s, seen);
    }
    Map<String, Integer> unitsPerRack = new HashMap<>();
    p.helpers().values().forEach(h -> unitsPerRack.merge(h.rack(), 1, Integer::sum));
    if (p.lost().length > 0 && liveAfterLoss == null) {
      // Targets from the nodes live now, not at the pass's start: the loss just seen may have come with more nodes
      // dying (a rack going down one node at a time), and an order to one of them fails and backs off.
      liveAfterLoss = WideEcArchivedBlocks.targets(fsn);
    }
    if (p.lost().length > 0 && java.util.Arrays.stream(p.lost()).anyMatch(u -> !state.busy(s.member(u).blockId()))) {
      damaged.add(new Damaged(p, manifest, liveAfterLoss != null ? liveAfterLoss : live, stripeNodes, unitsPerRack,
          RepairUrgency.guaranteed(s.code(), p.lost().length + p.unrecoverable().length + p.stale().length,
              damagedSeen++)));
      if (damaged.size() > settings.maxConcurrent()) {
        damaged.poll(); // the least urgent: a later pass finds it again
      }
    }
  }

  /** A stripe this pass found with units to rebuild, and how urgent it is. */
  private record Damaged(ArchivedStripeRepair p, String manifest, Map<String, WideEcArchivedBlocks.Target> live,
      Set<String> stripeNodes, Map<String, Integer> unitsPerRack, RepairUrgency urgency) {}

  /**
   * Orders the rebuilds this pass found, the stripes with the least margin first (a stripe one loss from data loss
   * before one that can lose two more), so when more are damaged than {@link ArchiveRepairSettings#MAX_CONCURRENT_KEY}
   * orders run, the free places go to the most urgent; equals in the order the pass met them.
   */
  private void dispatchMostUrgentFirst() {
    List<Damaged> urgentFirst = new ArrayList<>(damaged);
    damaged.clear();
    urgentFirst.sort(java.util.Comparator.comparing(Damaged::urgency, RepairUrgency.MOST_URGENT_FIRST));
    for (Damaged d : urgentFirst) {
      try {
        dispatch(d.p(), d.manifest(), d.live(), d.stripeNodes(), d.unitsPerRack());
      } catch (RuntimeException e) { // one stripe must not hold up the others' rebuilds
        failed.warn("wide-ec archive repair skipped stripe {} of {}: {}", d.p().stripe().stripeId(), d.manifest(),
            e.toString(), e);
        if (leaving != null) {
          leaving.notOrdered(RebuildOrders.blocks(d.p().stripe(), d.p().lost()));
        }
      }
    }
  }

  /**
   * A leaving replica is not live in service, so a block held only on leaving nodes is missing here and rebuilt from
   * its stripe like any lost block: the decommission counts it, and gives one the stripe cannot rebuild back to HDFS's
   * copy from the leaving node.
   */
  private void noteLeaving(ArchivedStripe s, ArchivedStripeNow seen) {
    ArchivedStripeRepair p = seen.repair();
    for (int u : p.lost()) {
      StripeMember m = s.member(u);
      WideEcArchivedBlocks.BlockView v = seen.views().get(m.blockId());
      if (v != null && leaving.anyLeaving(v.holders())) {
        leaving.archivedLeaving(m.blockId(), m.length());
      }
    }
    for (int u : p.unrecoverable()) {
      StripeMember m = s.member(u);
      WideEcArchivedBlocks.BlockView v = seen.views().get(m.blockId());
      if (v != null && leaving.anyLeaving(v.holders())) {
        leaving.archivedUnrecoverable(m.blockId());
      }
    }
  }

  /**
   * Orders the rebuild of the stripe's lost units that are neither running nor backing off: a target for each, then the
   * units grouped into orders ({@link RebuildJobs}: one joint decode for the units their local groups cannot rebuild
   * alone, when it moves fewer bytes across racks), at most {@link ArchiveRepairSettings#MAX_CONCURRENT_KEY} orders at
   * once.
   */
  private void dispatch(ArchivedStripeRepair p, String manifest, Map<String, WideEcArchivedBlocks.Target> live,
      Set<String> stripeNodes, Map<String, Integer> unitsPerRack) {
    if (p.lost().length == 0 || state.ordersRunning() >= settings.maxConcurrent()) {
      return;
    }
    ArchivedStripe s = p.stripe();
    List<Site> candidates = live.values().stream()
        .map(t -> DataNodeSites.of(t.node())).toList();
    int tolerance = s.code().guaranteedTolerance();
    int cap = tolerance > 0 ? tolerance : Integer.MAX_VALUE;
    Set<String> avoid = new HashSet<>(stripeNodes);
    Map<Integer, WideEcArchivedBlocks.Target> chosen = new java.util.TreeMap<>();
    Map<Integer, String> targetRack = new HashMap<>();
    for (int unit : p.lost()) {
      StripeMember m = s.member(unit);
      long block = m.blockId();
      if (state.busy(block)) {
        continue;
      }
      Set<String> holdersOfThis = new HashSet<>(WideEcArchivedBlocks.view(fsn, new long[] {block})
          .getOrDefault(block, new WideEcArchivedBlocks.BlockView(0, 0, List.of(), Set.of(), true)).holders());
      // A node found unusable lately (its worker off, say) cannot rebuild: never a target while it is avoided.
      Site target = targets.choose(m, candidates, avoid, state.withUnusable(holdersOfThis),
          unitsPerRack, cap);
      if (target == null) {
        state.failure(block, what(s, unit, manifest), "no live DataNode can receive it (every one holds a replica of"
            + " it or a unit of its stripe, or its rack holds " + cap + " units of the stripe already, or it was found"
            + " unusable lately)");
        continue;
      }
      avoid.add(target.node()); // two units of one stripe never share a node
      chosen.put(unit, live.get(target.node()));
      targetRack.put(unit, target.rack());
    }
    if (chosen.isEmpty()) {
      return;
    }
    java.util.Comparator<Integer> preference = targets.helperPreference(p.helpers());
    List<RebuildJobs.Job> jobs;
    try {
      jobs = RebuildJobs.plan(p, chosen.keySet().stream().mapToInt(Integer::intValue).toArray(), targetRack,
          dataNodeScheme, preference);
    } catch (RuntimeException e) {
      chosen.keySet().forEach(u -> state.failure(s.member(u).blockId(), what(s, u, manifest), e.getMessage()));
      return;
    }
    for (RebuildJobs.Job job : jobs) {
      if (state.ordersRunning() >= settings.maxConcurrent()) {
        return;
      }
      order(p, job, manifest, chosen, preference);
    }
  }

  private String what(ArchivedStripe s, int unit, String manifest) {
    return RebuildOrders.what(fsn, s, unit, manifest);
  }

  private void order(ArchivedStripeRepair p, RebuildJobs.Job job, String manifest,
      Map<Integer, WideEcArchivedBlocks.Target> chosen, java.util.Comparator<Integer> preference) {
    ArchivedStripe s = p.stripe();
    int[] units = job.units();
    StringBuilder name = new StringBuilder("stripe " + s.stripeId() + (units.length == 1 ? " unit " : " units "));
    StringBuilder blocks = new StringBuilder();
    for (int i = 0; i < units.length; i++) {
      StripeMember m = s.member(units[i]);
      name.append(i == 0 ? "" : ", ").append(units[i]);
      blocks.append(i == 0 ? "" : ", ").append("blk_").append(m.blockId()).append(" of ")
          .append(RebuildOrders.fileOf(fsn, s, m));
    }
    name.append(" (").append(blocks).append(')');
    StripeRepair repair;
    try {
      repair = repair(p, units, name.toString(), preference, chosen.get(job.requestorUnit()).node().getNetworkLocation());
    } catch (RuntimeException e) {
      for (int u : units) {
        state.failure(s.member(u).blockId(), what(s, u, manifest), e.getMessage());
      }
      return;
    }
    state.started(RebuildOrders.blocks(s, units));
    metrics.archiveRebuildOrders.incr();
    if (job.joint()) {
      metrics.archiveJointRebuilds.incr();
    }
    metrics.archiveRebuildCrossRackBytesPlanned.incr(job.crossRackBytes());
    if (job.joint()) {
      LOG.info("wide-ec: {} of manifest {} rebuilt by one decode at the target of unit {}: {} bytes across racks"
          + " planned, {} one by one", name, manifest, job.requestorUnit(), job.crossRackBytes(), job.perUnitBytes());
    }
    try {
      workers.execute(() -> orders.run(repair, s, job, chosen, manifest));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      state.ended(RebuildOrders.blocks(s, units)); // stopping
    }
  }

  /** The repair with the NameNode's READ tokens and the helpers least recently selected first. */
  private StripeRepair repair(ArchivedStripeRepair p, int[] units, String name, java.util.Comparator<Integer> preference,
      String requestorRack) {
    BlockTokenSecretManager secrets = fsn.getBlockManager().getBlockTokenSecretManager();
    String pool = fsn.getBlockPoolId();
    StripeRepair r = p.repairOf(units, name, u -> {
      StripeMember h = p.stripe().member(u);
      ExtendedBlock b = new ExtendedBlock(pool, h.blockId(), h.length(), h.generationStamp());
      return new BlockRef(pool, h.blockId(), h.generationStamp(), h.length(), RebuildOrders.token(secrets, b,
          BlockTokenIdentifier.AccessMode.READ, new StorageType[0], new String[0]));
    }, scheme, preference);
    // Helpers found unusable lately are left out, unless the others cannot rebuild the units.
    Set<String> avoided = state.unusableAmong(RebuildOrders.helperNodes(r));
    if (!avoided.isEmpty()) {
      StripeRepair without = r.without(avoided);
      try {
        select(without, units, requestorRack);
        return without;
      } catch (RuntimeException e) {
        LOG.info("wide-ec: {} needs helpers left out as unusable ({}): they are asked after all", name, avoided);
      }
    }
    select(r, units, requestorRack);
    return r;
  }

  /**
   * Counts the helpers the DataNode will take (it plans the same from the same order) as selected now.
   *
   * @throws RuntimeException when the helpers cannot rebuild the units
   */
  private void select(StripeRepair r, int[] units, String requestorRack) {
    List<String> taken = new java.util.ArrayList<>();
    if (units.length == 1) {
      RepairGraph g = SingleUnitRepairPlanner.plan(RepairScheme.PIPELINED, r.code(), units[0],
          withZeros(r, requestorRack), "", "", r.weights(), r.preference());
      for (RepairStep step : g.steps()) {
        if (!r.zeroUnits().contains(step.helper().unit())) {
          taken.add(step.helper().node());
        }
      }
    } else {
      for (int u : MultiUnitStreams.plan(r.code(), units, r.survivors(), r.zeroUnits(), requestorRack, false).inputs()) {
        taken.add(r.survivors().get(u).node());
      }
    }
    taken.forEach(targets::selected);
  }

  private static Map<Integer, UnitLocation> withZeros(StripeRepair r, String requestorRack) {
    Map<Integer, UnitLocation> all = new HashMap<>(r.survivors());
    r.zeroUnits().forEach(z -> all.put(z, UnitLocation.zero(z, requestorRack)));
    return all;
  }
}
