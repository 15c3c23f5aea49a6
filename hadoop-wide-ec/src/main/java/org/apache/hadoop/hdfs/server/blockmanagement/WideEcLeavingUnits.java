package org.apache.hadoop.hdfs.server.blockmanagement;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hdfs.protocol.Block;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.apache.hadoop.hdfs.server.protocol.DatanodeStorage;
import org.wideec.coder.StripedCodec;
import org.wideec.placement.hdfs.WhyQueued;

/**
 * What the decommission of DataNodes asks of the blocks map, copied under the namesystem read lock (nothing is
 * evaluated there): the DataNodes leaving (decommissioning, or entering maintenance), the block groups of our codecs
 * with a unit on one of them, and whether a rebuilt unit is live on its target. HDFS completes a decommission once
 * every internal block of a group is live on a node in service; these views are what our worker needs to make it so
 * without the leaving node sending the unit. The same view serves the rebuild of units lost with their DataNode: the
 * groups of our codecs in HDFS's reconstruction queue, each with why HDFS queues it ({@link WhyQueued}, a few
 * comparisons of HDFS's own count of its replicas). A thin adapter in Hadoop's package because a group's storage
 * indexes, a storage's block list and the queue are package-private.
 */
public final class WideEcLeavingUnits {
  private WideEcLeavingUnits() {}

  /** A DataNode leaving service. */
  public record LeavingNode(DatanodeInfo node, boolean maintenance) {}

  /**
   * A block group of our codecs as the NameNode holds it now.
   *
   * @param inService each unit on a live DataNode in service (normal storage, neither corrupt nor excess)
   * @param leaving each unit held only on a leaving DataNode, with that node
   * @param lost each unit no live DataNode and no DataNode in maintenance holds at all (its DataNode died, say); a
   *     unit with a replica HDFS knows of on a live node (corrupt, on a failed storage, decommissioned) is HDFS's to
   *     reconstruct or copy, and units past the end of a short group never existed
   * @param whole whether every unit is in service or leaving and HDFS reconstructs none of them now (a unit truly
   *     missing is not a decommission's to rebuild)
   * @param reconstructing whether HDFS has reconstruction of some unit pending (scheduled before we claimed it)
   */
  public record GroupUnits(long groupId, long generationStamp, long numBytes, ErasureCodingPolicy policy,
      long fileId, Map<Integer, DatanodeInfo> inService, Map<Integer, DatanodeInfo> leaving, java.util.Set<Integer> lost,
      boolean whole, boolean reconstructing) {}

  /**
   * What a look at HDFS's queue of low-redundancy blocks found.
   *
   * @param lost the complete block groups of our codecs with a lost unit and nothing else for HDFS to do but fix their
   *     racks ({@link WhyQueued#LOST_UNITS}), in queue order
   * @param seen every block group of our codecs in the queue but those queued only for their racks ({@link
   *     WhyQueued#seen}): those in {@code lost}, and those HDFS has other work on, which stay HDFS's
   * @param whole whether the look reached the end of the queue
   */
  public record LostGroups(List<GroupUnits> lost, java.util.Set<Long> seen, boolean whole) {}

  /**
   * The block groups of our codecs that HDFS queues for reconstruction (a DataNode died with units of theirs, say), at
   * most {@code maxBlocks} queue entries, looked at in one hold of the namesystem read lock (HDFS's RedundancyMonitor
   * picks its batches from the same queue under the write lock), each with why it is queued ({@link WhyQueued}).
   */
  public static LostGroups lost(FSNamesystem fsn, int maxBlocks) {
    BlockManager bm = fsn.getBlockManager();
    List<GroupUnits> lost = new ArrayList<>();
    java.util.Set<Long> looked = new java.util.HashSet<>();
    java.util.Set<Long> seen = new java.util.HashSet<>();
    int entries = 0;
    fsn.readLock();
    try {
      Iterator<BlockInfo> it = bm.neededReconstruction.iterator();
      for (; entries < maxBlocks && it.hasNext(); entries++) {
        if (it.next() instanceof BlockInfoStriped g && g.isComplete() && !g.isDeleted() && ours(g)
            && looked.add(g.getBlockId())) {
          GroupUnits v = view(bm, g);
          WhyQueued why = whyQueued(bm, g, v);
          if (why.seen()) {
            seen.add(g.getBlockId());
          }
          if (why == WhyQueued.LOST_UNITS) {
            lost.add(v);
          }
        }
      }
      return new LostGroups(lost, seen, !it.hasNext());
    } finally {
      fsn.readUnlock();
    }
  }

