package org.apache.hadoop.hdfs.server.blockmanagement;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.wideec.code.LinearCode;
import org.wideec.code.RemainingTolerance;
import org.wideec.coder.StripedCodec;

/**
 * Finds block groups of our codecs whose true remaining tolerance is 0 or less. HDFS counts live units against
 * m and believes a 12+2+2 group with 12 live units is readable; the code may already be one wrong loss from data
 * loss, or past it (DESIGN.md §2). Walks only HDFS's low-redundancy queue (every group that lost a unit is in
 * it), under the namesystem read lock, and judges each group with the pure model; not before every DataNode has
 * reported its blocks (the idea of waiting for reports came from a parallel NameNode branch). A thin adapter in Hadoop's
 * package because the queue's class is package-private.
 */
public final class WideEcGroupRiskScanner {
  /** A group at risk: the file, the group, its policy, the units lost and the remaining tolerance. */
  public record AtRisk(long blockId, String file, String policy, int[] lost, RemainingTolerance remaining) {}

  /**
   * A group of our codecs that lacks units: the units lost (data units past the end of a short group excluded), how
   * many data units it holds, and whether a reconstruction of it is pending (handed to a DataNode, not yet done).
   */
  public record Loss(long blockId, long fileId, String policy, LinearCode code, int[] lost, int realData,
      boolean pending) {}

  /**
   * One scan: groups of our codecs examined, those at risk (remaining tolerance 0 or data lost), and the losses of
   * every group examined (those in the low-redundancy queue and those asked after).
   */
  public record Scan(int examined, List<AtRisk> atRisk, List<Loss> losses) {
    public long lost() {
      return atRisk.stream().filter(r -> r.remaining().dataLost()).count();
    }
  }

  private final Map<String, LinearCode> codes = new HashMap<>();

  /** What the scan copies of a group under the lock; judged after it is released. */
  private record Snapshot(long blockId, long fileId, ErasureCodingPolicy policy, BitSet live, int realData,
      boolean pending) {}

  /**
   * Copies the low-redundancy groups of our codecs under the namesystem read lock (a short hold: no code is
   * evaluated there), then judges each outside it; file names of the groups at risk are looked up afterwards.
   */
  public Scan scan(FSNamesystem fsn) {
    return scan(fsn, List.of());
  }

  /**
   * As {@link #scan(FSNamesystem)}, and also the groups {@code watched} (by block group id) wherever they are now:
   * a group whose reconstruction HDFS handed to a DataNode leaves the low-redundancy queue for the pending one.
   */
  public Scan scan(FSNamesystem fsn, java.util.Collection<Long> watched) {
    List<Snapshot> groups = new ArrayList<>();
    fsn.readLock();
    try {
      if (!reportsComplete(fsn)) {
        return new Scan(0, List.of(), List.of());
      }
      BlockManager bm = fsn.getBlockManager();
      java.util.Set<Long> seen = new java.util.HashSet<>();
      Iterator<BlockInfo> it = bm.neededReconstruction.iterator();
      while (it.hasNext()) {
        if (it.next() instanceof BlockInfoStriped g && ours(g) && seen.add(g.getBlockId())) {
          groups.add(snapshot(bm, g));
        }
      }
      for (long id : watched) {
        if (!seen.contains(id) && bm.getStoredBlock(new org.apache.hadoop.hdfs.protocol.Block(id))
            instanceof BlockInfoStriped g && ours(g) && !g.isDeleted()) {
          groups.add(snapshot(bm, g));
        }
      }
    } finally {
      fsn.readUnlock();
    }
    List<AtRisk> atRisk = new ArrayList<>();
    List<Loss> losses = new ArrayList<>();
    for (Snapshot g : groups) {
      try {
        LinearCode code = codes.computeIfAbsent(g.policy().getName(), n -> StripedCodec.byName(g.policy().getCodecName())
            .codeFor(g.policy().getNumDataUnits(), g.policy().getNumParityUnits()));
        // Data units past the end of a short group never existed: not lost.
        int[] lost = java.util.stream.IntStream.range(0, code.n())
            .filter(u -> !g.live().get(u) && (u < g.realData() || u >= code.k())).toArray();
        losses.add(new Loss(g.blockId(), g.fileId(), g.policy().getName(), code, lost, g.realData(), g.pending()));
        RemainingTolerance remaining = RemainingTolerance.of(code, lost);
        if (remaining.value() <= 0) {
          atRisk.add(new AtRisk(g.blockId(), fileOf(fsn, g.fileId()), g.policy().getName(), lost, remaining));
        }
      } catch (RuntimeException e) {
        // An unbuildable policy (reported by the plugin's policy check) or a bug: skip the group, keep scanning.
      }
    }
    return new Scan(groups.size(), atRisk, losses);
  }

