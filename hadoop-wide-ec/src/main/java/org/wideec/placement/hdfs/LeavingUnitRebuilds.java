package org.wideec.placement.hdfs;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenSecretManager;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcArchivedBlocks;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcLeavingUnits;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.datanode.GroupRepair;
import org.wideec.repair.BlockRef;
import org.wideec.repair.DecommissionPlan;
import org.wideec.repair.DecommissionPlanner;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Site;
import org.wideec.topology.hdfs.DataNodeSites;

/**
 * Decommission and maintenance by local reconstruction, within the archive repair monitor's passes. When DataNodes
 * leave service, HDFS copies each unit they hold from them, and their NIC is the bottleneck of the whole decommission
 * (HDFS-16613); here each unit of our block groups on a leaving node is rebuilt from its local group on a node that
 * keeps the group's placement ({@link DecommissionPlanner}), many requestors at once with helpers least recently
 * selected, through the same orders as archived blocks ({@link RebuildOrders}); archived blocks on a leaving node are
 * missing to the repair monitor already (a leaving replica is not live in service) and are rebuilt by it. While we
 * rebuild a unit, the placement policies give HDFS no target for its copy ({@link DecommissionClaims}); HDFS sees
 * the rebuilt unit live on a node in service and completes the decommission itself. A unit nothing else can rebuild,
 * or whose rebuild failed, is given back to HDFS's copy for at least its retry back-off. Only what a pass planned or
 * has in flight is claimed: a group it skipped (one HDFS reconstructs a truly missing unit of, one whose leaving
 * replica is corrupt) stays HDFS's.
 */
final class LeavingUnitRebuilds {
  private static final Logger LOG = LoggerFactory.getLogger(ArchiveRepairMonitor.class);
  /** Block groups looked at per pass, at most: a node with millions of units is planned over several passes. */
  private static final int GROUPS_PER_PASS = 10_000;

  private final FSNamesystem fsn;
  private final WideEcNameNodeMetrics metrics;
  private final RebuildState state;
  private final RebuildOrders orders;
  private final ExecutorService workers;
  private final DecommissionSettings settings;
  private final RepairScheme scheme;
  private final String placementScheme;
  private final long giveBackMs;
  private final DecommissionPlanner planner;
  private final AtomicInteger running = new AtomicInteger();
  /** Archived blocks whose live replicas were all on leaving nodes when the repair monitor ordered them, by length. */
  private final Map<Long, Long> archivedLeaving = new ConcurrentHashMap<>();
  private final ReportedOnce<Long> givenBack = new ReportedOnce<>();
  /** Units of block groups being rebuilt now (internal block id), with their group. */
  private final Map<Long, Long> unitsInFlight = new ConcurrentHashMap<>();
  /** Archived blocks found held only on leaving nodes in this pass. */
  private final Set<Long> archivedSeen = new HashSet<>();
  /** Units of our block groups held only on leaving nodes at this pass's start. */
  private long groupUnitsLeft;
  /** Transfer addresses of the nodes leaving at this pass. */
  private Set<String> leaving = Set.of();

  LeavingUnitRebuilds(FSNamesystem fsn, WideEcNameNodeMetrics metrics, RebuildState state, RebuildOrders orders,
      ExecutorService workers, DecommissionSettings settings, RepairScheme scheme, String placementScheme,
      long giveBackMs) {
    this.fsn = fsn;
    this.metrics = metrics;
    this.state = state;
    this.orders = orders;
    this.workers = workers;
    this.settings = settings;
    this.scheme = scheme;
    this.placementScheme = placementScheme;
    this.giveBackMs = giveBackMs;
    this.planner = new DecommissionPlanner(scheme);
    state.tell(new RebuildState.Outcomes() {
      @Override
      public void repaired(long block) {
        Long bytes = archivedLeaving.remove(block);
        if (bytes != null) {
          metrics.decommissionUnitsRebuilt.incr();
          metrics.decommissionBytesRebuilt.incr(bytes);
        }
      }

      @Override
      public void failed(long block, long backoffMs) {
        // HDFS copies it at least until our next attempt, which the back-off delays (doubling up to an hour).
        long ms = Math.max(giveBackMs, backoffMs);
        if (archivedLeaving.remove(block) != null) {
          DecommissionClaims.giveBack(block, ms);
        }
        Long group = unitsInFlight.get(block);
        if (group != null) {
          DecommissionClaims.giveBack(group, ms);
        }
      }
    });
  }