  /** Why HDFS queues the group, from its own count of the group's replicas. Under the namesystem lock. */
  private static WhyQueued whyQueued(BlockManager bm, BlockInfoStriped g, GroupUnits v) {
    NumberReplicas n = bm.countNodes(g);
    return WhyQueued.of(g.getRealTotalBlockNum(), n.liveReplicas(), v.lost().size(), n.corruptReplicas(),
        n.replicasOnStaleNodes(), n.decommissioning(), n.maintenanceReplicas(), v.reconstructing());
  }

  /** The DataNodes decommissioning or entering maintenance, alive. */
  public static List<LeavingNode> leaving(FSNamesystem fsn) {
    DatanodeManager dm = fsn.getBlockManager().getDatanodeManager();
    List<LeavingNode> out = new ArrayList<>();
    fsn.readLock();
    try {
      for (DatanodeDescriptor d : dm.getDecommissioningNodes()) {
        if (d.isAlive()) {
          out.add(new LeavingNode(d, false));
        }
      }
      for (DatanodeDescriptor d : dm.getEnteringMaintenanceNodes()) {
        if (d.isAlive()) {
          out.add(new LeavingNode(d, true));
        }
      }
    } finally {
      fsn.readUnlock();
    }
    return out;
  }

  /**
   * Where a walk over the blocks of the decommissioning DataNodes' storages stopped: the storage (its DataNode's
   * transfer address, then its id: the order storages are walked in) and the position in its block list.
   */
  public record WalkCursor(String storage, int position) {
    /** The beginning of the first storage: a walk from here starts a new lap. */
    public static final WalkCursor START = new WalkCursor("", 0);
  }

  /**
   * What one walk found.
   *
   * @param taken block groups with a unit held only on a leaving node that the caller may plan, in walk order
   * @param leavingUnits units held only on the walked storages' nodes, counted once per unit, every group walked
   *     (taken, skipped, or HDFS's to reconstruct)
   * @param next where the next walk begins
   * @param lapEnded whether this walk reached the end of the last storage (the next walk starts a new lap at {@link
   *     WalkCursor#START})
   */
  public record Walk(List<GroupUnits> taken, long leavingUnits, WalkCursor next, boolean lapEnded) {}

  /**
   * Walks the block lists of the storages of these DataNodes being decommissioned (storages in the order of {@link
   * WalkCursor}) from {@code from}, at most {@code maxBlocks} blocks, and stops at the end of the last storage, so
   * successive walks cover every block of every leaving node, lap after lap. A node entering maintenance keeps its
   * units: HDFS asks only for a group's data-unit count of live units then (dfs.namenode.maintenance.replication.min
   * counts replicas of contiguous blocks), and the units come back with the node.
   *
   * <p>Each complete block group of our codecs met with a unit held only on a leaving node is taken, unless its id is
   * in {@code skip} or it is not {@link GroupUnits#whole}, up to {@code room} groups: the walk stops before a group
   * it would take with no room left, so the next walk begins there and no group is passed over for want of room.
   *
   * <p>A leaving node may hold millions of blocks: the namesystem read lock is held for at most {@link
   * #BLOCKS_PER_LOCK} of them at a time, as HDFS's own DatanodeAdminBackoffMonitor does, and released in between so
   * writers and the RedundancyMonitor get it. A storage's block list may change while the lock is released (HDFS moves
   * reported blocks to its head), so the walk resumes by position: a group it misses is met at the next lap.
   */
  public static Walk walk(FSNamesystem fsn, Collection<LeavingNode> nodes, WalkCursor from, java.util.Set<Long> skip,
      int room, int maxBlocks) {
    BlockManager bm = fsn.getBlockManager();
    java.util.TreeMap<String, DatanodeStorageInfo> storages = new java.util.TreeMap<>();
    fsn.readLock();
    try {
      for (LeavingNode n : nodes) {
        if (!n.maintenance() && n.node() instanceof DatanodeDescriptor dn) {
          for (DatanodeStorageInfo s : dn.getStorageInfos()) {
            storages.put(dn.getXferAddr() + "/" + s.getStorageID(), s);
          }
        }
      }
    } finally {
      fsn.readUnlock();
    }
    List<GroupUnits> taken = new ArrayList<>();
    long units = 0;
    int walked = 0;
    // A storage gone since the cursor was set: the walk goes on with the next one, from its head.
    String key = storages.ceilingKey(from.storage());
    int position = key != null && key.equals(from.storage()) ? from.position() : 0;
    while (key != null) {
      DatanodeStorageInfo s = storages.get(key);
      DatanodeDescriptor dn = s.getDatanodeDescriptor();
      boolean more = true;
      while (more) {
        if (walked >= maxBlocks || taken.size() > room) {
          return new Walk(taken.subList(0, Math.min(room, taken.size())), units, new WalkCursor(key, position), false);
        }
        fsn.readLock();
        try {
          if (dn.getStorageInfo(s.getStorageID()) == null) {
            break; // the storage was removed while the lock was released
          }
          Iterator<BlockInfo> it = s.getBlockIterator();
          for (int skipped = 0; skipped < position && it.hasNext(); skipped++) {
            it.next();
          }
          for (int inHold = 0; inHold < BLOCKS_PER_LOCK && walked < maxBlocks && it.hasNext(); inHold++) {
            BlockInfo b = it.next();
            if (b instanceof BlockInfoStriped g && g.isComplete() && !g.isDeleted() && ours(g)) {
              GroupUnits v = view(bm, g);
              boolean take = !v.leaving().isEmpty() && v.whole() && !skip.contains(g.getBlockId());
              if (take && taken.size() == room) {
                taken.add(v); // one past the room: the walk stops before it
                break;
              }
              if (take) {
                taken.add(v);
              }
              units += v.leaving().values().stream().filter(d -> d == dn).count();
            }
            walked++;
            position++;
          }
          more = it.hasNext();
        } finally {
          fsn.readUnlock();
        }
      }
      key = storages.higherKey(key);
      position = 0;
    }
    return new Walk(taken.subList(0, Math.min(room, taken.size())), units, WalkCursor.START, true);
  }

