package org.wideec.placement.hdfs;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcArchivedBlocks;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcLeavingUnits;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcLeavingUnits.GroupUnits;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.wideec.repair.BlockRef;
import org.wideec.repair.DecommissionPlanner;
import org.wideec.repair.FullNodeRecoveryPlan;
import org.wideec.repair.FullNodeRecoveryPlanner;
import org.wideec.repair.RackLinkLoad;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Site;

/**
 * The units of our block groups that no live DataNode holds (their DataNode died, or a whole rack did), as {@link
 * LostUnitRebuilds} rebuilds them. HDFS queues every such group for reconstruction when it declares the node dead; its
 * RedundancyMonitor then takes a batch per pass (dfs.namenode.replication.work.multiplier.per.iteration times the live
 * nodes, every few seconds), a heartbeat delivers each task, and the groups of a large node wait for many passes.
 * Here each pass takes every group of ours from that queue at once: the rack of each lost unit from the full-node
 * scheduler over every rack link ({@link FullNodeRecoveryPlanner}, which keeps each group's placement guarantees), and
 * the node in that rack least recently selected over the whole pass ({@link DecommissionPlanner}). Helpers are the
 * units in service or on leaving nodes, those the plan costed. Nobody holds a lost unit's
 * CRC32C: the worker checks it by its second decode (dfs.datanode.ec.reconstruction.validation), as it checks the
 * tasks it takes over from HDFS.
 *
 * <p>The orders run the plan's shapes ({@link #shape}): each rack-aggregated chain visits its racks in the order the
 * plan chose to share the rack links, and a group's lost units that need a wider decode than their local group are
 * decoded jointly where the plan found that sends fewer bytes across racks. Rack links are full duplex, as a switch
 * port and the multi-process cluster's HTB-shaped rack uplinks are: a chain's middle rack then loads its downlink and
 * its uplink once each.
 *
 * <p>Where the surviving racks cannot hold a group's plan (a whole rack lost, every rack with a free node at the plan's
 * per-rack cap), the plan puts a unit in a rack beyond the cap, one whose loss stays decodable where some rack keeps
 * it so, and this orders it like any other: one INFO line per group says so and why, and {@code
 * LostUnitsPlacedBeyondRackCap} counts the units. HDFS's own reconstruction would place it beyond the cap anyway, by
 * its stock fallback, after waiting.
 *
 * <p>A group HDFS has a reconstruction pending for (scheduled before we claimed it) stays HDFS's, and so does one HDFS
 * has other work on (a corrupt, stale, leaving or in-maintenance replica: {@link WhyQueued#HDFS_WORK}), whatever it
 * loses, and a group whose lost units have no rack with a free node or no helper set that decodes them one by one. A
 * group queued only for its racks is not counted seen: a unit it loses is claimed until a pass takes it.
 */