  /** Whether any of these nodes is leaving service now. */
  boolean anyLeaving(Set<String> nodes) {
    for (String n : nodes) {
      if (leaving.contains(n)) {
        return true;
      }
    }
    return false;
  }

  /** The repair monitor found an archived block whose replicas are all on leaving nodes: it rebuilds it. */
  void archivedLeaving(long block, long length) {
    archivedLeaving.put(block, length);
    archivedSeen.add(block);
  }

  /**
   * At the end of a repair pass: the units left on leaving nodes, and archived blocks no longer held only there (the
   * node came back in service, say) forgotten unless a rebuild of theirs still runs.
   */
  void endPass() {
    givenBack.endPass();
    archivedLeaving.keySet().removeIf(b -> !archivedSeen.contains(b) && !state.busy(b));
    metrics.decommissionUnitsLeft.set(leaving.isEmpty() ? 0 : groupUnitsLeft + archivedSeen.size());
    DecommissionClaims.claimArchived(archivedLeaving.keySet(), leaving);
  }

  /**
   * The repair pass could not order these archived blocks (its dispatch failed): HDFS copies them for a back-off
   * rather than wait on an order that is not coming.
   */
  void notOrdered(long[] blocks) {
    for (long b : blocks) {
      if (archivedLeaving.remove(b) != null) {
        DecommissionClaims.giveBack(b, giveBackMs);
      }
    }
  }

  /**
   * An archived block held only on leaving nodes that the rest of its stripe cannot rebuild: HDFS copies it from the
   * leaving node, as the plan would say.
   */
  void archivedUnrecoverable(long block) {
    DecommissionClaims.giveBack(block, giveBackMs);
    if (givenBack.first(block)) {
      metrics.decommissionUnitsFromLeavingNode.incr();
    }
  }

  /**
   * At the start of a repair pass: the leaving nodes, and every unit of our block groups held only there planned and,
   * up to {@link DecommissionSettings#MAX_CONCURRENT_KEY} at once, ordered.
   */
  void pass(Map<String, WideEcArchivedBlocks.Target> live) {
    Set<Long> planned = new HashSet<>();
    try {
      plan(live, planned);
    } catch (RuntimeException | LinkageError e) {
      planned.clear(); // only what is in flight stays claimed
      throw e;
    } finally {
      planned.addAll(unitsInFlight.values());
      planned.removeIf(DecommissionClaims::givenBack);
      DecommissionClaims.claimGroups(planned, leaving);
    }
  }

