package org.wideec.archive;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.code.LinearCode;
import org.wideec.code.UnitRole;
import org.wideec.placement.PlacementException;
import org.wideec.placement.PlacementPlan;
import org.wideec.topology.Site;

/**
 * Plans the archival of replicated files into wide stripes (DESIGN.md §3.2), without touching HDFS:
 * <ol>
 *   <li>the blocks form stripes ({@link StripeGrouping}) in file order or around core racks; the short last stripe
 *       is padded virtually, and a parity that covers only padding is zero and virtual too;</li>
 *   <li>the placement kind's planner gives the stripe's plan racks (combined locality, one local group per rack,
 *       flat); {@link KeepAssignment} maps them to real racks and keeps replicas with the fewest bytes moved;</li>
 *   <li>moved blocks and parities go to free nodes of their racks, the least loaded by this plan first, never to a
 *       node that already holds a unit of the stripe;</li>
 *   <li>every stripe must survive the loss of any one rack by the code's own decodability, or the plan is
 *       refused naming the stripe and the rack;</li>
 *   <li>each stripe is costed for both encoders ({@link ClassicEncoding}, {@link ChainEncoding}).</li>
 * </ol>
 * {@link ArchiveGrouping#AUTO} plans both groupings and keeps, for the whole archive, the one whose chain archival
 * sends fewer bytes across racks (streams, deliveries and moves; file order on a tie); the plan says which and why.
 * The systematic layout of {@link StripePlanner}: only codes pinned by the on-disk format may store data, and only
 * systematic ones keep their data blocks as they are; anything else is refused before planning.
 */
public final class ArchivalPlanner {
  private ArchivalPlanner() {}

  public static ArchivalPlan plan(ArchivalRequest request) {
    if (request.grouping() != ArchiveGrouping.AUTO) {
      return plan(request, request.grouping()).withGrouping(request.grouping(), "asked for");
    }
    ArchivalPlan files = plan(request, ArchiveGrouping.FILES);
    ArchivalPlan racks = plan(request, ArchiveGrouping.RACKS);
    long f = files.crossRackBytesPlanned();
    long r = racks.crossRackBytesPlanned();
    String costs = "chain archival across racks " + ArchivalPlan.bytes(r) + " (" + r + " B) grouped by racks, "
        + ArchivalPlan.bytes(f) + " (" + f + " B) in file order";
    return r < f ? racks.withGrouping(ArchiveGrouping.RACKS, "auto: " + costs)
        : files.withGrouping(ArchiveGrouping.FILES, "auto: " + costs + (r == f ? "; a tie keeps file order" : ""));
  }

  private static ArchivalPlan plan(ArchivalRequest request, ArchiveGrouping grouping) {
    LinearCode code = StripePlanner.code(StripeLayout.SYSTEMATIC, request.path(), request.codeSpec());
    PlacementPlan base;
    try {
      base = request.placement().planner().plan(code);
    } catch (PlacementException e) {
      throw new ArchivalPlanException("cannot archive " + request.path() + ": " + e.getMessage(), e);
    }
    Map<String, String> rackOfNode = StripePlanner.rackOfNode(request.topology());
    Map<String, Long> load = new HashMap<>();
    int[] dataIn = new int[code.n()];
    for (int u = 0; u < code.k(); u++) {
      dataIn[base.rackOf()[u]]++;
    }
    List<PlannedStripe> stripes = StripePlanner.stripes(code, request.path(), request.scope(), request.files(),
        request.firstStripeId(), grouping, rackOfNode.keySet(), java.util.Arrays.stream(dataIn).max().orElse(1),
        (id, blocks) -> new StripePlanning(request, code, id, blocks, rackOfNode, load, grouping)
            .plan(base.rackOf()));
    return new ArchivalPlan(request.path(), request.scope(), code.spec(), code.n(), code.k(), request.placement(),
        request.files().size(), stripes, grouping, "");
  }

  /** The planning of one stripe. */
  private static final class StripePlanning {
    private final ArchivalRequest request;
    private final LinearCode code;
    private final long id;
    private final List<DataBlock> blocks;
    private final Map<String, String> rackOfNode;
    private final Map<String, Long> load;
    private final ArchiveGrouping grouping;
    private final String name;

    StripePlanning(ArchivalRequest request, LinearCode code, long id, List<DataBlock> blocks,
        Map<String, String> rackOfNode, Map<String, Long> load, ArchiveGrouping grouping) {
      this.request = request;
      this.code = code;
      this.id = id;
      this.blocks = blocks;
      this.rackOfNode = rackOfNode;
      this.load = load;
      this.grouping = grouping;
      this.name = "stripe " + id + " of " + request.path() + " (" + code.spec() + ", blocks "
          + blocks.get(0).describe() + (blocks.size() > 1 ? " .. " + blocks.get(blocks.size() - 1).describe() : "")
          + ")";
    }

