package org.wideec.placement.hdfs;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcArchivedBlocks;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcLeavingUnits.GroupUnits;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.repair.DecommissionPlan;
import org.wideec.repair.DecommissionPlanner;
import org.wideec.repair.FullNodeRecoveryPlan;
import org.wideec.repair.RackLinkLoad;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.StripeRepair;
import org.wideec.topology.Site;
import org.wideec.topology.hdfs.DataNodeSites;

/**
 * Units of our block groups rebuilt elsewhere on the NameNode's order, whatever took them away ({@link
 * LostUnitSource}: a decommission, a dead DataNode). HDFS would copy a leaving unit from its node, whose NIC then paces
 * the whole decommission (HDFS-16613), and reconstructs a lost unit in batches a RedundancyMonitor pass picks and a
 * heartbeat delivers; here each unit is rebuilt from its local group on a node that keeps the group's placement ({@link
 * DecommissionPlanner}), or, a leaving unit whose copy the links finish sooner, copied from its leaving replica through
 * our worker to that node ({@link LostUnitSource#copyRates}), many requestors at once with helpers least recently
 * selected, through the same orders as archived blocks ({@link RebuildOrders}). While we rebuild a unit, the
 * placement policies give HDFS no target for it ({@link RebuildClaims}); HDFS sees the rebuilt unit live and needs
 * nothing more. A unit nothing else can rebuild or copy, or whose order failed, is given back to HDFS for at least its
 * retry back-off. Only what a pass planned or has in flight is claimed (and what it has not looked at yet, as the
 * source says): a group it skipped stays HDFS's.
 *
 * <p>Where the source shaped a unit's rebuild ({@link LostUnitSource#shape}: a dead node's units, by the full-node
 * recovery plan), the order ({@link UnitRebuildOrder}) runs that shape: its chain visits the racks in the plan's
 * order, with the helpers the plan costed, and the units the plan decodes jointly are rebuilt by one order at the
 * first one's target, which sends the others on; what it records of the links is the plan's.
 *
 * <p>At most a configured number of orders run at once; the groups found beyond them wait, claimed, first in line, and
 * an order that ends while groups wait runs the next pass at once, so the orders stay busy whatever the pass interval.
 */
final class LostUnitRebuilds {
  private static final Logger LOG = LoggerFactory.getLogger(ArchiveRepairMonitor.class);
  /**
   * Block groups found to rebuild and waiting for an order, at most: a node with millions of units is planned over
   * many passes, and the search for more waits while this many wait.
   */
  private static final int MAX_WAITING = 10_000;

  private final LostUnitSource source;
  private final FSNamesystem fsn;
  private final RebuildState state;
  private final RebuildOrders orders;
  private final ExecutorService workers;
  private final int maxConcurrent;
  private final RepairScheme scheme;
  private final long giveBackMs;
  private final WideEcNameNodeMetrics.UnitRebuildCounters counters;
  private final DecommissionPlanner planner;
  private final ReportedOnce<Long> givenBack = new ReportedOnce<>();
  private final UnitsInFlight inFlight;
  /**
   * Block groups found to rebuild that no order took yet, in the order found, as the last pass saw them: claimed, and
   * ordered first as orders end.
   */
  private final Map<Long, GroupUnits> waiting = new LinkedHashMap<>();
  /** Runs a pass soon (the monitor's wake): an order that ends while groups wait runs the next pass at once. */
  private volatile Runnable orderEnded = () -> { };
  /** Whether the last pass left groups waiting for an order, or something the source has not looked at. */
  private volatile boolean moreToOrder;

  LostUnitRebuilds(LostUnitSource source, FSNamesystem fsn, RebuildState state, RebuildOrders orders,
      ExecutorService workers, int maxConcurrent, RepairScheme scheme, long giveBackMs) {
    this(source, fsn, state, orders, workers, maxConcurrent, scheme, giveBackMs, new LinksInFlight());
  }

