package org.apache.hadoop.hdfs.server.blockmanagement;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.Block;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.apache.hadoop.hdfs.server.namenode.INode;
import org.apache.hadoop.hdfs.server.protocol.DatanodeStorage;
import org.wideec.topology.Site;
import org.wideec.topology.hdfs.DataNodeSites;

/**
 * What the archive repair monitor asks of the blocks map, copied under the namesystem read lock
 * (short holds; nothing is evaluated there): each block's generation stamp, length and live replicas, the live
 * DataNodes a rebuilt block may go to (with a normal storage of the default type), and whether a rebuilt block is
 * live on its target. A thin adapter in Hadoop's package because a storage's state is package-private.
 */
public final class WideEcArchivedBlocks {
  private WideEcArchivedBlocks() {}

  /**
   * A block as the NameNode holds it now.
   *
   * @param live the DataNodes of the replicas on a normal storage of a live DataNode in service, neither corrupt
   *     nor excess
   * @param holders every DataNode listed for the block, live or not (a target must hold no replica of it)
   * @param complete false while the block is under construction (an append or recovery is running)
   */
  public record BlockView(long generationStamp, long length, List<Site> live, Set<String> holders,
      boolean complete) {}

  /** A live DataNode that may receive a block: its storage of the default type. */
  public record Target(DatanodeInfo node, String storageId, StorageType storageType) {}

  /** False until every live DataNode has reported its blocks (before that, a replica may look missing). */
  public static boolean reportsComplete(FSNamesystem fsn) {
    fsn.readLock();
    try {
      return WideEcGroupRiskScanner.reportsComplete(fsn);
    } finally {
      fsn.readUnlock();
    }
  }

  /**
   * In startup safe mode (not one an operator or low resources entered), every DataNode that registered has reported
   * its blocks: the blocks map then lists every replica of the nodes that came back, and a block it lists nowhere
   * lives only on nodes that have not. Block reports and locations work in safe mode; only the namespace is frozen.
   */
  public static boolean reportedInStartupSafeMode(FSNamesystem fsn) {
    fsn.readLock();
    try {
      return fsn.isInStartupSafeMode() && WideEcGroupRiskScanner.everyLiveNodeReported(fsn.getBlockManager());
    } finally {
      fsn.readUnlock();
    }
  }

  /** The blocks with these ids that the namesystem still has (a deleted file's blocks are absent). */
  public static Map<Long, BlockView> view(FSNamesystem fsn, long[] blockIds) {
    BlockManager bm = fsn.getBlockManager();
    Map<Long, BlockView> out = new HashMap<>();
    fsn.readLock();
    try {
      for (long id : blockIds) {
        BlockInfo bi = bm.getStoredBlock(new Block(id));
        if (bi == null || bi.isDeleted()) {
          continue;
        }
        Collection<DatanodeDescriptor> corrupt = bm.getCorruptReplicas(bi);
        List<Site> live = new ArrayList<>();
        Set<String> holders = new HashSet<>();
        for (DatanodeStorageInfo s : bm.getStorages(bi)) {
          DatanodeDescriptor dn = s.getDatanodeDescriptor();
          holders.add(dn.getXferAddr());
          if (liveInService(bm, bi, s, corrupt)) {
            live.add(DataNodeSites.of(dn));
          }
        }
        out.put(id, new BlockView(bi.getGenerationStamp(), bi.getNumBytes(), live, holders, bi.isComplete()));
      }
    } finally {
      fsn.readUnlock();
    }
    return out;
  }

  /**
   * Whether the replica on {@code s} is one the block counts as live in service: on a normal storage of a live DataNode
   * in service, neither corrupt ({@code corrupt}: the block's corrupt replicas, or null) nor excess. Call under the
   * namesystem lock.
   */
  static boolean liveInService(BlockManager bm, BlockInfo bi, DatanodeStorageInfo s,
      Collection<DatanodeDescriptor> corrupt) {
    DatanodeDescriptor dn = s.getDatanodeDescriptor();
    return s.getState() == DatanodeStorage.State.NORMAL && dn.isAlive() && dn.isInService()
        && (corrupt == null || !corrupt.contains(dn)) && !bm.isExcess(dn, bi);
  }

  /** Live DataNodes in service, each with a normal storage of the default type, by transfer address. */
  public static Map<String, Target> targets(FSNamesystem fsn) {
    Map<String, Target> out = new HashMap<>();
    for (DatanodeDescriptor dn : fsn.getBlockManager().getDatanodeManager()
        .getDatanodeListForReport(DatanodeReportType.LIVE)) {
      if (!dn.isInService()) {
        continue;
      }
      for (DatanodeStorageInfo s : dn.getStorageInfos()) {
        if (s.getState() == DatanodeStorage.State.NORMAL && s.getStorageType() == StorageType.DEFAULT) {
          out.put(dn.getXferAddr(), new Target(dn, s.getStorageID(), s.getStorageType()));
          break;
        }
      }
    }
    return out;
  }

  /** Any live DataNode in service, by transfer address (helpers are read from these). */
  public static Map<String, DatanodeInfo> liveNodes(FSNamesystem fsn) {
    Map<String, DatanodeInfo> out = new HashMap<>();
    for (DatanodeDescriptor dn : fsn.getBlockManager().getDatanodeManager()
        .getDatanodeListForReport(DatanodeReportType.LIVE)) {
      out.put(dn.getXferAddr(), dn);
    }
    return out;
  }

  /**
   * Whether the NameNode counts a live replica of the block, with this generation stamp and length, on the node: a
   * rebuilt block is repaired only once its report was accepted (a report from a node with a pending invalidation of
   * the block is ignored; one with another length or stamp is marked corrupt).
   */
  public static boolean liveOn(FSNamesystem fsn, long blockId, long generationStamp, long length, String node) {
    BlockManager bm = fsn.getBlockManager();
    fsn.readLock();
    try {
      BlockInfo bi = bm.getStoredBlock(new Block(blockId));
      if (bi == null || bi.getGenerationStamp() != generationStamp || bi.getNumBytes() != length) {
        return false;
      }
      Collection<DatanodeDescriptor> corrupt = bm.getCorruptReplicas(bi);
      for (DatanodeStorageInfo s : bm.getStorages(bi)) {
        DatanodeDescriptor dn = s.getDatanodeDescriptor();
        if (dn.getXferAddr().equals(node) && s.getState() == DatanodeStorage.State.NORMAL
            && (corrupt == null || !corrupt.contains(dn)) && !bm.isExcess(dn, bi)) {
          return true;
        }
      }
      return false;
    } finally {
      fsn.readUnlock();
    }
  }

  /** The replication an inode's file asks for now, or -1 when it is gone or not a file. */
  public static short replicationOf(FSNamesystem fsn, long inodeId) {
    fsn.readLock();
    try {
      INode i = fsn.getFSDirectory().getInode(inodeId);
      return i == null || !i.isFile() ? -1 : i.asFile().getFileReplication();
    } finally {
      fsn.readUnlock();
    }
  }

  /** The path of an inode, or null when it is gone. */
  public static String pathOf(FSNamesystem fsn, long inodeId) {
    fsn.readLock();
    try {
      INode i = fsn.getFSDirectory().getInode(inodeId);
      return i == null ? null : i.getFullPathName();
    } finally {
      fsn.readUnlock();
    }
  }
}
