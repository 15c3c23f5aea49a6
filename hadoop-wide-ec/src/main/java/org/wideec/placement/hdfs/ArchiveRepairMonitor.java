package org.wideec.placement.hdfs;

import java.io.IOException;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
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
import org.wideec.code.UnitRole;
import org.wideec.datanode.RepairWorkerConf;
import org.wideec.archive.RebuildJobs;
import org.wideec.repair.MultiUnitStreams;
import org.wideec.repair.BlockRef;
import org.wideec.repair.RebuildRequest;
import org.wideec.repair.RepairGraph;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.RepairStep;
import org.wideec.repair.SingleUnitRepairPlanner;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;
import org.wideec.repair.UnusableHelpers;
import org.wideec.time.Backoff;
import org.wideec.time.FailureBackoff;
import org.wideec.transport.Endpoint;
import org.wideec.transport.Frame;
import org.wideec.transport.PeerStream;
import org.wideec.transport.TokenBytes;

/**
 * Archived stripes repair themselves (DESIGN.md §3.2). In a thread of its own on the active
 * NameNode (never a NameNode handler; nothing escapes it), every {@link #INTERVAL_KEY} ms it reads the manifests
 * ({@link ManifestReader}), looks up each protected stripe's blocks in the blocks map, and for each block with no
 * live replica (a trimmed data block or a parity block whose one replica was lost) orders a rebuild: a live DataNode
 * in the unit's planned rack that holds no other unit of the stripe ({@link RebuildTargets}, least recently selected)
 * is sent a {@link RebuildRequest} over the slice transport with READ tokens for the helpers and a WRITE token for
 * the block, minted by this NameNode's block token secret manager when block tokens are on. The DataNode rebuilds
 * the unit with the repair engine (local group first, in-rack partial sums, pipelined) and stores it under the
 * original id, generation stamp and length if its CRC32C is the manifest's. The block counts as repaired only once
 * this NameNode lists a live replica of it on the target.
 *
 * <p>Several lost units of one stripe that their local groups cannot rebuild alone (a rack that held several units
 * of a group is lost, say) are one order ({@link RebuildJobs}) when that moves fewer bytes across racks: the target of
 * one of them decodes them all from one set of helpers, read once, and writes each to its own target with that
 * target's WRITE token. Each unit is still checked against its own CRC, confirmed live on its own and backs off on
 * its own.
 *
 * <p>At most {@link #MAX_CONCURRENT_KEY} rebuild orders run at once, a block in flight is never ordered twice, and a block
 * whose rebuild failed waits {@link #BACKOFF_KEY} ms, doubled on every further failure (at most an hour). Each
 * failure is one WARN line naming the file, block, stripe and manifest. A stripe with a member changed since
 * archival (stale) is reported once and never repaired from that member; a lost unit the survivors cannot decode is
 * reported once as unrecoverable.
 *
 * <p>Members changed since archival are not rebuilt here: the {@link ArchiveReprotector} keeps those stripes'
 * protection, with or without this monitor.
 *
 * <p>It also rebuilds in startup safe mode (never writing the namespace there), so that lost single replicas do not
 * keep a restarted NameNode below its safe-mode threshold, and it plans without DataNodes found unusable lately
 * ({@link UnusableHelpers}: slice port not found, worker off, refusing).
 */
final class ArchiveRepairMonitor extends ArchivePass {
  static final String ENABLED_KEY = "wide-ec.archive.repair.enabled";
  static final String INTERVAL_KEY = "wide-ec.archive.repair.interval.ms";
  static final long INTERVAL_DEFAULT = 10_000;
  static final String MAX_CONCURRENT_KEY = "wide-ec.archive.repair.max-concurrent";
  static final int MAX_CONCURRENT_DEFAULT = 4;
  static final String BACKOFF_KEY = "wide-ec.archive.repair.backoff.ms";
  static final long BACKOFF_DEFAULT = 30_000;
  static final String CONFIRM_KEY = "wide-ec.archive.repair.confirm.timeout.ms";
  static final long CONFIRM_DEFAULT = 30_000;
  static final String MAX_BACKOFF_KEY = "wide-ec.archive.repair.backoff.max.ms";
  static final long MAX_BACKOFF_DEFAULT = 3_600_000;
  static final String SAFEMODE_WAIT_KEY = "wide-ec.archive.repair.safemode.wait.ms";
  private static final Logger LOG = LoggerFactory.getLogger(ArchiveRepairMonitor.class);