  /**
   * False until the NameNode can know which units exist: in safe mode, and before every live DataNode has sent
   * its first block report and has no stale storage (after a restart a group looks short of units it has).
   */
  static boolean reportsComplete(FSNamesystem fsn) {
    BlockManager bm = fsn.getBlockManager();
    return !fsn.isInSafeMode() && bm.isPopulatingReplQueues() && everyLiveNodeReported(bm);
  }

  /** Every live DataNode has sent its first block report and has no stale storage (the blocks map is whole). */
  static boolean everyLiveNodeReported(BlockManager bm) {
    for (DatanodeDescriptor dn : bm.getDatanodeManager().getDatanodeListForReport(
        org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType.LIVE)) {
      if (!dn.checkBlockReportReceived() || dn.hasStaleStorages()) {
        return false;
      }
    }
    return true;
  }

  private static boolean ours(BlockInfoStriped g) {
    return StripedCodec.names().contains(g.getErasureCodingPolicy().getCodecName());
  }

  private static Snapshot snapshot(BlockManager bm, BlockInfoStriped g) {
    BitSet live = new BitSet();
    for (BlockInfoStriped.StorageAndBlockIndex s : g.getStorageAndIndexInfos()) {
      DatanodeDescriptor dn = s.getStorage().getDatanodeDescriptor();
      if (dn.isAlive() && !dn.isDecommissioned()) {
        live.set(s.getBlockIndex());
      }
    }
    return new Snapshot(g.getBlockId(), g.getBlockCollectionId(), g.getErasureCodingPolicy(), live,
        g.getRealDataBlockNum(), bm.pendingReconstruction.getNumReplicas(g) > 0);
  }

  /**
   * Moves a group waiting in HDFS's low-redundancy queue to its highest priority; true when it was re-queued.
   * HDFS ranks a striped group by its count of live units and offers no public way to raise it; this re-queues
   * the group through the queue's own package-private remove and add (which keep its counters right), telling it
   * the group has only its data units left, which is HDFS's rule for the highest priority. The RedundancyMonitor
   * still counts the real units when it schedules the repair. Under the write lock, as every change of the queue.
   */
  public static boolean prioritise(FSNamesystem fsn, long blockId) {
    BlockManager bm = fsn.getBlockManager();
    fsn.writeLock();
    try {
      BlockInfo b = bm.getStoredBlock(new org.apache.hadoop.hdfs.protocol.Block(blockId));
      if (!(b instanceof BlockInfoStriped g) || !bm.neededReconstruction.contains(g)) {
        return false;
      }
      // LEVEL is no queue: remove() then looks in every queue and updates the counters of the one it held.
      bm.neededReconstruction.remove(g, LowRedundancyBlocks.LEVEL);
      return bm.neededReconstruction.add(g, g.getRealDataBlockNum(), 0, 0, g.getRealTotalBlockNum());
    } finally {
      fsn.writeUnlock();
    }
  }

  /** The path of a file by inode id, "(deleted)" when it is gone. */
  public static String fileOf(FSNamesystem fsn, long fileId) {
    fsn.readLock();
    try {
      BlockCollection file = fsn.getBlockCollection(fileId);
      return file == null ? "(deleted)" : file.getName();
    } finally {
      fsn.readUnlock();
    }
  }
}