  /**
   * These block groups as the NameNode holds them now, each that is still of our codecs, complete and with a unit held
   * only on a DataNode being decommissioned; the namesystem read lock is held for at most {@link #BLOCKS_PER_LOCK} of
   * them at a time.
   */
  public static Map<Long, GroupUnits> groups(FSNamesystem fsn, Collection<Long> ids) {
    BlockManager bm = fsn.getBlockManager();
    Map<Long, GroupUnits> out = new java.util.LinkedHashMap<>();
    List<Long> all = new ArrayList<>(ids);
    for (int i = 0; i < all.size(); i += BLOCKS_PER_LOCK) {
      fsn.readLock();
      try {
        for (long id : all.subList(i, Math.min(all.size(), i + BLOCKS_PER_LOCK))) {
          if (bm.getStoredBlock(new Block(id)) instanceof BlockInfoStriped g && g.isComplete() && !g.isDeleted()
              && ours(g)) {
            GroupUnits v = view(bm, g);
            if (!v.leaving().isEmpty()) {
              out.put(id, v);
            }
          }
        }
      } finally {
        fsn.readUnlock();
      }
    }
    return out;
  }

  /** Blocks of a leaving node's storage looked at per hold of the namesystem read lock. */
  static final int BLOCKS_PER_LOCK = 1_000;

  /** Whether the group's codec is one of ours (groups of HDFS's own codecs are never claimed or rebuilt by us). */
  static boolean ours(BlockInfoStriped g) {
    return StripedCodec.names().contains(g.getErasureCodingPolicy().getCodecName());
  }

  /**
   * Which units of the group are held in service and which only on a leaving node: the one reading of the blocks map
   * both the decommission's plan and the placement policies' claim check use, so the two never disagree on what is
   * leaving. A replica counts only when usable (its DataNode alive, its storage NORMAL, neither corrupt nor excess).
   * Under the namesystem read lock.
   */
  private static GroupUnits view(BlockManager bm, BlockInfoStriped g) {
    Collection<DatanodeDescriptor> corrupt = bm.getCorruptReplicas(g);
    Map<Integer, DatanodeInfo> inService = new HashMap<>();
    Map<Integer, DatanodeInfo> leaving = new HashMap<>();
    java.util.Set<Integer> held = new java.util.HashSet<>();
    for (BlockInfoStriped.StorageAndBlockIndex si : g.getStorageAndIndexInfos()) {
      DatanodeStorageInfo s = si.getStorage();
      DatanodeDescriptor dn = s.getDatanodeDescriptor();
      int unit = si.getBlockIndex();
      if (dn.isAlive() || dn.isMaintenance()) {
        held.add(unit); // by some replica, usable or not, or on a node in maintenance that HDFS expects back
      }
      if (!dn.isAlive() || s.getState() != DatanodeStorage.State.NORMAL
          || (corrupt != null && corrupt.contains(dn)) || bm.isExcess(dn, g)) {
        continue;
      }
      if (dn.isInService()) {
        inService.put(unit, dn);
      } else if (dn.isDecommissionInProgress()) {
        leaving.put(unit, dn);
      }
    }
    leaving.keySet().removeAll(inService.keySet()); // a unit live in service elsewhere already is not leaving
    boolean reconstructing = bm.pendingReconstruction.getNumReplicas(g) > 0;
    boolean whole = !reconstructing;
    java.util.Set<Integer> lost = new java.util.TreeSet<>();
    for (int u = 0; u < g.getTotalBlockNum(); u++) {
      // Data units past the end of a short group never existed; any other unit must be in service or leaving.
      boolean exists = u < g.getRealDataBlockNum() || u >= g.getDataBlockNum();
      whole &= !exists || inService.containsKey(u) || leaving.containsKey(u);
      if (exists && !held.contains(u)) {
        lost.add(u);
      }
    }
    return new GroupUnits(g.getBlockId(), g.getGenerationStamp(), g.getNumBytes(), g.getErasureCodingPolicy(),
        g.getBlockCollectionId(), inService, leaving, lost, whole, reconstructing);
  }

