package org.wideec.placement.hdfs;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenSecretManager;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcArchivedBlocks;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.ArchivedStripeRepair;
import org.wideec.archive.RebuildJobs;
import org.wideec.archive.RebuildTargets;
import org.wideec.archive.StripeMember;
import org.wideec.repair.BlockRef;
import org.wideec.repair.MultiUnitStreams;
import org.wideec.repair.RepairGraph;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.RepairStep;
import org.wideec.repair.SingleUnitRepairPlanner;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Site;
import org.wideec.topology.hdfs.DataNodeSites;

/**
 * Turns one damaged archived stripe into rebuild orders for the archive repair monitor: a target for each lost unit
 * in its planned rack ({@link RebuildTargets}, least recently selected), the units on leaving DataNodes that the link
 * model copies from there ({@link LeavingCopies}) each one copy order to that target, the others grouped into orders
 * ({@link RebuildJobs}), each order's repair with the NameNode's READ tokens for its helpers, and the order handed to
 * the rebuild threads ({@link RebuildOrders}). Helpers and targets it selects are remembered, so the next stripe's
 * spread over other nodes. The monitor's thread only.
 */
final class StripeRebuildDispatch {
  /** Which lost units still held on leaving DataNodes are copied from there rather than rebuilt (a decommission). */
  interface LeavingCopies {
    /**
     * @param targets the target chosen for each lost unit about to be ordered
     * @param nodes the live DataNodes, leaving ones included, by transfer address (looked up only when needed)
     * @return the units to copy, each with where its leaving replica is
     */
    Map<Integer, UnitLocation> copies(ArchivedStripeRepair p, Map<Integer, Site> targets,
        java.util.function.Supplier<Map<String, org.apache.hadoop.hdfs.protocol.DatanodeInfo>> nodes);

    /** The block is about to be copied from its leaving node. */
    void copying(long block);
  }

  private static final Logger LOG = LoggerFactory.getLogger(ArchiveRepairMonitor.class);

  private final FSNamesystem fsn;
  private final WideEcNameNodeMetrics metrics;
  private final int maxConcurrent;
  private final RebuildState state;
  private final RebuildOrders orders;
  private final ExecutorService workers;
  /** How the DataNodes repair (their wide-ec.repair.scheme, assumed the same cluster-wide): what orders are costed by. */
  private final RepairScheme dataNodeScheme;
  /** A placeholder in the orders: the DataNode repairs by its own wide-ec.repair.scheme. */
  private final RepairScheme scheme = RepairScheme.PIPELINED;
  private final RebuildTargets targets = new RebuildTargets();
  /** Null when nothing decommissions by our workers: every lost unit is rebuilt. */
  private final LeavingCopies leavingCopies;

  StripeRebuildDispatch(FSNamesystem fsn, WideEcNameNodeMetrics metrics, int maxConcurrent, RebuildState state,
      RebuildOrders orders, ExecutorService workers, RepairScheme dataNodeScheme, LeavingCopies leavingCopies) {
    this.leavingCopies = leavingCopies;
    this.fsn = fsn;
    this.metrics = metrics;
    this.maxConcurrent = maxConcurrent;
    this.state = state;
    this.orders = orders;
    this.workers = workers;
    this.dataNodeScheme = dataNodeScheme;
  }

