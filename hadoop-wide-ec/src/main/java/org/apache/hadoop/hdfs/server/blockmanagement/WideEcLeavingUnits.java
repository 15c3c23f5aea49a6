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

/**
 * What the decommission of DataNodes asks of the blocks map, copied under the namesystem read lock (nothing is
 * evaluated there): the DataNodes leaving (decommissioning, or entering maintenance), the block groups of our codecs
 * with a unit on one of them, and whether a rebuilt unit is live on its target. HDFS completes a decommission once
 * every internal block of a group is live on a node in service; these views are what our worker needs to make it so
 * without the leaving node sending the unit. A thin adapter in Hadoop's package because a group's storage indexes
 * and a storage's block list are package-private.
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
   */
  public record LeavingGroup(long groupId, long generationStamp, long numBytes, ErasureCodingPolicy policy,
      long fileId, Map<Integer, DatanodeInfo> inService, Map<Integer, DatanodeInfo> leaving) {}

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
   * The complete block groups of our codecs with a unit held only on one of these DataNodes being decommissioned, at
   * most {@code max} (the rest wait for a later pass). A node entering maintenance keeps its units: HDFS asks only
   * for a group's data-unit count of live units then (dfs.namenode.maintenance.replication.min counts replicas of
   * contiguous blocks), and the units come back with the node.
   */
  public static List<LeavingGroup> groupsOn(FSNamesystem fsn, Collection<LeavingNode> nodes, int max) {
    BlockManager bm = fsn.getBlockManager();
    List<LeavingGroup> out = new ArrayList<>();
    java.util.Set<Long> seen = new java.util.HashSet<>();
    fsn.readLock();
    try {
      for (LeavingNode n : nodes) {
        if (n.maintenance() || !(n.node() instanceof DatanodeDescriptor dn)) {
          continue;
        }
        for (DatanodeStorageInfo s : dn.getStorageInfos()) {
          for (Iterator<BlockInfo> it = s.getBlockIterator(); it.hasNext() && out.size() < max; ) {
            BlockInfo b = it.next();
            if (b instanceof BlockInfoStriped g && g.isComplete() && !g.isDeleted() && ours(g)
                && seen.add(g.getBlockId())) {
              LeavingGroup v = view(bm, g);
              if (!v.leaving().isEmpty()) {
                out.add(v);
              }
            }
          }
        }
      }
    } finally {
      fsn.readUnlock();
    }
    return out;
  }

  private static boolean ours(BlockInfoStriped g) {
    return StripedCodec.names().contains(g.getErasureCodingPolicy().getCodecName());
  }

  private static LeavingGroup view(BlockManager bm, BlockInfoStriped g) {
    Collection<DatanodeDescriptor> corrupt = bm.getCorruptReplicas(g);
    Map<Integer, DatanodeInfo> inService = new HashMap<>();
    Map<Integer, DatanodeInfo> leaving = new HashMap<>();
    for (BlockInfoStriped.StorageAndBlockIndex si : g.getStorageAndIndexInfos()) {
      DatanodeStorageInfo s = si.getStorage();
      DatanodeDescriptor dn = s.getDatanodeDescriptor();
      int unit = si.getBlockIndex();
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
    return new LeavingGroup(g.getBlockId(), g.getGenerationStamp(), g.getNumBytes(), g.getErasureCodingPolicy(),
        g.getBlockCollectionId(), inService, leaving);
  }

  /**
   * Whether each of these units of the group is held on a live DataNode being decommissioned: when HDFS places the
   * repair of exactly those units (the ones no node in service holds), the repair is a decommission's copy.
   */
  static boolean onlyOnLeavingNodes(BlockInfoStriped g, int[] units) {
    for (int u : units) {
      boolean leaving = false;
      for (BlockInfoStriped.StorageAndBlockIndex si : g.getStorageAndIndexInfos()) {
        DatanodeDescriptor dn = si.getStorage().getDatanodeDescriptor();
        if (si.getBlockIndex() == u && dn.isAlive() && dn.isDecommissionInProgress()) {
          leaving = true;
        }
      }
      if (!leaving) {
        return false;
      }
    }
    return units.length > 0;
  }

  /**
   * Whether one of a file's blocks is an archived block our decommission rebuilds ({@link
   * org.wideec.placement.hdfs.DecommissionClaims#claimsArchivedBlock}) with every replica on a leaving DataNode.
   */
  static boolean claimedArchivedBlock(BlockInfo[] blocks) {
    for (BlockInfo b : blocks) {
      if (b.isStriped() || b.numNodes() == 0) {
        continue;
      }
      boolean allLeaving = true;
      for (int i = 0; i < b.getCapacity() && allLeaving; i++) {
        DatanodeDescriptor dn = b.getDatanode(i);
        allLeaving = dn == null || dn.isDecommissionInProgress() || dn.isEnteringMaintenance();
      }
      if (allLeaving && org.wideec.placement.hdfs.DecommissionClaims.claimsArchivedBlock(b.getBlockId())) {
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
