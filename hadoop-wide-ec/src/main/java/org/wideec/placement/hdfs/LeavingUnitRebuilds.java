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
import org.wideec.repair.RackLinkLoad;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Site;
import org.wideec.topology.hdfs.DataNodeSites;

/**
 * The units of our block groups on leaving DataNodes, moved elsewhere by our workers ({@link Decommission}). When
 * DataNodes leave service, HDFS copies each unit they hold from them, and their NIC is the bottleneck of the whole
 * decommission (HDFS-16613); here each unit of our block groups on a leaving node goes to a node that keeps the
 * group's placement ({@link DecommissionPlanner}), copied from the leaving node or rebuilt from its local group,
 * whichever split of the two the link model finds fastest with the orders in flight, many requestors at once with
 * helpers least recently selected, through the same orders as archived blocks ({@link RebuildOrders}). While we move a
 * unit, the placement policies give HDFS no target for its copy ({@link DecommissionClaims}); HDFS sees the unit live
 * on a node in service and completes the decommission itself. A unit whose order failed is given back to HDFS's copy
 * for at least its retry back-off. Only what a pass planned or has in flight is claimed: a
 * group it skipped (one HDFS reconstructs a truly missing unit of, one whose leaving replica is corrupt) stays HDFS's.
 *
 * <p>Each pass walks on over the leaving nodes' blocks from where the last one stopped ({@link
 * DecommissionSettings#BLOCKS_PER_PASS_KEY} at most), so a node with more blocks than one pass walks is covered lap
 * after lap; the groups found wait, claimed, until an order is free, and the units left are counted over whole laps.
 */