  /**
   * Orders the rebuild of the stripe's lost units that are neither running nor backing off: a target for each, then the
   * units grouped into orders ({@link RebuildJobs}: one joint decode for the units their local groups cannot rebuild
   * alone, when it moves fewer bytes across racks), at most {@link ArchiveRepairSettings#MAX_CONCURRENT_KEY} orders at
   * once (those of other stripes included).
   */
  void dispatch(ArchivedStripeRepair p, String manifest, Map<String, WideEcArchivedBlocks.Target> live,
      Set<String> stripeNodes, Map<String, Integer> unitsPerRack) {
    if (p.lost().length == 0 || state.ordersRunning() >= maxConcurrent) {
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
    Map<Integer, UnitLocation> copies = copies(p, chosen, manifest);
    for (Map.Entry<Integer, UnitLocation> c : copies.entrySet()) {
      if (state.ordersRunning() >= maxConcurrent) {
        return;
      }
      orderCopy(p, c.getKey(), c.getValue(), manifest, chosen);
    }
    int[] rebuilt = chosen.keySet().stream().filter(u -> !copies.containsKey(u)).mapToInt(Integer::intValue).toArray();
    if (rebuilt.length == 0) {
      return;
    }
    java.util.Comparator<Integer> preference = targets.helperPreference(p.helpers());
    List<RebuildJobs.Job> jobs;
    try {
      jobs = RebuildJobs.plan(p, rebuilt, targetRack, dataNodeScheme, preference);
    } catch (RuntimeException e) {
      for (int u : rebuilt) {
        state.failure(s.member(u).blockId(), what(s, u, manifest), e.getMessage());
      }
      return;
    }
    for (RebuildJobs.Job job : jobs) {
      if (state.ordersRunning() >= maxConcurrent) {
        return;
      }
      order(p, job, manifest, chosen, preference);
    }
  }

  /**
   * The lost units held on leaving DataNodes that the decommission copies from there, to the targets chosen; none
   * when nothing decommissions, or when pricing fails (then they are rebuilt, as before).
   */
  private Map<Integer, UnitLocation> copies(ArchivedStripeRepair p, Map<Integer, WideEcArchivedBlocks.Target> chosen,
      String manifest) {
    if (leavingCopies == null) {
      return Map.of();
    }
    Map<Integer, Site> at = new java.util.TreeMap<>();
    chosen.forEach((u, t) -> at.put(u, DataNodeSites.of(t.node())));
    try {
      return leavingCopies.copies(p, at, () -> WideEcArchivedBlocks.liveNodes(fsn));
    } catch (RuntimeException e) {
      LOG.warn("wide-ec: the copies of stripe {} of manifest {} from leaving DataNodes could not be priced ({}): its"
          + " units are rebuilt from the stripe", p.stripe().stripeId(), manifest, e.toString());
      return Map.of();
    }
  }

  /**
   * One order copying an archived block from its leaving replica to its target (the one its rebuild would have had,
   * in its planned rack), stored under its own id, generation stamp and length with the manifest's CRC32C; the leaving
   * replica stays until HDFS ends the decommission.
   */
  private void orderCopy(ArchivedStripeRepair p, int unit, UnitLocation from, String manifest,
      Map<Integer, WideEcArchivedBlocks.Target> chosen) {
    ArchivedStripe s = p.stripe();
    StripeMember m = s.member(unit);
    String name = "stripe " + s.stripeId() + " unit " + unit + " (blk_" + m.blockId() + " of "
        + RebuildOrders.fileOf(fsn, s, m) + ", copied from its leaving replica on " + from.node() + ")";
    StripeRepair repair;
    try {
      repair = StripeRepair.copy(name, s.code(), unit, m.length(), from, readRef(m), scheme);
    } catch (RuntimeException e) {
      state.failure(m.blockId(), what(s, unit, manifest), e.getMessage());
      return;
    }
    long cross = from.rack().equals(chosen.get(unit).node().getNetworkLocation()) ? 0 : m.length();
    leavingCopies.copying(m.blockId());
    send(s, new RebuildJobs.Job(new int[] {unit}, 0, cross, 0, cross), repair, manifest, chosen);
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
    if (job.joint()) {
      metrics.archiveJointRebuilds.incr();
      LOG.info("wide-ec: {} of manifest {} rebuilt by one decode at the target of unit {}: {} bytes across racks"
          + " planned, {} one by one", name, manifest, job.requestorUnit(), job.crossRackBytes(), job.perUnitBytes());
    }
    send(s, job, repair, manifest, chosen);
  }

  /** Hands the order to the rebuild threads, its blocks in flight until it ends. */
  private void send(ArchivedStripe s, RebuildJobs.Job job, StripeRepair repair, String manifest,
      Map<Integer, WideEcArchivedBlocks.Target> chosen) {
    state.started(RebuildOrders.blocks(s, job.units()));
    metrics.archiveRebuildOrders.incr();
    metrics.archiveRebuildCrossRackBytesPlanned.incr(job.crossRackBytes());
    try {
      workers.execute(() -> orders.run(repair, s, job, chosen, manifest));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      state.ended(RebuildOrders.blocks(s, job.units())); // stopping
    }
  }

  /** A member's block with the NameNode's READ token for it. */
  private BlockRef readRef(StripeMember h) {
    BlockTokenSecretManager secrets = fsn.getBlockManager().getBlockTokenSecretManager();
    String pool = fsn.getBlockPoolId();
    ExtendedBlock b = new ExtendedBlock(pool, h.blockId(), h.length(), h.generationStamp());
    return new BlockRef(pool, h.blockId(), h.generationStamp(), h.length(), RebuildOrders.token(secrets, b,
        BlockTokenIdentifier.AccessMode.READ, new StorageType[0], new String[0]));
  }

  /** The repair with the NameNode's READ tokens and the helpers least recently selected first. */
  private StripeRepair repair(ArchivedStripeRepair p, int[] units, String name, java.util.Comparator<Integer> preference,
      String requestorRack) {
    StripeRepair r = p.repairOf(units, name, u -> readRef(p.stripe().member(u)), scheme, preference);
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
