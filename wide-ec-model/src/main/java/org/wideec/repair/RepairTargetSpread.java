package org.wideec.repair;

import java.util.List;

/**
 * Target racks for one group's rebuilt units at a time, spread around the repairs placed just before it: what a
 * NameNode placement policy needs, since HDFS asks it group by group ({@link FullNodeRecoveryPlanner} on the one
 * group, with {@link RecentRepairFlows} as the repairs in flight). Thread-safe.
 */
public final class RepairTargetSpread {
  private final FullNodeRecoveryPlanner planner;
  private final RecentRepairFlows recent;

  public RepairTargetSpread(FullNodeRecoveryPlanner planner, RecentRepairFlows recent) {
    this.planner = planner;
    this.recent = recent;
  }

  /** The group's plan among the repairs in flight, which it then joins. */
  public FullNodeRecoveryPlan place(FullNodeRecoveryPlanner.GroupLoss group, long nowMs) {
    FullNodeRecoveryPlan plan = planner.plan(List.of(group), recent.load(nowMs, group.id()));
    recent.record(group.id(), plan.loadOf(group.id()), nowMs);
    return plan;
  }
}