  /** Plans and orders; {@code planned} gets each group this pass will rebuild, now or once an order is free. */
  private void plan(Map<String, WideEcArchivedBlocks.Target> live, Set<Long> planned) {
    givenBack.beginPass();
    archivedSeen.clear();
    groupUnitsLeft = 0;
    List<WideEcLeavingUnits.LeavingNode> nodes = WideEcLeavingUnits.leaving(fsn);
    Set<String> addrs = new HashSet<>();
    nodes.forEach(n -> addrs.add(n.node().getXferAddr()));
    leaving = addrs;
    metrics.decommissionNodes.set(nodes.size());
    if (nodes.isEmpty()) {
      return;
    }
    List<WideEcLeavingUnits.LeavingGroup> groups = WideEcLeavingUnits.groupsOn(fsn, nodes, GROUPS_PER_PASS);
    List<DecommissionPlanner.LeavingStripe> stripes = new ArrayList<>();
    Map<String, WideEcLeavingUnits.LeavingGroup> byName = new HashMap<>();
    // Only as many groups as orders may start now are planned: the planner's least-recently-selected memory then
    // holds only the nodes orders really went to.
    int free = settings.maxConcurrent() - running.get();
    for (WideEcLeavingUnits.LeavingGroup g : groups) {
      groupUnitsLeft += g.leaving().size();
      if (DecommissionClaims.givenBack(g.groupId())) {
        givenBack.first(g.groupId()); // still with HDFS: counted once while it lasts
        continue;
      }
      if (!g.whole()) {
        continue; // HDFS reconstructs a missing unit of it: our plan cannot see where, so HDFS does the rest too
      }
      if (g.leaving().keySet().stream().anyMatch(u -> state.busy(g.groupId() + u))) {
        continue; // in flight (claimed as such), or backing off (given back meanwhile)
      }
      planned.add(g.groupId()); // beyond the free orders: planned at a later pass, as orders end
      if (stripes.size() >= free) {
        continue;
      }
      try {
        DecommissionPlanner.LeavingStripe s = stripe(g);
        stripes.add(s);
        byName.put(s.name(), g);
      } catch (RuntimeException e) { // a policy that defines no code: HDFS copies its units, as before
        giveBack(g, "its policy " + g.policy().getName() + " defines no code here: " + e.getMessage());
      }
    }
    if (!stripes.isEmpty()) {
      List<Site> candidates = live.values().stream().map(t -> DataNodeSites.of(t.node())).toList();
      execute(planner.plan(addrs, stripes, candidates), byName, live);
    }
  }

  private DecommissionPlanner.LeavingStripe stripe(WideEcLeavingUnits.LeavingGroup g) {
    Map<Integer, DatanodeInfo> units = new HashMap<>(g.inService());
    units.putAll(g.leaving());
    return LeavingStripes.of(g.groupId(), g.numBytes(), g.policy(), units, placementScheme);
  }

  private void execute(DecommissionPlan plan, Map<String, WideEcLeavingUnits.LeavingGroup> byName,
      Map<String, WideEcArchivedBlocks.Target> live) {
    for (DecommissionPlan.Unplaced u : plan.unplaced()) {
      WideEcLeavingUnits.LeavingGroup g = byName.get(u.stripe());
      giveBack(g, "unit " + u.unit() + ": " + u.why());
    }
    for (DecommissionPlan.Rebuild r : plan.rebuilds()) {
      WideEcLeavingUnits.LeavingGroup g = byName.get(r.stripe());
      if (r.fromLeavingNode()) {
        giveBack(g, "unit " + r.unit() + " cannot be rebuilt without its leaving node " + r.leaving());
        continue;
      }
      if (running.get() >= settings.maxConcurrent()) {
        return; // the rest at a later pass (the planner remembers whom it selected)
      }
      if (DecommissionClaims.givenBack(g.groupId())) {
        continue; // an earlier unit of this group was given back in this pass
      }
      order(g, r, live);
    }
  }

  /** HDFS copies the group's leaving units for a while (counted and logged once while it lasts). */
  private void giveBack(WideEcLeavingUnits.LeavingGroup g, String why) {
    DecommissionClaims.giveBack(g.groupId(), giveBackMs);
    if (givenBack.first(g.groupId())) {
      metrics.decommissionUnitsFromLeavingNode.incr(g.leaving().size());
      LOG.info("wide-ec decommission leaves block group blk_{} to HDFS's copy from the leaving node for {} ms: {}",
          g.groupId(), giveBackMs, why);
    }
  }

