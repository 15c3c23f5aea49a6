package org.wideec.placement.hdfs;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcArchivedBlocks;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.ArchivedStripeRepair;
import org.wideec.archive.StripeMember;
import org.wideec.repair.DecommissionPlan;
import org.wideec.repair.DecommissionPlanner;
import org.wideec.repair.LinkRates;
import org.wideec.repair.RackLinkLoad;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Site;
import org.wideec.topology.hdfs.DataNodeSites;

/**
 * Archived blocks on leaving DataNodes. A leaving replica is not live in service, so a block held only on leaving
 * nodes is missing to the archive repair monitor, which gives it a target in its planned rack as for any lost block;
 * this prices, for each such block and that target, a copy from the leaving node against the rebuild from its stripe
 * ({@link DecommissionPlanner}, in one link model with the block groups' units, whose orders in flight it shares: the
 * copies keep the leaving node's NIC busy while the rebuilds use the rack links), counts it for the decommission,
 * claims it while the monitor copies or rebuilds it ({@link RebuildClaims}: HDFS does not copy it from the leaving
 * node meanwhile), and gives back to HDFS's copy one the stripe cannot rebuild, one the monitor could not order, or
 * one whose rebuild failed (for at least its retry back-off). A copy stores the block under its own id on the target
 * the stripe's plan chose, checked against the manifest's CRC32C, while the leaving replica stays until HDFS ends the
 * decommission, so the stripe is never less protected; a block whose copy failed is rebuilt from its stripe after.
 * Called on the monitor's thread, but for the outcomes of rebuilds, which come from the rebuild threads.
 *
 * <p>The leaving nodes are taken as a pass begins, while the monitor sees each stripe as it is when it looks: a node
 * that starts leaving in between has its blocks found lost and ordered by that very pass. So a lost block listed on a
 * node not among them has the leaving nodes asked for again (once a pass), and such a block is the decommission's:
 * counted, claimed and, once rebuilt, counted as rebuilt (a rebuild not in {@code ordered} is not counted in
 * DecommissionArchivedBlocksRebuilt).
 */
final class LeavingArchivedBlocks {
  private final WideEcNameNodeMetrics metrics;
  private final RebuildState state;
  private final long giveBackMs;
  /** Prices each block's copy against its rebuild; null without link rates: every block is rebuilt. */
  private final DecommissionPlanner planner;
  /** What the decommission's orders under way put on the links, the block groups' included. */
  private final LinksInFlight inFlight;
  /** The leaving node each block found this pass is copied from (transfer address). */
  private final Map<Long, String> leavingHolder = new HashMap<>();
  /** Blocks ordered as copies from their leaving node: counted as copies once live. */
  private final Set<Long> copying = ConcurrentHashMap.newKeySet();
  /** Blocks whose copy failed: rebuilt from their stripes from then on (their leaving replica may be bad). */
  private final Set<Long> copyFailed = ConcurrentHashMap.newKeySet();
  /** Archived blocks whose live replicas were all on leaving nodes when the repair monitor ordered them, by length. */
  private final Map<Long, Long> ordered = new ConcurrentHashMap<>();
  /** Archived blocks found held only on leaving nodes in this pass. */
  private final Set<Long> seen = new HashSet<>();
  private final ReportedOnce<Long> givenBack = new ReportedOnce<>();
  /** Transfer addresses of the nodes leaving at this pass. */
  private Set<String> leaving = Set.of();
  /** The nodes leaving now, asked when a lost block is listed on a node the pass did not take as leaving. */
  private final java.util.function.Supplier<Set<String>> leavingNow;
  /** Whether this pass has asked for the nodes leaving now. */
  private boolean asked;

  /**
   * @param rates the link rates copies are priced at; null: every block is rebuilt from its stripe
   * @param scheme how the DataNodes repair (which rack links a rebuild crosses)
   * @param leavingNow the transfer addresses of the DataNodes leaving service now
   */
  LeavingArchivedBlocks(WideEcNameNodeMetrics metrics, RebuildState state, long giveBackMs, LinkRates rates,
      RepairScheme scheme, LinksInFlight inFlight, java.util.function.Supplier<Set<String>> leavingNow) {
    this.metrics = metrics;
    this.leavingNow = leavingNow;
    this.state = state;
    this.giveBackMs = giveBackMs;
    this.planner = rates == null ? null : new DecommissionPlanner(scheme, RackLinkLoad.Links.FULL_DUPLEX, rates);
    this.inFlight = inFlight;
  }

  /** A repair pass starts with these DataNodes leaving (transfer addresses). */
  void beginPass(Set<String> leavingNodes) {
    leaving = leavingNodes;
    asked = false;
    seen.clear();
    leavingHolder.clear();
    givenBack.beginPass();
    inFlight.retain(state::busy); // an order that ended without an outcome (its target unusable, say)
  }

  /** The monitor looked at this stripe: its lost units held only on leaving nodes are counted, and claimed or given back. */
  void note(ArchivedStripe s, ArchivedStripeNow now) {
    ArchivedStripeRepair p = now.repair();
    for (int u : p.lost()) {
      StripeMember m = s.member(u);
      String holder = leavingHolder(now, m);
      if (holder != null) {
        ordered.put(m.blockId(), m.length()); // the monitor orders it
        seen.add(m.blockId());
        leavingHolder.put(m.blockId(), holder);
      }
    }
    for (int u : p.unrecoverable()) {
      StripeMember m = s.member(u);
      if (leavingHolder(now, m) != null) {
        // The rest of its stripe cannot rebuild it: HDFS copies it from the leaving node, as the plan would say.
        RebuildClaims.giveBack(m.blockId(), giveBackMs);
        if (givenBack.first(m.blockId())) {
          metrics.decommission.unitsFromLeavingNode.incr();
        }
      }
    }
  }