final class LeavingUnitRebuilds {
  private static final Logger LOG = LoggerFactory.getLogger(ArchiveRepairMonitor.class);
  /**
   * Block groups found to rebuild and waiting for an order, at most: a node with millions of units is planned over
   * many passes, and the walk over its blocks waits while this many wait.
   */
  private static final int MAX_WAITING = 10_000;

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
  private final ReportedOnce<Long> givenBack = new ReportedOnce<>();
  /** Units of block groups being rebuilt now (internal block id), with their group. */
  private final Map<Long, Long> unitsInFlight = new ConcurrentHashMap<>();
  /** What each unit's order in flight puts on the links (internal block id): the load the next plans share. */
  private final Map<Long, RackLinkLoad> flowsInFlight = new ConcurrentHashMap<>();
  /**
   * Block groups the walk found to rebuild that no order took yet, in the order found, as the last pass saw them:
   * claimed, and ordered first as orders end.
   */
  private final Map<Long, WideEcLeavingUnits.LeavingGroup> waiting = new java.util.LinkedHashMap<>();
  /** Where the next pass's walk over the leaving nodes' blocks begins. */
  private WideEcLeavingUnits.WalkCursor cursor = WideEcLeavingUnits.WalkCursor.START;
  /** Units of our block groups held only on leaving nodes, over whole walks of their blocks. */
  private final LeavingUnitCount groupUnitsLeft = new LeavingUnitCount();
  /** Transfer addresses of the nodes leaving at this pass. */
  private Set<String> leaving = Set.of();
  /**
   * Runs a pass soon (the monitor's wake): an order that ends while groups wait runs the next pass at once, so the
   * decommission keeps its orders busy instead of waiting a whole repair interval per batch (HDFS's own admin monitor
   * reschedules every few seconds; ours would otherwise pace a wide node's units at max-concurrent per interval).
   */
  private volatile Runnable orderEnded = () -> { };
  /** Whether the last pass left groups waiting for an order, or leaving nodes its walk has not covered. */
  private volatile boolean moreToOrder;
  /**
   * The leaving nodes whose every block a walk has looked at since they started leaving (nodes entering maintenance
   * keep their units, so are looked at at once): only their groups the passes did not plan are HDFS's to copy. Until
   * a lap covers a node, its groups are claimed, or HDFS would copy those the walk had not reached yet.
   */
  private Set<String> covered = Set.of();
  /** The decommissioning nodes leaving when the lap under way began. */
  private Set<String> lapNodes = Set.of();

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
    this.planner = new DecommissionPlanner(scheme, RackLinkLoad.Links.FULL_DUPLEX, settings.rates());
  }

  /** {@code wake} runs a pass soon; it is run when an order ends while more is waiting. */
  void onOrderEnded(Runnable wake) {
    orderEnded = wake;
  }

  /** Transfer addresses of the DataNodes leaving service at the last pass. */
  Set<String> leavingNodes() {
    return leaving;
  }

  /** Units of our block groups held only on leaving nodes, over the last whole walk of their blocks. */
  long unitsLeft() {
    return groupUnitsLeft.left();
  }

  /** A rebuild failed: when it was a unit of ours, HDFS copies its group at least until our next attempt. */
  void failed(long block, long ms) {
    Long group = unitsInFlight.get(block);
    if (group != null) {
      DecommissionClaims.giveBack(group, ms);
    }
  }

  /** At the end of a repair pass: what was given back this pass is counted again only once it comes back. */
  void endPass() {
    givenBack.endPass();
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
      covered = leaving; // and nothing the walk has not reached: HDFS copies it
      throw e;
    } finally {
      planned.addAll(unitsInFlight.values());
      planned.removeIf(DecommissionClaims::givenBack);
      DecommissionClaims.claimGroups(planned, covered);
      moreToOrder = !waiting.isEmpty() || !covered.containsAll(leaving);
    }
  }

  /** Plans and orders; {@code planned} gets each group this pass will rebuild, now or once an order is free. */
  private void plan(Map<String, WideEcArchivedBlocks.Target> live, Set<Long> planned) {
    givenBack.beginPass();
    List<WideEcLeavingUnits.LeavingNode> nodes = WideEcLeavingUnits.leaving(fsn);
    Set<String> addrs = new HashSet<>();
    nodes.forEach(n -> addrs.add(n.node().getXferAddr()));
    leaving = addrs;
    Set<String> seen = new HashSet<>(covered);
    nodes.stream().filter(WideEcLeavingUnits.LeavingNode::maintenance).forEach(n -> seen.add(n.node().getXferAddr()));
    seen.retainAll(addrs);
    covered = seen;
    metrics.decommissionNodes.set(nodes.size());
    if (nodes.isEmpty()) {
      waiting.clear();
      cursor = WideEcLeavingUnits.WalkCursor.START;
      groupUnitsLeft.reset();
      return;
    }
    List<WideEcLeavingUnits.LeavingGroup> groups = new ArrayList<>(
        WideEcLeavingUnits.groups(fsn, waiting.keySet()).values());
    groups.addAll(walk(nodes).taken());
    waiting.clear();
    Map<Long, WideEcLeavingUnits.LeavingGroup> later = new java.util.LinkedHashMap<>();
    List<DecommissionPlanner.LeavingStripe> stripes = new ArrayList<>();
    Map<String, WideEcLeavingUnits.LeavingGroup> byName = new java.util.LinkedHashMap<>();
    // Only as many groups as orders may start now are planned: the planner's least-recently-selected memory then
    // holds only the nodes orders really went to.
    int free = settings.maxConcurrent() - running.get();
    for (WideEcLeavingUnits.LeavingGroup g : groups) {
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
      planned.add(g.groupId());
      if (stripes.size() >= free) {
        later.put(g.groupId(), g); // planned at a later pass, as orders end
        continue;
      }
      try {
        DecommissionPlanner.LeavingStripe s = stripe(g);
        stripes.add(s);
        byName.put(s.name(), g);
      } catch (RuntimeException e) { // a policy that defines no code here: HDFS copies its units, as before
        giveBack(g, "its policy " + g.policy().getName() + " defines no code here: " + e.getMessage());
      }
    }
    if (!stripes.isEmpty()) {
      List<Site> candidates = live.values().stream().map(t -> DataNodeSites.of(t.node())).toList();
      RackLinkLoad inFlight = new RackLinkLoad(RackLinkLoad.Links.FULL_DUPLEX);
      flowsInFlight.values().forEach(f -> inFlight.add(f, 1));
      execute(planner.plan(addrs, stripes, candidates, inFlight), byName, live);
    }
    // What no order took now waits, first in line; the walk has passed it and meets it again only a lap later.
    for (WideEcLeavingUnits.LeavingGroup g : byName.values()) {
      if (!unitsInFlight.containsValue(g.groupId()) && !DecommissionClaims.givenBack(g.groupId())) {
        waiting.put(g.groupId(), g);
      }
    }
    waiting.putAll(later);
  }

  /**
   * The next stretch of the walk over the leaving nodes' blocks, from where the last one stopped: the groups it finds
   * to rebuild join those waiting (as many as there is room for), and the units it counts go to this lap's count.
   */
  private WideEcLeavingUnits.Walk walk(List<WideEcLeavingUnits.LeavingNode> nodes) {
    Set<Long> skip = new HashSet<>(waiting.keySet());
    skip.addAll(unitsInFlight.values());
    WideEcLeavingUnits.Walk w = WideEcLeavingUnits.walk(fsn, nodes, cursor, skip, MAX_WAITING - waiting.size(),
        settings.blocksPerPass());
    if (cursor.equals(WideEcLeavingUnits.WalkCursor.START)) {
      lapNodes = leaving;
    }
    cursor = w.next();
    if (w.lapEnded()) {
      Set<String> seen = new HashSet<>(covered);
      seen.addAll(lapNodes);
      seen.retainAll(leaving);
      covered = seen;
    }
    groupUnitsLeft.walked(w.leavingUnits(), w.lapEnded());
    return w;
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
    long internal = g.groupId() + r.unit();
    ExtendedBlock unit = new ExtendedBlock(pool, internal, r.bytes(), g.generationStamp());
    BlockRef leavingReplica = new BlockRef(pool, internal, g.generationStamp(), r.bytes(), readToken(secrets, unit));
    StripeRepair repair;
    try {
      StripeRepair planned = GroupRepair.of(group, g.policy(), units, at, new int[] {r.unit()}, scheme,
          b -> readToken(secrets, b)).repair();
      // A copy is the unit's own replica streamed through the target's worker, every chunk checked against its
      // checksum as the leaving node reads it, and stored like a rebuilt unit: on the target the plan chose.
      repair = r.fromLeavingNode()
          ? StripeRepair.copy(planned.name(), planned.code(), r.unit(), r.bytes(),
              new UnitLocation(r.unit(), DataNodeSites.of(from)), leavingReplica, scheme)
          : new StripeRepair(planned.name(), planned.code(), planned.lost(), planned.lostLengths(),
              planned.survivors(), planned.blocks(), planned.zeroUnits(), planned.scheme(), planned.weights(),
              planFirst(r.helpers()));
    } catch (RuntimeException e) {
      giveBack(g, "its repair could not be built: " + e.getMessage());
      return;
    }
    String what = "unit " + r.unit() + " (blk_" + internal + ") of block group blk_" + g.groupId() + " of "
        + org.apache.hadoop.hdfs.server.blockmanagement.WideEcGroupRiskScanner.fileOf(fsn, g.fileId())
        + ", leaving with " + from.getXferAddr();
    state.startedLeaving(internal);
    unitsInFlight.put(internal, g.groupId());
    flowsInFlight.put(internal, r.flows());
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
            if (r.fromLeavingNode()) {
              metrics.decommissionUnitsCopied.incr();
              metrics.decommissionBytesCopied.incr(r.bytes());
            }
          } else { // the warning before says why
            DecommissionClaims.giveBack(g.groupId(), giveBackMs);
          }
        } finally {
          unitsInFlight.remove(internal);
          flowsInFlight.remove(internal);
          metrics.decommissionUnitsRebuilding.set(running.decrementAndGet());
          if (moreToOrder) {
            orderEnded.run(); // only sets a flag and unparks the monitor
          }
        }
      });
    } catch (RejectedExecutionException e) { // stopping
      unitsInFlight.remove(internal);
      flowsInFlight.remove(internal);
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