  private final WideEcNameNodeMetrics metrics;
  private final int maxConcurrent;
  private final long interval;
  private final long confirmTimeout;
  private final RepairScheme scheme;
  private final RebuildTargets targets = new RebuildTargets();
  /** Blocks whose rebuild is running. */
  private final Set<Long> inFlight = ConcurrentHashMap.newKeySet();
  /** Rebuild orders running (an order may rebuild several blocks). */
  private final java.util.concurrent.atomic.AtomicInteger ordersInFlight = new java.util.concurrent.atomic.AtomicInteger();
  /** How the DataNodes repair (their wide-ec.repair.scheme, assumed the same cluster-wide): what orders are costed by. */
  private final RepairScheme dataNodeScheme;
  /** Blocks whose last rebuild failed, and when to try each again. */
  private final FailureBackoff<Long> backingOff;
  /** What was reported once (stale stripes, unrecoverable blocks), so a pass every few seconds does not flood. */
  private final ReportedOnce<String> reported = new ReportedOnce<>();
  /** When this monitor started (about when the NameNode did) and how long it waits to rebuild in safe mode. */
  private final long startedNanos = System.nanoTime();
  private final long safeModeWait;
  /** Whether this pass runs in startup safe mode (then it writes no namespace: rebuilds only). */
  private boolean safeMode;
  private boolean safeModeAnnounced;
  /** DataNodes found unusable as helpers or requestors (unreachable, worker off, refusing): planned without a while. */
  private final UnusableHelpers unusable;

  /** @throws IOException when the slice transport's settings are wrong (no cluster secret, say) */
  ArchiveRepairMonitor(NameNode nn, FSNamesystem fsn, Configuration conf, WideEcNameNodeMetrics metrics, long interval)
      throws IOException {
    super(nn, fsn, conf, interval, checkedConcurrency(conf), "archive repair", LOG, true);
    this.metrics = metrics;
    this.maxConcurrent = conf.getInt(MAX_CONCURRENT_KEY, MAX_CONCURRENT_DEFAULT);
    this.backingOff = new FailureBackoff<>(conf.getLong(BACKOFF_KEY, BACKOFF_DEFAULT), maxBackoff(conf));
    this.confirmTimeout = conf.getLong(CONFIRM_KEY, CONFIRM_DEFAULT);
    this.scheme = RepairScheme.PIPELINED; // a placeholder: the DataNode repairs by its own wide-ec.repair.scheme
    this.dataNodeScheme = dataNodeScheme(conf);
    this.interval = interval;
    this.safeModeWait = safeModeWait(conf);
    this.unusable = new UnusableHelpers(conf.getLong(UnusableHelpers.AVOID_KEY, UnusableHelpers.AVOID_DEFAULT_MS));
  }

  /**
   * How long after the NameNode started the monitor waits before it rebuilds in startup safe mode: a block the
   * registered DataNodes do not list may still be on a node that has not registered yet. The key, or unset, the
   * time HDFS takes to declare a silent DataNode dead (2 x dfs.namenode.heartbeat.recheck-interval + 10 x
   * dfs.heartbeat.interval, 10.5 minutes by default): a node not heard from for that long is dead by HDFS's own rule.
   */
  static long safeModeWait(Configuration conf) {
    long set = conf.getLong(SAFEMODE_WAIT_KEY, -1);
    if (set >= 0) {
      return set;
    }
    long recheck = conf.getInt(org.apache.hadoop.hdfs.DFSConfigKeys.DFS_NAMENODE_HEARTBEAT_RECHECK_INTERVAL_KEY,
        org.apache.hadoop.hdfs.DFSConfigKeys.DFS_NAMENODE_HEARTBEAT_RECHECK_INTERVAL_DEFAULT);
    long heartbeat = conf.getTimeDuration(org.apache.hadoop.hdfs.DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_KEY,
        org.apache.hadoop.hdfs.DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_DEFAULT, TimeUnit.SECONDS);
    return 2 * recheck + 10_000 * heartbeat;
  }