  /**
   * The live DataNodes being decommissioned that hold these units of the group, usable, when no node in service does
   * (as {@link #walk} sees it): when HDFS places the repair of exactly those units, the repair is a decommission's
   * copy. Empty when some unit is held by no such node. Under the namesystem lock.
   */
  static java.util.Set<String> onlyOnLeavingNodes(BlockManager bm, BlockInfoStriped g, int[] units) {
    if (units.length == 0 || !g.isComplete()) {
      return java.util.Set.of();
    }
    Map<Integer, DatanodeInfo> leaving = view(bm, g).leaving();
    java.util.Set<String> from = new java.util.HashSet<>();
    for (int u : units) {
      DatanodeInfo d = leaving.get(u);
      if (d == null) {
        return java.util.Set.of();
      }
      from.add(d.getXferAddr());
    }
    return from;
  }

  /**
   * Whether one of a file's blocks is an archived block our decommission rebuilds ({@link
   * org.wideec.placement.hdfs.RebuildClaims#claimsArchivedBlock}): no replica of it is live in service and a leaving
   * DataNode holds one. The repair monitor calls such a block lost on its leaving nodes and rebuilds it, so the claim
   * reads the replicas as the monitor does ({@link WideEcArchivedBlocks#liveInService}): a replica on a node already
   * decommissioned or in maintenance, or one excess or corrupt, does not make the block HDFS's to copy. Such replicas
   * outlive a decommission (the rebuilt block's old replica stays listed on the decommissioned node; a replica moved
   * back to its plan leaves an excess one until it is deleted), and HDFS never copies from them: it would copy from the
   * leaving node while our worker rebuilds the same block. Call under the namesystem lock.
   */
  static boolean claimedArchivedBlock(BlockManager bm, BlockInfo[] blocks) {
    for (BlockInfo b : blocks) {
      if (b.isStriped() || b.numNodes() == 0 || !b.isComplete()) { // a block being written is its writer's
        continue;
      }
      Collection<DatanodeDescriptor> corrupt = bm.getCorruptReplicas(b);
      boolean liveInService = false;
      java.util.Set<String> from = new java.util.HashSet<>();
      for (DatanodeStorageInfo s : bm.getStorages(b)) {
        DatanodeDescriptor dn = s.getDatanodeDescriptor();
        if (dn.isDecommissionInProgress() || dn.isEnteringMaintenance()) {
          from.add(dn.getXferAddr());
        } else if (WideEcArchivedBlocks.liveInService(bm, b, s, corrupt)) {
          liveInService = true;
          break;
        }
      }
      if (!liveInService && !from.isEmpty()
          && org.wideec.placement.hdfs.RebuildClaims.claimsArchivedBlock(b.getBlockId(), from)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the NameNode counts the group's unit live on the node (a rebuilt unit's report was accepted). */
  public static boolean unitLiveOn(FSNamesystem fsn, long groupId, int unit, String node) {
    BlockManager bm = fsn.getBlockManager();
    fsn.readLock();
    try {
      BlockInfo b = bm.getStoredBlock(new Block(groupId));
      if (!(b instanceof BlockInfoStriped g)) {
        return false;
      }
      Collection<DatanodeDescriptor> corrupt = bm.getCorruptReplicas(g);
      for (BlockInfoStriped.StorageAndBlockIndex si : g.getStorageAndIndexInfos()) {
        DatanodeDescriptor dn = si.getStorage().getDatanodeDescriptor();
        if (si.getBlockIndex() == unit && dn.getXferAddr().equals(node)
            && si.getStorage().getState() == DatanodeStorage.State.NORMAL
            && (corrupt == null || !corrupt.contains(dn))) {
          return true;
        }
      }
      return false;
    } finally {
      fsn.readUnlock();
    }
  }
}