  /** @param flowsInFlight what orders under way put on the links, shared with other plans of the same links */
  LostUnitRebuilds(LostUnitSource source, FSNamesystem fsn, RebuildState state, RebuildOrders orders,
      ExecutorService workers, int maxConcurrent, RepairScheme scheme, long giveBackMs, LinksInFlight flowsInFlight) {
    this.source = source;
    this.fsn = fsn;
    this.state = state;
    this.orders = orders;
    this.workers = workers;
    this.maxConcurrent = maxConcurrent;
    this.scheme = scheme;
    this.giveBackMs = giveBackMs;
    this.counters = source.counters();
    this.inFlight = new UnitsInFlight(flowsInFlight, counters.rebuilding());
    // Priced against the links, a unit that can be copied is copied where that shortens the whole plan; without
    // rates every unit the others can rebuild is rebuilt.
    this.planner = source.copyRates() == null ? new DecommissionPlanner(scheme)
        : new DecommissionPlanner(scheme, RackLinkLoad.Links.FULL_DUPLEX, source.copyRates());
    state.tell(new RebuildState.Outcomes() {
      @Override
      public void repaired(long block) {}

      @Override
      public void failed(long block, long backoffMs) {
        // HDFS takes the group over at least until our next attempt, which the back-off delays (doubling up to an hour).
        Long group = inFlight.groupOf(block);
        if (group != null) {
          RebuildClaims.giveBack(group, Math.max(giveBackMs, backoffMs));
        }
      }
    });
  }

  /** {@code wake} runs a pass soon; it is run when an order ends while more is waiting. */
  void onOrderEnded(Runnable wake) {
    orderEnded = wake;
  }

  /** At the end of a repair pass: what was given back this pass is counted again only once it comes back. */
  void endPass() {
    givenBack.endPass();
  }

  /**
   * At the start of a repair pass: every unit the source finds planned and, up to the configured number at once,
   * ordered; the rest wait, claimed.
   */
  void pass(Map<String, WideEcArchivedBlocks.Target> live) {
    Set<Long> planned = new HashSet<>();
    boolean failed = true;
    try {
      plan(live, planned);
      failed = false;
    } catch (RuntimeException | LinkageError e) {
      planned.clear(); // only what is in flight stays claimed
      throw e;
    } finally {
      planned.addAll(inFlight.groups());
      planned.removeIf(RebuildClaims::givenBack);
      source.publish(planned, failed);
      moreToOrder = !waiting.isEmpty() || source.more();
    }
  }

  /** Plans and orders; {@code planned} gets each group this pass will rebuild, now or once an order is free. */
  private void plan(Map<String, WideEcArchivedBlocks.Target> live, Set<Long> planned) {
    givenBack.beginPass();
    Set<Long> skip = new HashSet<>(inFlight.groups());
    List<GroupUnits> groups = source.find(waiting.keySet(), skip, MAX_WAITING - waiting.size());
    waiting.clear();
    Map<Long, GroupUnits> later = new LinkedHashMap<>();
    List<GroupUnits> now = new ArrayList<>();
    // Only as many groups as orders may start now are planned: the planner's least-recently-selected memory then
    // holds only the nodes orders really went to.
    int free = maxConcurrent - inFlight.orders();
    for (GroupUnits g : groups) {
      if (RebuildClaims.givenBack(g.groupId())) {
        givenBack.first(g.groupId()); // still with HDFS: counted once while it lasts
        continue;
      }
      if (!source.takes(g)) {
        continue;
      }
      if (source.units(g).stream().anyMatch(u -> state.busy(g.groupId() + u))) {
        continue; // in flight (claimed as such), or backing off (given back meanwhile)
      }
      planned.add(g.groupId());
      if (now.size() >= free) {
        later.put(g.groupId(), g); // planned at a later pass, as orders end
      } else {
        now.add(g);
      }
    }
    Map<String, GroupUnits> byName = new LinkedHashMap<>();
    List<DecommissionPlanner.LeavingStripe> stripes = new ArrayList<>();
    if (!now.isEmpty()) {
      Map<Long, String> refused = new HashMap<>();
      Map<Long, DecommissionPlanner.LeavingStripe> views = source.stripes(now, live, refused);
      for (GroupUnits g : now) {
        DecommissionPlanner.LeavingStripe s = views.get(g.groupId());
        if (s == null) {
          giveBack(g, refused.getOrDefault(g.groupId(), "it has no plan"));
          continue;
        }
        stripes.add(s);
        byName.put(s.name(), g);
      }
    }
    if (!stripes.isEmpty()) {
      List<Site> candidates = live.values().stream().map(t -> DataNodeSites.of(t.node())).toList();
      execute(planner.plan(source.from(), stripes, candidates, inFlight.links()), byName, live);
    }
    // What no order took now waits, first in line.
    for (GroupUnits g : byName.values()) {
      if (!inFlight.hasGroup(g.groupId()) && !RebuildClaims.givenBack(g.groupId())) {
        waiting.put(g.groupId(), g);
      }
    }
    waiting.putAll(later);
  }