  /**
   * Archived blocks hold one replica each, so a NameNode restarted while some are lost stays below
   * dfs.namenode.safemode.threshold-pct for good. Rebuilding them needs no namespace write (a DataNode writes a
   * FINALIZED replica under the block's id, and its incremental report counts toward the threshold), so the monitor
   * rebuilds in startup safe mode too, once {@link #SAFEMODE_WAIT_KEY} has passed; the NameNode then leaves safe mode
   * by itself. Raising replications waits for safe mode to end.
   */
  @Override
  boolean readyInSafeMode() {
    if (!fsn.isInStartupSafeMode()) {
      metrics.archiveRepairSafeModeWaitMs.set(-1); // an operator's (or low resources') safe mode: nothing runs
      return false;
    }
    long left = safeModeWait - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
    metrics.archiveRepairSafeModeWaitMs.set(Math.max(0, left));
    return left <= 0;
  }

  /**
   * The DataNodes' repair scheme, which only costs orders here. A value the DataNodes themselves refuse (their worker
   * then stays off, each saying why) must not turn the repair monitor off too: the default is costed instead.
   */
  private static RepairScheme dataNodeScheme(Configuration conf) {
    try {
      return org.wideec.transport.ConfigValues.oneOf(conf, RepairWorkerConf.SCHEME, RepairWorkerConf.DEFAULT_SCHEME);
    } catch (IllegalArgumentException e) {
      LOG.warn("wide-ec archive repair costs rebuild orders by the default {} repair scheme: {}",
          RepairWorkerConf.DEFAULT_SCHEME, e.getMessage());
      return RepairWorkerConf.DEFAULT_SCHEME;
    }
  }

  /**
   * The longest back-off: the key, or unset, an hour, or the first back-off if that is longer (a site that waited
   * more than an hour between attempts before this key existed keeps working). At most a year, so that doubling it
   * and adding it to System.nanoTime() never wrap.
   */
  static long maxBackoff(Configuration conf) {
    long set = conf.getLong(MAX_BACKOFF_KEY, -1);
    long max = set >= 0 ? set : Math.max(MAX_BACKOFF_DEFAULT, conf.getLong(BACKOFF_KEY, BACKOFF_DEFAULT));
    return Math.min(max, TimeUnit.DAYS.toMillis(365));
  }

  /** The settings checked before anything starts; the number of rebuild orders at once. */
  private static int checkedConcurrency(Configuration conf) {
    int max = conf.getInt(MAX_CONCURRENT_KEY, MAX_CONCURRENT_DEFAULT);
    long backoff = conf.getLong(BACKOFF_KEY, BACKOFF_DEFAULT);
    long confirm = conf.getLong(CONFIRM_KEY, CONFIRM_DEFAULT);
    long maxBackoff = maxBackoff(conf);
    if (max < 1 || backoff < 1 || confirm < 1) {
      throw new IllegalArgumentException(MAX_CONCURRENT_KEY + ", " + BACKOFF_KEY + " and " + CONFIRM_KEY
          + " must be positive; got " + max + ", " + backoff + ", " + confirm);
    }
    if (maxBackoff < backoff) {
      throw new IllegalArgumentException(MAX_BACKOFF_KEY + " (" + maxBackoff + ") must be at least " + BACKOFF_KEY
          + " (" + backoff + ")");
    }
    return max;
  }

  void start() {
    metrics.archiveRepairRunning.set(1);
    start("wide-ec archive repair monitor: missing blocks of archived stripes are rebuilt every " + interval + " ms ("
        + maxConcurrent + " at once)");
  }

  @Override
  void stop() {
    metrics.archiveRepairRunning.set(0);
    super.stop();
  }