final class DeadNodeUnits implements LostUnitSource {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ArchiveRepairMonitor.class);
  /**
   * Queue entries one pass looks at, at most, in one hold of the namesystem read lock; a queue longer than this is
   * looked at from its head (the most urgent groups) and nothing beyond it is claimed.
   */
  static final int MAX_QUEUE_LOOK = 100_000;

  private final FSNamesystem fsn;
  private final WideEcNameNodeMetrics metrics;
  private final String placementScheme;
  private final FullNodeRecoveryPlanner racks;
  /** The planner's stand-in nodes of the lost units of this pass's groups. */
  private final Set<String> lostAt = new HashSet<>();
  /** This pass's plan of each group's lost units, by group and unit. */
  private final Map<Long, Map<Integer, FullNodeRecoveryPlan.Rebuild>> shapes = new HashMap<>();
  /** Units (internal block ids) planned beyond their plan's rack cap: counted and logged once while they stay so. */
  private final ReportedOnce<Long> beyondCap = new ReportedOnce<>();
  /**
   * The groups of ours the last look at the queue saw (all but those queued only for their racks), or null when it
   * could not look at all of them.
   */
  private Set<Long> seen = Set.of();

  DeadNodeUnits(FSNamesystem fsn, WideEcNameNodeMetrics metrics, String placementScheme, RepairScheme scheme) {
    this.fsn = fsn;
    this.metrics = metrics;
    this.placementScheme = placementScheme;
    this.racks = new FullNodeRecoveryPlanner(scheme, RackLinkLoad.Links.FULL_DUPLEX, true);
  }

  @Override
  public String name() {
    return "lost-unit rebuild";
  }

  @Override
  public List<GroupUnits> find(Set<Long> waiting, Set<Long> skip, int room) {
    WideEcLeavingUnits.LostGroups q = WideEcLeavingUnits.lost(fsn, MAX_QUEUE_LOOK);
    seen = q.whole() ? q.seen() : null;
    metrics.lostUnitsFound.set(q.lost().stream().mapToLong(g -> g.lost().size()).sum());
    List<GroupUnits> found = new ArrayList<>();
    for (GroupUnits g : q.lost()) {
      if (!skip.contains(g.groupId()) && (waiting.contains(g.groupId()) || found.size() < room)) {
        found.add(g);
      }
    }
    // Those waiting since the last pass first, then the queue's order (HDFS's priorities: fewest units left first).
    found.sort(Comparator.comparing((GroupUnits g) -> !waiting.contains(g.groupId())));
    return found;
  }

  @Override
  public boolean takes(GroupUnits g) {
    return !g.lost().isEmpty() && !g.reconstructing();
  }

  @Override
  public Set<Integer> units(GroupUnits g) {
    return g.lost();
  }

  @Override
  public Map<Integer, DatanodeInfo> helpers(GroupUnits g) {
    Map<Integer, DatanodeInfo> h = new HashMap<>(g.leaving());
    h.putAll(g.inService());
    return h;
  }

  /**
   * Each group with its lost units placed, for the planner, on a stand-in node in the rack the full-node scheduler
   * chose for them (the planner then takes a node of that rack holding none of the group's units).
   */
  @Override
  public Map<Long, DecommissionPlanner.LeavingStripe> stripes(List<GroupUnits> groups,
      Map<String, WideEcArchivedBlocks.Target> live, Map<Long, String> refused) {
    lostAt.clear();
    shapes.clear();
    beyondCap.beginPass();
    Map<Long, DecommissionPlanner.LeavingStripe> held = new HashMap<>();
    List<FullNodeRecoveryPlanner.GroupLoss> losses = new ArrayList<>();
    for (GroupUnits g : groups) {
      try {
        DecommissionPlanner.LeavingStripe s = LeavingStripes.of(g.groupId(), g.numBytes(), g.policy(), helpers(g),
            placementScheme);
        if (s.plan() == null) {
          refused.put(g.groupId(), "its policy " + g.policy().getName() + " has no placement plan to rebuild it by");
          continue;
        }
        held.put(g.groupId(), s);
        losses.add(loss(g, s, live));
      } catch (RuntimeException e) { // a policy that defines no code here: HDFS reconstructs it, as before
        refused.put(g.groupId(), "its policy " + g.policy().getName() + " defines no code here: " + e.getMessage());
      }
    }
    Map<Long, Map<Integer, String>> rackOf = racks(losses, refused);
    beyondCap.endPass();
    Map<Long, DecommissionPlanner.LeavingStripe> out = new HashMap<>();
    held.forEach((id, s) -> {
      Map<Integer, String> r = rackOf.get(id);
      if (r == null) {
        return;
      }
      Map<Integer, UnitLocation> units = new HashMap<>(s.units());
      r.forEach((u, rack) -> {
        String standIn = "lost unit " + u + " of blk_" + id;
        lostAt.add(standIn);
        units.put(u, new UnitLocation(u, new Site(standIn, rack)));
      });
      out.put(id, new DecommissionPlanner.LeavingStripe(s.name(), s.code(), units, s.zeros(), s.unitLengths(),
          s.maxUnitsPerRack(), s.plan()));
    });
    return out;
  }

  private static FullNodeRecoveryPlanner.GroupLoss loss(GroupUnits g, DecommissionPlanner.LeavingStripe s,
      Map<String, WideEcArchivedBlocks.Target> live) {
    Map<Integer, String> liveRacks = new HashMap<>();
    Set<String> holders = new HashSet<>();
    s.units().forEach((u, at) -> {
      liveRacks.put(u, at.rack());
      holders.add(at.node());
    });
    Map<String, Integer> free = new HashMap<>();
    live.values().forEach(t -> {
      if (!holders.contains(t.node().getXferAddr())) {
        free.merge(t.node().getNetworkLocation(), 1, Integer::sum);
      }
    });
    // Each helper streams as many bytes as the longest unit its repair rebuilds (a short group's tail units less).
    long unitBytes = g.lost().stream().mapToLong(u -> s.unitLengths()[u]).max().orElse(0);
    return new FullNodeRecoveryPlanner.GroupLoss("blk_" + g.groupId(), s.plan(), liveRacks,
        g.lost().stream().mapToInt(Integer::intValue).toArray(), s.zeros(), free, unitBytes);
  }

  /**
   * The rack of every lost unit, all groups planned together so their repairs spread over the rack links; when some
   * unit has no rack at all, each group alone, and a group whose unit has none is refused. Keeps each rebuild's shape.
   */
  private Map<Long, Map<Integer, String>> racks(List<FullNodeRecoveryPlanner.GroupLoss> losses,
      Map<Long, String> refused) {
    Map<Long, Map<Integer, String>> out = new HashMap<>();
    try {
      keep(racks.plan(losses, new RackLinkLoad(RackLinkLoad.Links.FULL_DUPLEX)), out);
      return out;
    } catch (RuntimeException all) {
      for (FullNodeRecoveryPlanner.GroupLoss l : losses) {
        try {
          keep(racks.plan(List.of(l), new RackLinkLoad(RackLinkLoad.Links.FULL_DUPLEX)), out);
        } catch (RuntimeException e) {
          refused.put(idOf(l), "no rack can take its lost units " + java.util.Arrays.toString(l.lost()) + ": "
              + e.getMessage());
        }
      }
      return out;
    }
  }

  private void keep(FullNodeRecoveryPlan plan, Map<Long, Map<Integer, String>> racksOf) {
    for (FullNodeRecoveryPlan.Rebuild r : plan.rebuilds()) {
      long id = idOf(r.group());
      racksOf.computeIfAbsent(id, x -> new HashMap<>()).put(r.unit(), r.rack());
      shapes.computeIfAbsent(id, x -> new HashMap<>()).put(r.unit(), r);
    }
    reportBeyondCap(plan);
  }

  /** Counts each unit newly planned beyond its plan's rack cap, and says so once per group, with why. */
  private void reportBeyondCap(FullNodeRecoveryPlan plan) {
    Map<String, List<FullNodeRecoveryPlan.Rebuild>> newly = new java.util.TreeMap<>();
    for (FullNodeRecoveryPlan.Rebuild r : plan.beyondCap()) {
      if (beyondCap.first(idOf(r.group()) + r.unit())) {
        newly.computeIfAbsent(r.group(), x -> new ArrayList<>()).add(r);
      }
    }
    newly.forEach((group, rs) -> {
      metrics.lostUnits.placedBeyondRackCap.incr(rs.size());
      LOG.info("wide-ec lost-unit rebuild places unit(s) {} of block group {} beyond its plan's rack limit: {}",
          rs.stream().map(FullNodeRecoveryPlan.Rebuild::unit).toList(), group,
          rs.stream().map(FullNodeRecoveryPlan.Rebuild::beyondCap).collect(java.util.stream.Collectors.joining("; ")));
    });
  }

  private static long idOf(FullNodeRecoveryPlanner.GroupLoss l) {
    return idOf(l.id());
  }

  private static long idOf(String group) {
    return Long.parseLong(group.substring("blk_".length()));
  }

  @Override
  public FullNodeRecoveryPlan.Rebuild shape(GroupUnits g, int unit) {
    return shapes.getOrDefault(g.groupId(), Map.of()).get(unit);
  }

  @Override
  public Set<String> from() {
    return Set.copyOf(lostAt);
  }

  @Override
  public String where(GroupUnits g, int unit) {
    return "lost with its DataNode";
  }

  @Override
  public DatanodeInfo copyFrom(GroupUnits g, int unit) {
    return null; // its node is dead
  }

  @Override
  public org.wideec.repair.LinkRates copyRates() {
    return null;
  }

  @Override
  public RebuildOrders.ExpectedCrc expectedCrc(GroupUnits g, int unit, BlockRef replica) {
    return RebuildOrders.UNKNOWN_CRC;
  }

  @Override
  public void publish(Set<Long> planned, boolean failed) {
    RebuildClaims.claimLost(planned, failed ? null : seen);
  }

  @Override
  public boolean more() {
    return false;
  }

  @Override
  public WideEcNameNodeMetrics.UnitRebuildCounters counters() {
    return metrics.lostUnitCounters();
  }
}