  /**
   * The leaving node listed for the member's block (the least of them, when several leave), or null; a block listed
   * only on nodes this pass did not take as leaving has them asked for again, once a pass (see the class comment).
   */
  private String leavingHolder(ArchivedStripeNow now, StripeMember m) {
    WideEcArchivedBlocks.BlockView v = now.views().get(m.blockId());
    if (v == null || v.holders().isEmpty()) {
      return null;
    }
    if (!asked && v.holders().stream().noneMatch(leaving::contains)) {
      asked = true;
      Set<String> more = leavingNow.get();
      if (!leaving.containsAll(more)) {
        Set<String> all = new HashSet<>(leaving);
        all.addAll(more);
        leaving = all;
      }
    }
    return v.holders().stream().filter(leaving::contains).sorted().findFirst().orElse(null);
  }

  /**
   * The stripe's lost units that this pass found on leaving nodes, each with the target the monitor chose for it (in
   * its planned rack: the archive's placement), split into copies from the leaving node and rebuilds from the stripe
   * by the link model, against the decommission's orders in flight; each unit's flows join those in flight now, as
   * the monitor orders them at once.
   *
   * @param targets the target chosen for each lost unit about to be ordered
   * @param nodes the live DataNodes, leaving ones included, by transfer address (looked up only when needed)
   * @return the units to copy, each with where its leaving replica is
   */
  Map<Integer, UnitLocation> copies(ArchivedStripeRepair p, Map<Integer, Site> targets,
      java.util.function.Supplier<Map<String, DatanodeInfo>> nodes) {
    ArchivedStripe s = p.stripe();
    if (planner == null || leavingHolder.isEmpty()
        || targets.keySet().stream().noneMatch(u -> leavingHolder.containsKey(s.member(u).blockId()))) {
      return Map.of();
    }
    Map<String, DatanodeInfo> live = nodes.get();
    Map<Integer, UnitLocation> units = new HashMap<>(p.helpers());
    Map<Integer, Site> priced = new HashMap<>();
    Set<String> from = new HashSet<>();
    targets.forEach((u, t) -> {
      long block = s.member(u).blockId();
      String holder = leavingHolder.get(block);
      DatanodeInfo d = holder == null ? null : live.get(holder);
      if (d != null && !copyFailed.contains(block)) {
        units.put(u, new UnitLocation(u, DataNodeSites.of(d)));
        priced.put(u, t);
        from.add(holder);
      }
    });
    if (priced.isEmpty() || planner == null) {
      return Map.of();
    }
    long[] lengths = new long[s.code().n()];
    for (int u = 0; u < lengths.length; u++) {
      lengths[u] = p.zeros().contains(u) ? 0 : s.member(u).length();
    }
    DecommissionPlanner.LeavingStripe stripe = new DecommissionPlanner.LeavingStripe("stripe " + s.stripeId(),
        s.code(), units, p.zeros(), lengths, s.code().n(), null, priced);
    DecommissionPlan plan = planner.plan(from, List.of(stripe), List.copyOf(priced.values()), inFlight.load());
    Map<Integer, UnitLocation> copies = new HashMap<>();
    for (DecommissionPlan.Rebuild r : plan.rebuilds()) {
      long block = s.member(r.unit()).blockId();
      inFlight.started(block, r.flows());
      if (r.fromLeavingNode()) {
        copies.put(r.unit(), units.get(r.unit()));
      }
    }
    return copies;
  }

  /** The block is about to be copied from its leaving node rather than rebuilt. */
  void copying(long block) {
    copying.add(block);
  }

  /**
   * The repair pass could not order these archived blocks (its dispatch failed): HDFS copies them for a back-off
   * rather than wait on an order that is not coming.
   */
  void notOrdered(long[] blocks) {
    for (long b : blocks) {
      inFlight.ended(b);
      copying.remove(b);
      if (ordered.remove(b) != null) {
        RebuildClaims.giveBack(b, giveBackMs);
      }
    }
  }

  /** A rebuilt block is live again: counted when it was one of ours. */
  void repaired(long block) {
    inFlight.ended(block);
    boolean copied = copying.remove(block);
    Long bytes = ordered.remove(block);
    if (bytes != null) {
      metrics.decommission.unitsRebuilt.incr();
      metrics.decommission.bytesRebuilt.incr(bytes);
      if (copied) {
        metrics.decommission.unitsCopied.incr();
        metrics.decommission.bytesCopied.incr(bytes);
        metrics.decommission.archivedBlocksCopied.incr();
      } else {
        metrics.decommission.archivedBlocksRebuilt.incr();
      }
    }
  }

  /** A rebuild failed: HDFS copies the block at least until our next attempt, which {@code ms} delays. */
  void failed(long block, long ms) {
    inFlight.ended(block);
    if (copying.remove(block)) {
      copyFailed.add(block);
    }
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
    copyFailed.retainAll(seen);
    RebuildClaims.claimArchived(ordered.keySet(), leaving);
  }
}