  private Tally tally;
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
    liveAfterLoss = null;
    reported.beginPass();
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
    metrics.archivedBlocksMissing.set(tally.missing);
    metrics.archivedStripesStale.set(tally.stale);
    metrics.archivedBlocksUnrecoverable.set(tally.unrecoverable);
    metrics.archivedBlocksRebuilding.set(inFlight.size());
    metrics.archiveRepairPasses.incr();
    if (safeMode && tally.missing > 0 && !safeModeAnnounced) {
      safeModeAnnounced = true;
      LOG.warn("the NameNode is in startup safe mode with {} archived blocks missing ({} unrecoverable): wide-ec"
          + " rebuilds them now, writing no namespace, and the NameNode leaves safe mode by itself once enough blocks"
          + " are back; replications are raised after safe mode", tally.missing, tally.unrecoverable);
    }
    reported.endPass(); // what this pass no longer found is forgotten (and reported again if it comes back)
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
            + " it: {}", m.blockId(), fileOf(s, m), where, u, p.describe());
      }
    }
    Map<String, Integer> unitsPerRack = new HashMap<>();
    p.helpers().values().forEach(h -> unitsPerRack.merge(h.rack(), 1, Integer::sum));
    if (p.lost().length > 0 && liveAfterLoss == null) {
      // Targets from the nodes live now, not at the pass's start: the loss just seen may have come with more nodes
      // dying (a rack going down one node at a time), and an order to one of them fails and backs off.
      liveAfterLoss = WideEcArchivedBlocks.targets(fsn);
    }
    dispatch(p, manifest, liveAfterLoss != null ? liveAfterLoss : live, stripeNodes, unitsPerRack);
  }

  private String fileOf(ArchivedStripe s, StripeMember m) {
    String path = WideEcArchivedBlocks.pathOf(fsn, m.inodeId());
    String file = path == null ? "inode " + m.inodeId() + " (deleted)" : path;
    return m.role() == UnitRole.DATA ? file : (s.sealed() ? "codeword file " : "parity file ") + file;
  }

  /**
   * Orders the rebuild of the stripe's lost units that are neither running nor backing off: a target for each, then
   * the units grouped into orders ({@link RebuildJobs}: one joint decode for the units their local groups cannot
   * rebuild alone, when it moves fewer bytes across racks), at most {@link #MAX_CONCURRENT_KEY} orders at once.
   */
  private void dispatch(ArchivedStripeRepair p, String manifest, Map<String, WideEcArchivedBlocks.Target> live,
      Set<String> stripeNodes, Map<String, Integer> unitsPerRack) {
    if (p.lost().length == 0 || ordersInFlight.get() >= maxConcurrent) {
      return;
    }
    ArchivedStripe s = p.stripe();
    List<ArchivedStripeRepair.Replica> candidates = live.values().stream()
        .map(t -> new ArchivedStripeRepair.Replica(t.node().getXferAddr(), t.node().getNetworkLocation())).toList();
    int tolerance = s.code().guaranteedTolerance();
    int cap = tolerance > 0 ? tolerance : Integer.MAX_VALUE;
    Set<String> avoid = new HashSet<>(stripeNodes);
    Map<Integer, WideEcArchivedBlocks.Target> chosen = new java.util.TreeMap<>();
    Map<Integer, String> targetRack = new HashMap<>();
    for (int unit : p.lost()) {
      StripeMember m = s.member(unit);
      long block = m.blockId();
      if (inFlight.contains(block) || backingOff.waiting(block)) {
        continue;
      }
      Set<String> holdersOfThis = new HashSet<>(WideEcArchivedBlocks.view(fsn, new long[] {block})
          .getOrDefault(block, new WideEcArchivedBlocks.BlockView(0, 0, List.of(), Set.of(), true)).holders());
      // A node found unusable lately (its worker off, say) cannot rebuild: never a target while it is avoided.
      ArchivedStripeRepair.Replica target = targets.choose(m, candidates, avoid, withUnusable(holdersOfThis),
          unitsPerRack, cap);
      if (target == null) {
        failure(block, what(s, unit, manifest), "no live DataNode can receive it (every one holds a replica of it or"
            + " a unit of its stripe, or its rack holds " + cap + " units of the stripe already, or it was found"
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
      chosen.keySet().forEach(u -> failure(s.member(u).blockId(), what(s, u, manifest), e.getMessage()));
      return;
    }
    for (RebuildJobs.Job job : jobs) {
      if (ordersInFlight.get() >= maxConcurrent) {
        return;
      }
      order(p, job, manifest, chosen, preference);
    }
  }

  private Set<String> withUnusable(Set<String> nodes) {
    Set<String> all = new HashSet<>(nodes);
    all.addAll(unusable.now());
    return all;
  }

  /** Leaves a DataNode out of rebuilds for a while; one WARN line when it was not left out already. */
  private void unusable(String node, String why) {
    if (unusable.avoid(node, why)) {
      metrics.archiveNodesFoundUnusable.incr();
      LOG.warn("wide-ec archive repair leaves DataNode {} out of rebuild orders for {} ms: {}", node,
          unusable.avoidMs(), why);
    }
  }

  private String what(ArchivedStripe s, int unit, String manifest) {
    StripeMember m = s.member(unit);
    return "archived block blk_" + m.blockId() + " of " + fileOf(s, m) + " (stripe " + s.stripeId() + ", unit " + unit
        + ", manifest " + manifest + ")";
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
      blocks.append(i == 0 ? "" : ", ").append("blk_").append(m.blockId()).append(" of ").append(fileOf(s, m));
    }
    name.append(" (").append(blocks).append(')');
    StripeRepair repair;
    try {
      repair = repair(p, units, name.toString(), preference, chosen.get(job.requestorUnit()).node().getNetworkLocation());
    } catch (RuntimeException e) {
      for (int u : units) {
        failure(s.member(u).blockId(), what(s, u, manifest), e.getMessage());
      }
      return;
    }
    for (int u : units) {
      inFlight.add(s.member(u).blockId());
    }
    metrics.archivedBlocksRebuilding.set(inFlight.size());
    ordersInFlight.incrementAndGet();
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
      workers.execute(() -> run(repair, s, job, chosen, manifest));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      for (int u : units) {
        inFlight.remove(s.member(u).blockId()); // stopping
      }
      ordersInFlight.decrementAndGet();
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
      return new BlockRef(pool, h.blockId(), h.generationStamp(), h.length(), token(secrets, b,
          BlockTokenIdentifier.AccessMode.READ, new StorageType[0], new String[0]));
    }, scheme, preference);
    // Helpers found unusable lately are left out, unless the others cannot rebuild the units.
    Set<String> avoided = unusable.among(helperNodes(r));
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

  private static Set<String> helperNodes(StripeRepair r) {
    Set<String> nodes = new HashSet<>();
    r.survivors().values().forEach(h -> nodes.add(h.node()));
    return nodes;
  }

  /**
   * Counts the helpers the DataNode will take (it plans the same from the same order) as selected now.
   *
   * @throws RuntimeException when the helpers cannot rebuild the units
   */
  private void select(StripeRepair r, int[] units, String requestorRack) {
    List<String> taken = new java.util.ArrayList<>();
    if (units.length == 1) {
      RepairGraph g = SingleUnitRepairPlanner.plan(RepairScheme.PIPELINED, r.code(), units[0], withZeros(r), "", "",
          r.weights(), r.preference());
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

  private static Map<Integer, UnitLocation> withZeros(StripeRepair r) {
    Map<Integer, UnitLocation> all = new HashMap<>(r.survivors());
    r.zeroUnits().forEach(z -> all.put(z, new UnitLocation(z, "zero", "")));
    return all;
  }

  private static byte[] token(BlockTokenSecretManager secrets, ExtendedBlock b, BlockTokenIdentifier.AccessMode mode,
      StorageType[] types, String[] storages) {
    if (secrets == null) {
      return new byte[0]; // block tokens are off
    }
    try {
      return TokenBytes.of(secrets.generateToken(b, EnumSet.of(mode), types, storages));
    } catch (IOException e) {
      throw new IllegalStateException("cannot mint a " + mode + " token for " + b + ": " + e.getMessage(), e);
    }
  }

  /** On a rebuild thread: order the rebuild, wait for its end, confirm each unit at the NameNode. */
  private void run(StripeRepair repair, ArchivedStripe s, RebuildJobs.Job job,
      Map<Integer, WideEcArchivedBlocks.Target> chosen, String manifest) {
    int[] units = job.units();
    DatanodeInfo requestor = chosen.get(job.requestorUnit()).node();
    String refused = null;
    StripeRepair sent = repair;
    try {
      try {
        sent = order(repair, s, job, chosen);
      } catch (TargetUnusable e) {
        // Nothing was asked of anyone: the next pass orders these units again, from targets other than this one.
        LOG.info("wide-ec: {} of manifest {} goes to other targets at the next pass: {}", repair.name(), manifest,
            e.getMessage());
        return;
      } catch (IOException | RuntimeException | LinkageError e) {
        // A restarted DataNode listens on a new slice port: look every node of this rebuild up afresh next time.
        endpoints.forget(requestor.getXferAddr());
        repair.survivors().values().forEach(h -> endpoints.forget(h.node()));
        for (int u : units) {
          endpoints.forget(chosen.get(u).node().getXferAddr());
        }
        refused = e.getMessage() == null ? e.toString() : e.getMessage();
      }
      // Each unit on its own: a joint order may store some units and refuse others (each refused one is named by its
      // block); a unit the DataNode did not name is confirmed live or failed after the timeout.
      Set<Long> named = new HashSet<>();
      if (refused != null) {
        java.util.regex.Matcher x = java.util.regex.Pattern.compile("blk_(\\d+)").matcher(refused);
        while (x.find()) {
          named.add(Long.parseLong(x.group(1)));
        }
      }
      for (int u : units) {
        StripeMember m = s.member(u);
        DatanodeInfo target = chosen.get(u).node();
        String what = what(s, u, manifest);
        if (refused != null && (named.contains(m.blockId()) || named.isEmpty())) {
          failure(m.blockId(), what, "rebuild on " + requestor.getXferAddr() + " failed: " + refused);
          continue;
        }
        if (!confirmed(m, target)) {
          failure(m.blockId(), what, target.getXferAddr() + " stored it, but the NameNode lists no live replica there"
              + " after " + confirmTimeout + " ms (" + CONFIRM_KEY + ")" + (refused == null ? "" : "; " + refused));
          continue;
        }
        backingOff.succeeded(m.blockId());
        metrics.archivedBlocksRepaired.incr();
        LOG.info("{} rebuilt under its original id on {} ({}{}){} from helpers {}, confirmed live at the NameNode", what,
            target.getXferAddr(), target.getNetworkLocation(), target.getNetworkLocation().equals(m.plannedRack()) ? ""
                : ", outside its planned rack " + m.plannedRack(), units.length == 1 ? ""
                : " by one decode of units " + java.util.Arrays.toString(units) + " on " + requestor.getXferAddr(),
            new java.util.TreeSet<>(helperNodes(sent)));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      for (int u : units) {
        inFlight.remove(s.member(u).blockId());
      }
      ordersInFlight.decrementAndGet();
      metrics.archivedBlocksRebuilding.set(inFlight.size());
    }
  }

  /**
   * Sends the order to the requestor and follows its progress reports until it ends (or fails, with the reason); the
   * repair as sent, without the helpers found unusable on the way.
   */
  private StripeRepair order(StripeRepair repair, ArchivedStripe s, RebuildJobs.Job job,
      Map<Integer, WideEcArchivedBlocks.Target> chosen) throws IOException, InterruptedException {
    Map<String, DatanodeInfo> nodes = WideEcArchivedBlocks.liveNodes(fsn);
    Map<String, Endpoint> eps = new HashMap<>();
    Set<String> dropped = new HashSet<>();
    for (UnitLocation h : repair.survivors().values()) {
      if (eps.containsKey(h.node()) || dropped.contains(h.node())) {
        continue;
      }
      try {
        eps.put(h.node(), endpoints.resolve(h, nodes.get(h.node())));
      } catch (IOException e) { // not found, or its worker is off: this order is planned again without it
        dropped.add(h.node());
        unusable(h.node(), e.getMessage());
      }
    }
    if (!dropped.isEmpty()) {
      repair = repair.without(dropped);
      eps.keySet().retainAll(helperNodes(repair));
    }
    DatanodeInfo requestor = chosen.get(job.requestorUnit()).node();
    Endpoint at = slicePort(requestor);
    List<RebuildRequest.Target> targetList = new java.util.ArrayList<>();
    for (int u : job.units()) {
      StripeMember m = s.member(u);
      WideEcArchivedBlocks.Target to = chosen.get(u);
      ExtendedBlock b = new ExtendedBlock(fsn.getBlockPoolId(), m.blockId(), m.length(), m.generationStamp());
      byte[] write = token(fsn.getBlockManager().getBlockTokenSecretManager(), b, BlockTokenIdentifier.AccessMode.WRITE,
          new StorageType[] {to.storageType()}, new String[] {to.storageId()});
      RebuildRequest.RemoteNode remote = null;
      if (u != job.requestorUnit()) {
        DatanodeInfo d = to.node();
        Endpoint slice = slicePort(d);
        remote = new RebuildRequest.RemoteNode(d.getIpAddr(), d.getHostName(), d.getDatanodeUuid(), d.getXferPort(),
            d.getInfoPort(), d.getInfoSecurePort(), d.getIpcPort(), slice);
      }
      targetList.add(new RebuildRequest.Target(u, new BlockRef(b.getBlockPoolId(), m.blockId(), m.generationStamp(),
          m.length(), write), to.storageType().name(), to.storageId(), m.crc32c(), remote));
    }
    RebuildRequest req = new RebuildRequest(repair, eps, targetList);
    long id = java.util.concurrent.ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
    PeerStream opened;
    try {
      opened = transport.open(at, "namenode", "", id, req.toBytes());
    } catch (org.wideec.transport.PeerFailure e) {
      if (at.node().equals(e.culprit())) {
        unusable(at.node(), e.getMessage()); // unreachable, or refused this NameNode (a wrong secret)
      }
      throw e;
    }
    try (PeerStream stream = opened) {
      for (int i = 0; ; i++) { // progress reports until the DataNode stored and read back every unit
        Frame f = stream.nextOrEnd(i);
        if (f == null) {
          break;
        }
        f.release();
        stream.credit();
      }
    }
    return repair;
  }

  /** A requestor's or target's slice port; one that cannot be found is left out of the next orders for a while. */
  private Endpoint slicePort(DatanodeInfo d) throws TargetUnusable {
    try {
      return endpoints.resolve(new UnitLocation(-1, d.getXferAddr(), d.getNetworkLocation()), d);
    } catch (IOException e) {
      unusable(d.getXferAddr(), e.getMessage());
      throw new TargetUnusable(e);
    }
  }

  /** A target of an order cannot take part (its slice port not found, its worker off); nothing was sent yet. */
  private static final class TargetUnusable extends IOException {
    TargetUnusable(IOException cause) {
      super(cause.getMessage(), cause);
    }
  }

  /** Waits until the NameNode lists a live replica of the member on the target. */
  private boolean confirmed(StripeMember m, DatanodeInfo target) throws InterruptedException {
    Backoff wait = Backoff.doubling(100, 100, confirmTimeout);
    while (!WideEcArchivedBlocks.liveOn(fsn, m.blockId(), m.generationStamp(), m.length(), target.getXferAddr())) {
      if (wait.expired()) {
        return false;
      }
      wait.pause();
    }
    return true;
  }

  private void failure(long block, String what, String why) {
    metrics.archivedRepairFailures.incr();
    long next = backingOff.failed(block);
    LOG.warn("{} was not repaired: {}; next attempt in {} ms", what, why, next);
  }
}