    /**
     * The stripe kept with the fewest bytes moved, or, when the chain archival then crosses racks less and moves no
     * more, kept for the fewest bytes across racks: parities in the core rack, and (grouped by racks, where the members
     * are not in file order anyway) blocks free to take any data unit ({@link KeepAssignment}). The second is a plan of
     * its own, so the choice is on the exact costs of both.
     */
    PlannedStripe plan(int[] baseRackOf) {
      int real = blocks.size();
      boolean[] stored = new boolean[code.n()];
      for (int u = 0; u < code.n(); u++) {
        stored[u] = u < code.k() ? u < real : !ArchivedStripe.zeroParity(code, u, d -> d >= real);
      }
      long unitLength = blocks.stream().mapToLong(DataBlock::length).max().orElse(0);
      Map<Integer, KeepMatching.Unit> data = new HashMap<>();
      Map<Integer, List<Site>> replicas = new HashMap<>();
      for (int u = 0; u < real; u++) {
        List<String> live = liveReplicas(blocks.get(u));
        data.put(u, new KeepMatching.Unit(u, blocks.get(u).length(), live));
        replicas.put(u, live.stream().map(n -> new Site(n, rackOfNode.get(n))).toList());
      }
      KeepAssignment.Result fewestMoves =
          new KeepAssignment(code, stored, data, request.topology(), name).assign(baseRackOf);
      Map<String, Long> loadAfter = new HashMap<>(load);
      PlannedStripe best = build(fewestMoves, stored, data, unitLength, fewestMoves.relabelOptimum(), -1, loadAfter);
      String core = org.wideec.archive.encode.ChainSources.coreRack(replicas);
      if (core != null) {
        KeepAssignment.Result across = new KeepAssignment(code, stored, data, request.topology(), name,
            new KeepAssignment.Delivery(core, unitLength), grouping == ArchiveGrouping.RACKS).assign(baseRackOf);
        Map<String, Long> loadAcross = new HashMap<>(load);
        PlannedStripe other = build(across, stored, data, unitLength, fewestMoves.relabelOptimum(),
            best.crossRackBytesPlanned(), loadAcross);
        // Never a move more for it: a core-rack chain leaves its moves to the trim, so until then (or with no trim) the
        // blocks are read where they are, not where a plan that traded a move for a delivery says.
        if (other.crossRackBytesPlanned() < best.crossRackBytesPlanned() && other.bytesMoved() <= best.bytesMoved()) {
          best = other;
          loadAfter = loadAcross;
        }
      }
      load.putAll(loadAfter);
      return best;
    }

    /**
     * The stripe as {@code keep} assigns it, its targets chosen by {@code load} (which it updates);
     * {@code crossRackBytesWithFewestMoves} -1: this is the stripe kept with the fewest moves.
     */
    private PlannedStripe build(KeepAssignment.Result keep, boolean[] stored, Map<Integer, KeepMatching.Unit> byBlock,
        long unitLength, long bytesMovedWithPlanRacks, long crossRackBytesWithFewestMoves, Map<String, Long> load) {
      int real = blocks.size();
      List<DataBlock> inUnits = new ArrayList<>();
      Map<Integer, KeepMatching.Unit> data = new HashMap<>();
      for (int u = 0; u < real; u++) {
        inUnits.add(blocks.get(keep.blockOf()[u]));
        data.put(u, byBlock.get(keep.blockOf()[u]));
      }
      PlannedUnit[] units = new PlannedUnit[code.n()];
      Set<String> used = new java.util.HashSet<>();
      for (int u = 0; u < real; u++) {
        if (keep.keptNode()[u] != null) {
          used.add(keep.keptNode()[u]);
        }
      }
      for (Map.Entry<Integer, String> e : keep.realRack().entrySet()) {
        String rack = e.getValue();
        for (int u = 0; u < code.n(); u++) {
          if (!stored[u] || keep.rackOf()[u] != e.getKey()) {
            continue;
          }
          if (u < real && keep.keptNode()[u] != null) {
            units[u] = new PlannedUnit(u, UnitRole.DATA, PlannedUnit.Action.KEEP, inUnits.get(u), inUnits.get(u).length(),
                keep.keptNode()[u], rack, null, null);
          } else if (u < real) {
            String target = leastLoaded(rack, used, inUnits.get(u).length(), load);
            String from = moveSource(data.get(u).replicaNodes(), rack);
            units[u] = new PlannedUnit(u, UnitRole.DATA, PlannedUnit.Action.MOVE, inUnits.get(u),
                inUnits.get(u).length(), target, rack, from, rackOfNode.get(from));
          } else {
            units[u] = new PlannedUnit(u, code.role(u), PlannedUnit.Action.WRITE, null, unitLength,
                leastLoaded(rack, used, unitLength, load), rack, null, null);
          }
        }
      }
      for (int u = 0; u < code.n(); u++) {
        if (!stored[u]) {
          units[u] = new PlannedUnit(u, code.role(u), PlannedUnit.Action.VIRTUAL, null, 0, null, null, null, null);
        }
      }
      List<PlannedUnit> list = List.of(units);
      requireRackLossDecodable(code, name, list);
      Map<Integer, Set<String>> replicaNodes = new HashMap<>();
      Map<Integer, List<Site>> live = new HashMap<>();
      for (PlannedUnit u : list) {
        if (u.isStoredData()) {
          Set<String> nodes = new LinkedHashSet<>(data.get(u.unit()).replicaNodes());
          live.put(u.unit(), nodes.stream().map(n -> new Site(n, rackOfNode.get(n))).toList());
          nodes.add(u.node());
          replicaNodes.put(u.unit(), nodes);
        }
      }
      ChainEncoding chain = ChainEncoding.of(code, list, EncodePlan.Shape.CHAIN,
          org.wideec.archive.encode.ChainReads.CHEAPER, live);
      long acrossNow = chain.crossRackBytes()
          + list.stream().filter(PlannedUnit::crossRackMove).mapToLong(PlannedUnit::length).sum();
      return new PlannedStripe(id, code.spec(), list, unitLength,
          ClassicEncoding.of(list, replicaNodes, rackOfNode, request.topology()), chain, bytesMovedWithPlanRacks,
          crossRackBytesWithFewestMoves < 0 ? acrossNow : crossRackBytesWithFewestMoves, live);
    }