  private void execute(DecommissionPlan plan, Map<String, GroupUnits> byName,
      Map<String, WideEcArchivedBlocks.Target> live) {
    for (DecommissionPlan.Unplaced u : plan.unplaced()) {
      giveBack(byName.get(u.stripe()), "unit " + u.unit() + ": " + u.why());
    }
    Map<String, Map<Integer, DecommissionPlan.Rebuild>> placed = new HashMap<>();
    plan.rebuilds().forEach(r -> placed.computeIfAbsent(r.stripe(), x -> new HashMap<>()).put(r.unit(), r));
    for (DecommissionPlan.Rebuild r : plan.rebuilds()) {
      GroupUnits g = byName.get(r.stripe());
      if (r.fromLeavingNode() && source.copyFrom(g, r.unit()) == null) {
        giveBack(g, "unit " + r.unit() + " cannot be rebuilt from the group's other units");
        continue;
      }
      if (inFlight.orders() >= maxConcurrent) {
        return; // the rest at a later pass (the planner remembers whom it selected)
      }
      if (RebuildClaims.givenBack(g.groupId())) {
        continue; // an earlier unit of this group was given back in this pass
      }
      FullNodeRecoveryPlan.Rebuild shape = source.shape(g, r.unit());
      List<DecommissionPlan.Rebuild> together = new ArrayList<>();
      if (shape == null || shape.decodedWith().isEmpty()) {
        together.add(r);
      } else if (shape.decodedWith().get(0) == r.unit()) {
        // One decode at the first unit's target rebuilds them all and sends the others on to their targets.
        for (int u : shape.decodedWith()) {
          DecommissionPlan.Rebuild other = placed.getOrDefault(r.stripe(), Map.of()).get(u);
          if (other == null || other.fromLeavingNode()) {
            break;
          }
          together.add(other);
        }
        if (together.size() != shape.decodedWith().size()) {
          giveBack(g, "units " + shape.decodedWith() + " are planned to be decoded together, and not all of them got"
              + " a target");
          continue;
        }
      } else {
        continue; // ordered with the first unit of its joint decode
      }
      order(g, together, shape, live);
    }
  }

  /** HDFS takes the group's units over for a while (counted and logged once while it lasts). */
  private void giveBack(GroupUnits g, String why) {
    RebuildClaims.giveBack(g.groupId(), giveBackMs);
    if (givenBack.first(g.groupId())) {
      counters.leftToHdfs().incr(source.units(g).size());
      LOG.info("wide-ec {} leaves block group blk_{} to HDFS for {} ms: {}", source.name(), g.groupId(), giveBackMs,
          why);
    }
  }

  /**
   * Orders the rebuild of one unit, or of several units of the group by one decode at the first one's target, which
   * sends the others on; along the rack chain the source's plan chose ({@code shape}, null: racks in name order).
   */
  private void order(GroupUnits g, List<DecommissionPlan.Rebuild> rs, FullNodeRecoveryPlan.Rebuild shape,
      Map<String, WideEcArchivedBlocks.Target> live) {
    UnitRebuildOrder order = UnitRebuildOrder.of(source, fsn, g, rs, shape, live);
    if (order == null) {
      return;
    }
    StripeRepair repair;
    try {
      repair = order.repair(scheme);
    } catch (RuntimeException e) {
      giveBack(g, "its repair could not be built: " + e.getMessage());
      return;
    }
    long[] internals = order.internals;
    for (long internal : internals) {
      state.startedUnit(internal);
    }
    inFlight.started(g.groupId(), internals, order.flows);
    counters.crossRackBytesPlanned().incr(order.crossRackBytes);
    counters.planned(order.flows, order.helperBytes, order.reordered(), order.size());
    try {
      workers.execute(() -> {
        try {
          boolean[] stored =
              orders.runUnits(repair, order.targets, order.crcs, order.lives, order.whats, counters.failures());
          boolean all = true;
          for (int i = 0; i < stored.length; i++) {
            all &= stored[i];
            if (stored[i]) {
              counters.rebuilt().incr();
              counters.bytes().incr(order.bytes(i));
              if (order.from != null) {
                counters.copied().incr();
                counters.bytesCopied().incr(order.bytes(i));
              }
            }
          }
          if (!all) { // the warning before says why
            RebuildClaims.giveBack(g.groupId(), giveBackMs);
          }
        } finally {
          inFlight.ended(internals);
          if (moreToOrder) {
            orderEnded.run(); // only sets a flag and unparks the monitor
          }
        }
      });
    } catch (RejectedExecutionException e) { // stopping
      inFlight.ended(internals);
      for (long internal : internals) {
        state.endedUnit(internal);
      }
    }
  }
}
