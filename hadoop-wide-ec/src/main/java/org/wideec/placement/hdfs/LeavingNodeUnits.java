package org.wideec.placement.hdfs;

import java.util.ArrayList;
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

/**
 * The units of our block groups on leaving DataNodes ({@link Decommission}), as {@link LostUnitRebuilds} rebuilds
 * them: each pass walks on over the leaving nodes' blocks from where the last one stopped ({@link
 * DecommissionSettings#BLOCKS_PER_PASS_KEY} at most), so a node with more blocks than one pass walks is covered lap
 * after lap, and the units left are counted over whole laps. A group is taken only while every unit is in service or
 * leaving (one HDFS reconstructs a truly missing unit of stays HDFS's); helpers are the units in service, and a
 * rebuilt unit must have the CRC32C its leaving replica has. Every group on a leaving node the walk has not covered
 * whole yet stays claimed, so HDFS does not copy what the walk has not reached.
 */
final class LeavingNodeUnits implements LostUnitSource {
  private final FSNamesystem fsn;
  private final WideEcNameNodeMetrics metrics;
  private final DecommissionSettings settings;
  private final String placementScheme;
  private final RebuildOrders orders;
  /** Where the next pass's walk over the leaving nodes' blocks begins. */
  private WideEcLeavingUnits.WalkCursor cursor = WideEcLeavingUnits.WalkCursor.START;
  /** Units of our block groups held only on leaving nodes, over whole walks of their blocks. */
  private final LeavingUnitCount groupUnitsLeft = new LeavingUnitCount();
  /** Transfer addresses of the nodes leaving at this pass. */
  private volatile Set<String> leaving = Set.of();
  /**
   * The leaving nodes whose every block a walk has looked at since they started leaving (nodes entering maintenance
   * keep their units, so are looked at at once): only their groups the passes did not plan are HDFS's to copy. Until
   * a lap covers a node, its groups are claimed, or HDFS would copy those the walk had not reached yet.
   */
  private Set<String> covered = Set.of();
  /** The decommissioning nodes leaving when the lap under way began. */
  private Set<String> lapNodes = Set.of();

  LeavingNodeUnits(FSNamesystem fsn, WideEcNameNodeMetrics metrics, DecommissionSettings settings,
      String placementScheme, RebuildOrders orders) {
    this.fsn = fsn;
    this.metrics = metrics;
    this.settings = settings;
    this.placementScheme = placementScheme;
    this.orders = orders;
  }

  @Override
  public String name() {
    return "decommission";
  }

  /** Transfer addresses of the DataNodes leaving service at the last pass. */
  Set<String> leavingNodes() {
    return leaving;
  }

  /** Transfer addresses of the DataNodes leaving service now (a node may start leaving during a pass). */
  Set<String> leavingNow() {
    return addresses(WideEcLeavingUnits.leaving(fsn));
  }

  private static Set<String> addresses(List<WideEcLeavingUnits.LeavingNode> nodes) {
    Set<String> addrs = new HashSet<>();
    nodes.forEach(n -> addrs.add(n.node().getXferAddr()));
    return addrs;
  }

  /** Units of our block groups held only on leaving nodes, over the last whole walk of their blocks. */
  long unitsLeft() {
    return groupUnitsLeft.left();
  }

  @Override
  public List<GroupUnits> find(Set<Long> waiting, Set<Long> skip, int room) {
    List<WideEcLeavingUnits.LeavingNode> nodes = WideEcLeavingUnits.leaving(fsn);
    Set<String> addrs = addresses(nodes);
    leaving = addrs;
    Set<String> seen = new HashSet<>(covered);
    nodes.stream().filter(WideEcLeavingUnits.LeavingNode::maintenance).forEach(n -> seen.add(n.node().getXferAddr()));
    seen.retainAll(addrs);
    covered = seen;
    metrics.decommission.nodes.set(nodes.size());
    if (nodes.isEmpty()) {
      cursor = WideEcLeavingUnits.WalkCursor.START;
      groupUnitsLeft.reset();
      return List.of();
    }
    List<GroupUnits> groups = new ArrayList<>(WideEcLeavingUnits.groups(fsn, waiting).values());
    Set<Long> walkSkip = new HashSet<>(skip);
    walkSkip.addAll(waiting);
    groups.addAll(walk(nodes, walkSkip, room).taken());
    return groups;
  }

  /**
   * The next stretch of the walk over the leaving nodes' blocks, from where the last one stopped: the groups it finds
   * to rebuild join those waiting (as many as there is room for), and the units it counts go to this lap's count.
   */
  private WideEcLeavingUnits.Walk walk(List<WideEcLeavingUnits.LeavingNode> nodes, Set<Long> skip, int room) {
    WideEcLeavingUnits.Walk w = WideEcLeavingUnits.walk(fsn, nodes, cursor, skip, room, settings.blocksPerPass());
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

  @Override
  public boolean takes(GroupUnits g) {
    // A group HDFS reconstructs a missing unit of: our plan cannot see where, so HDFS does the rest too.
    return g.whole() && !g.leaving().isEmpty();
  }

  @Override
  public Set<Integer> units(GroupUnits g) {
    return g.leaving().keySet();
  }

  @Override
  public Map<Integer, DatanodeInfo> helpers(GroupUnits g) {
    return g.inService();
  }

  @Override
  public Map<Long, DecommissionPlanner.LeavingStripe> stripes(List<GroupUnits> groups,
      Map<String, WideEcArchivedBlocks.Target> live, Map<Long, String> refused) {
    Map<Long, DecommissionPlanner.LeavingStripe> out = new HashMap<>();
    for (GroupUnits g : groups) {
      Map<Integer, DatanodeInfo> units = new HashMap<>(g.inService());
      units.putAll(g.leaving());
      try {
        out.put(g.groupId(), LeavingStripes.of(g.groupId(), g.numBytes(), g.policy(), units, placementScheme));
      } catch (RuntimeException e) { // a policy that defines no code here: HDFS copies its units, as before
        refused.put(g.groupId(), "its policy " + g.policy().getName() + " defines no code here: " + e.getMessage());
      }
    }
    return out;
  }

  @Override
  public Set<String> from() {
    return leaving;
  }

  @Override
  public String where(GroupUnits g, int unit) {
    DatanodeInfo d = g.leaving().get(unit);
    return "leaving with " + (d == null ? "its DataNode" : d.getXferAddr());
  }

  @Override
  public DatanodeInfo copyFrom(GroupUnits g, int unit) {
    return g.leaving().get(unit);
  }

  @Override
  public org.wideec.repair.LinkRates copyRates() {
    return settings.rates();
  }

  @Override
  public RebuildOrders.ExpectedCrc expectedCrc(GroupUnits g, int unit, BlockRef replica) {
    return orders.ofLeavingReplica(g.leaving().get(unit), replica);
  }

  @Override
  public void publish(Set<Long> planned, boolean failed) {
    if (failed) {
      covered = leaving; // nothing the walk has not reached is claimed: HDFS copies it
    }
    RebuildClaims.claimGroups(planned, covered);
  }

  @Override
  public boolean more() {
    return !covered.containsAll(leaving);
  }

  @Override
  public WideEcNameNodeMetrics.UnitRebuildCounters counters() {
    return metrics.decommissionCounters();
  }
}