    /** The nodes holding live replicas; refuses a block without one, or a replica the topology places elsewhere. */
    private List<String> liveReplicas(DataBlock b) {
      List<String> live = new ArrayList<>();
      for (Site r : b.block().replicas()) {
        String rack = rackOfNode.get(r.node());
        if (rack == null) {
          continue; // not a live node: its replica cannot be kept or read
        }
        if (!r.rack().equals(rack)) {
          throw new ArchivalPlanException(name + ": " + b.describe() + " has a replica on " + r.node() + " in rack "
              + r.rack() + ", but the topology has that node in rack " + rack);
        }
        if (!live.contains(r.node())) {
          live.add(r.node());
        }
      }
      if (live.isEmpty()) {
        throw new ArchivalPlanException(name + ": " + b.describe() + " has no live replica (replicas on "
            + b.block().replicas().stream().map(Site::node).toList() + "); repair or restore it first");
      }
      return live;
    }

    /** The least loaded node of the rack not yet holding a unit of the stripe (ties: topology order). */
    private String leastLoaded(String rack, Set<String> used, long bytes, Map<String, Long> load) {
      String best = null;
      for (String node : request.topology().nodes(rack)) {
        if (!used.contains(node) && (best == null || load.getOrDefault(node, 0L) < load.getOrDefault(best, 0L))) {
          best = node;
        }
      }
      if (best == null) {
        throw new IllegalStateException(name + ": no free node left in rack " + rack + " although the plan fits it");
      }
      used.add(best);
      load.merge(best, bytes, Long::sum);
      return best;
    }

    /** A live replica to copy from: one in the target rack when there is one (an in-rack copy). */
    private String moveSource(List<String> live, String rack) {
      return live.stream().filter(n -> rack.equals(rackOfNode.get(n))).findFirst().orElse(live.get(0));
    }
  }

  /**
   * Refuses a stripe that some single rack's loss would leave undecodable by the code (virtual units are known
   * zeros, never lost), naming the stripe and the rack; and one whose units share a node.
   */
  static void requireRackLossDecodable(LinearCode code, String stripe, List<PlannedUnit> units) {
    for (String rack : new TreeSet<>(units.stream().filter(PlannedUnit::stored).map(PlannedUnit::rack).toList())) {
      int[] lost = units.stream().filter(u -> u.stored() && u.rack().equals(rack)).mapToInt(PlannedUnit::unit)
          .toArray();
      if (!code.isDecodable(lost)) {
        throw new ArchivalPlanException(stripe + ": losing rack " + rack + " (units " + java.util.Arrays.toString(lost)
            + ") is more than " + code.spec() + " decodes; refusing the plan");
      }
    }
    long nodes = units.stream().filter(PlannedUnit::stored).map(PlannedUnit::node).distinct().count();
    long stored = units.stream().filter(PlannedUnit::stored).count();
    if (nodes != stored) {
      throw new ArchivalPlanException(stripe + ": " + stored + " stored units on " + nodes + " nodes; one unit per node");
    }
  }
}