  private void order(WideEcLeavingUnits.LeavingGroup g, DecommissionPlan.Rebuild r,
      Map<String, WideEcArchivedBlocks.Target> live) {
    WideEcArchivedBlocks.Target to = live.get(r.target().node());
    DatanodeInfo from = g.leaving().get(r.unit());
    if (to == null || from == null) {
      return;
    }
    String pool = fsn.getBlockPoolId();
    BlockTokenSecretManager secrets = fsn.getBlockManager().getBlockTokenSecretManager();
    ExtendedBlock group = new ExtendedBlock(pool, g.groupId(), g.numBytes(), g.generationStamp());
    int[] units = g.inService().keySet().stream().mapToInt(Integer::intValue).toArray();
    DatanodeInfo[] at = new DatanodeInfo[units.length];
    for (int i = 0; i < units.length; i++) {
      at[i] = g.inService().get(units[i]);
    }
    StripeRepair repair;
    try {
      StripeRepair planned = GroupRepair.of(group, g.policy(), units, at, new int[] {r.unit()}, scheme,
          b -> readToken(secrets, b)).repair();
      repair = new StripeRepair(planned.name(), planned.code(), planned.lost(), planned.lostLengths(),
          planned.survivors(), planned.blocks(), planned.zeroUnits(), planned.scheme(), planned.weights(),
          planFirst(r.helpers()));
    } catch (RuntimeException e) {
      giveBack(g, "its repair could not be built: " + e.getMessage());
      return;
    }
    long internal = g.groupId() + r.unit();
    ExtendedBlock unit = new ExtendedBlock(pool, internal, r.bytes(), g.generationStamp());
    BlockRef leavingReplica = new BlockRef(pool, internal, g.generationStamp(), r.bytes(), readToken(secrets, unit));
    String what = "unit " + r.unit() + " (blk_" + internal + ") of block group blk_" + g.groupId() + " of "
        + org.apache.hadoop.hdfs.server.blockmanagement.WideEcGroupRiskScanner.fileOf(fsn, g.fileId())
        + ", leaving with " + from.getXferAddr();
    state.startedLeaving(internal);
    unitsInFlight.put(internal, g.groupId());
    metrics.decommissionUnitsRebuilding.set(running.incrementAndGet());
    metrics.decommissionCrossRackBytesPlanned.incr(r.crossRackBytes());
    String target = to.node().getXferAddr();
    try {
      workers.execute(() -> {
        try {
          boolean stored = orders.runLeaving(repair, new RebuildOrders.UnitTarget(r.unit(), unit, to, 0), from,
              leavingReplica, () -> WideEcLeavingUnits.unitLiveOn(fsn, g.groupId(), r.unit(), target), what);
          if (stored) {
            metrics.decommissionUnitsRebuilt.incr();
            metrics.decommissionBytesRebuilt.incr(r.bytes());
          } else { // the warning before says why
            DecommissionClaims.giveBack(g.groupId(), giveBackMs);
          }
        } finally {
          unitsInFlight.remove(internal);
          metrics.decommissionUnitsRebuilding.set(running.decrementAndGet());
        }
      });
    } catch (RejectedExecutionException e) { // stopping
      unitsInFlight.remove(internal);
      state.endedLeaving(internal);
      metrics.decommissionUnitsRebuilding.set(running.decrementAndGet());
    }
  }

  /** The plan's helpers first, in its order (the DataNode plans the same from this preference), then by unit. */
  private static Comparator<Integer> planFirst(List<UnitLocation> helpers) {
    Map<Integer, Integer> rank = new HashMap<>();
    for (int i = 0; i < helpers.size(); i++) {
      rank.put(helpers.get(i).unit(), i);
    }
    return Comparator.comparingInt((Integer u) -> rank.getOrDefault(u, Integer.MAX_VALUE)).thenComparingInt(u -> u);
  }

  private static byte[] readToken(BlockTokenSecretManager secrets, ExtendedBlock b) {
    return RebuildOrders.token(secrets, b, BlockTokenIdentifier.AccessMode.READ, new StorageType[0], new String[0]);
  }
}
