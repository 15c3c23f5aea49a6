package org.wideec.placement.hdfs;

/**
 * Why one of our block groups sits in HDFS's queue of low-redundancy blocks, as the lost-unit pass tells it: which
 * decides whether the pass takes the group, leaves it to HDFS, or neither.
 *
 * <p>HDFS queues a group for three kinds of reason, and its queue does not say which (a group whose every unit is live
 * goes to {@code LowRedundancyBlocks}' badly-distributed level, but levels are only re-read when HDFS updates the
 * entry). So the reason is read from what the NameNode counts for the group now ({@code BlockManager.countNodes}:
 * live, corrupt, decommissioning, maintenance and stale-storage replicas), beside the units no live DataNode holds.
 */
public enum WhyQueued {
  /**
   * Every unit live and nothing else for HDFS to do: the group is queued only because its units break the rack rule
   * (written while the writer's load check left too few DataNodes, say). HDFS's only work on it is adding a copy on
   * another rack, which it asks the placement policy for with no unit missing, so no claim on lost units touches it;
   * the pass does not count it seen, so a unit it loses next is claimed until a pass takes the group.
   */
  RACKS,
  /** Units lost with their DataNode and nothing else but its racks: the pass rebuilds them on its orders. */
  LOST_UNITS,
  /**
   * HDFS has work on the group that no pass of ours does, or has started some: a corrupt replica, a stale storage (a
   * DataNode whose block report since a NameNode restart has not come), a unit on a leaving or in-maintenance
   * DataNode, a unit neither live nor lost (its only replica on a failed storage, say), or a reconstruction pending.
   * Seen and not taken, whatever it loses: HDFS reconstructs it, as it would without us (our DataNode worker still
   * runs the task), so HDFS and our orders never rebuild the same group.
   */
  HDFS_WORK;

  /**
   * The reason for a queued group, from the NameNode's counts under the namesystem lock; a few comparisons, no
   * allocation, so it may run for every queued group every pass.
   *
   * @param units the group's real units (data units past a short group's end never existed)
   * @param live units with a live replica, each counted once
   * @param lost units no live DataNode (and none in maintenance) holds at all
   * @param corrupt corrupt replicas
   * @param stale replicas on storages whose contents are stale
   * @param leaving units held only on decommissioning DataNodes
   * @param maintenance replicas on DataNodes entering or in maintenance
   * @param reconstructing whether HDFS has a reconstruction of the group pending
   */
  public static WhyQueued of(int units, int live, int lost, int corrupt, int stale, int leaving, int maintenance,
      boolean reconstructing) {
    if (reconstructing || corrupt > 0 || stale > 0 || leaving > 0 || maintenance > 0 || live + lost < units) {
      return HDFS_WORK;
    }
    return lost == 0 ? RACKS : LOST_UNITS;
  }

  /** Whether the pass counts the group seen: HDFS's unless the pass takes it; not so a group queued only for racks. */
  public boolean seen() {
    return this != RACKS;
  }
}
