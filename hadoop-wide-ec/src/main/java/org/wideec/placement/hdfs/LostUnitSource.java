package org.wideec.placement.hdfs;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcArchivedBlocks;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcLeavingUnits.GroupUnits;
import org.wideec.repair.BlockRef;
import org.wideec.repair.DecommissionPlanner;

/**
 * Why units of our block groups must be rebuilt elsewhere, as {@link LostUnitRebuilds} asks it: which groups, which
 * of their units, from which helpers, what a rebuilt unit is checked against, and what HDFS is kept from doing
 * meanwhile ({@link RebuildClaims}). One strategy per cause: units on DataNodes leaving service ({@link
 * LeavingNodeUnits}) and units lost with their DataNode ({@link DeadNodeUnits}); the planning and the orders are the
 * same for both. Called from the monitor's thread, except {@link #expectedCrc} (a rebuild thread).
 */
interface LostUnitSource {
  /** What the logs call this work ("decommission", "lost-unit rebuild"). */
  String name();

  /**
   * A pass begins: the groups to plan, those still waiting from the last pass first (as the NameNode holds them now),
   * then those newly found, at most {@code room} of them and none of {@code skip}; empty when nothing is to be done.
   */
  List<GroupUnits> find(Set<Long> waiting, Set<Long> skip, int room);

  /** Whether this group's units are this pass's to rebuild (else HDFS's). */
  boolean takes(GroupUnits g);

  /** The units of the group to rebuild. */
  Set<Integer> units(GroupUnits g);

  /** The units helpers may be read from, with their DataNodes. */
  Map<Integer, DatanodeInfo> helpers(GroupUnits g);

  /**
   * The planner's view of these groups, each with its units to rebuild placed on a node of {@link #from}; a group
   * left out gets why in {@code refused}.
   */
  Map<Long, DecommissionPlanner.LeavingStripe> stripes(List<GroupUnits> groups,
      Map<String, WideEcArchivedBlocks.Target> live, Map<Long, String> refused);

  /** The nodes the units to rebuild are on in the planner's view (they never receive or send a unit). */
  Set<String> from();

  /** How a log line names where the unit was ("leaving with 10.0.0.1:9866", "lost"). */
  String where(GroupUnits g, int unit);

  /** The node the unit may be copied from (its leaving replica), or null when it can only be rebuilt. */
  DatanodeInfo copyFrom(GroupUnits g, int unit);

  /**
   * The link speeds a unit's copy from its node is priced against its rebuild at ({@link DecommissionPlanner}); null
   * when units are only rebuilt.
   */
  org.wideec.repair.LinkRates copyRates();

  /**
   * How this pass's plan shaped the unit's rebuild, where the source plans shapes (a dead node's units, by the
   * full-node recovery plan): the order of its rack-aggregated chain's racks, the units of its group one decode
   * rebuilds with it, and the rack links it crosses. Null where the decommission planner's default holds: racks in
   * name order, each unit alone.
   */
  default org.wideec.repair.FullNodeRecoveryPlan.Rebuild shape(GroupUnits g, int unit) {
    return null;
  }

  /** What the unit's rebuilt bytes are checked against, asked when its order is sent. */
  RebuildOrders.ExpectedCrc expectedCrc(GroupUnits g, int unit, BlockRef replica);

  /** The pass ended (or failed, {@code failed}): these groups are planned or in flight; claim them. */
  void publish(Set<Long> planned, boolean failed);

  /** Whether something remains that the passes have not looked at yet. */
  boolean more();

  /** Where this work's orders, rebuilt units, failures and units left to HDFS are counted. */
  WideEcNameNodeMetrics.UnitRebuildCounters counters();
}
