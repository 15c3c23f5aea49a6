package org.apache.hadoop.hdfs.server.blockmanagement;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hdfs.protocol.Block;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.apache.hadoop.hdfs.server.protocol.DatanodeStorage;

/**
 * Trims one archived data block to its planned replica on the NameNode (DESIGN.md §3.2): the NameNode
 * plugin's trimmer calls {@link #trim} from its own thread, never from a NameNode handler. The block is
 * re-examined by HDFS's own {@code processMisReplicatedBlocks} while {@link WideEcReplicaPlacementPolicy} knows
 * the survivor for this thread, so the other replicas are marked excess and invalidated by HDFS's bookkeeping.
 * A thin adapter in Hadoop's package because replica state lookups are package-private.
 */
public final class WideEcBlockTrim {
  /** What one call found or did. */
  public enum Outcome {
    /** One live replica left, on the planned node. */
    ON_PLAN,
    /** The other replicas are now excess; the DataNodes delete them within a heartbeat or two. */
    TRIMMED,
    /** Nothing done now, try again later: queues not populated yet, stale storages, or HDFS postponed it. */
    RETRY,
    /** The file still asks for more than one replica (not lowered yet, or a snapshot keeps the old value). */
    NOT_LOWERED,
    /** The planned node holds no live replica; nothing was deleted. */
    OFF_PLAN,
    /** The block is gone or is not the one the manifest records (deleted, appended, truncated). */
    CHANGED
  }

  /**
   * The outcome, the DataNodes holding live replicas when it was decided, and those whose excess replicas of the block
   * wait for deletion (the ones a TRIMMED call chose, or a move's source; transfer addresses).
   */
  public record Result(Outcome outcome, List<String> holders, List<String> excess) {
    Result(Outcome outcome, List<String> holders) {
      this(outcome, holders, List.of());
    }
  }

  private WideEcBlockTrim() {}

  /**
   * Trims block {@code blockId} of inode {@code inodeId} (generation stamp and length as recorded) to its replica
   * on {@code plannedNode} (a DataNode transfer address, ip:port), if the file has been lowered to replication 1,
   * the planned node holds a live replica and no replica's state is stale. Takes the namesystem locks itself.
   */
  public static Result trim(FSNamesystem fsn, long blockId, long generationStamp, long length, long inodeId,
      String plannedNode) {
    BlockManager bm = fsn.getBlockManager();
    if (!bm.isPopulatingReplQueues()) {
      return new Result(Outcome.RETRY, List.of());
    }
    BlockInfo block;
    DatanodeStorageInfo survivor;
    fsn.readLock();
    try {
      block = bm.getStoredBlock(new Block(blockId));
      if (block == null || block.isDeleted() || block.isStriped() || block.getBlockCollectionId() != inodeId
          || block.getGenerationStamp() != generationStamp || block.getNumBytes() != length) {
        return new Result(Outcome.CHANGED, List.of());
      }
      Replicas r = replicas(bm, block, plannedNode);
      if (!block.isComplete() || r.stale) {
        return new Result(Outcome.RETRY, r.holders);
      }
      if (bm.getExpectedRedundancyNum(block) != 1) {
        return new Result(Outcome.NOT_LOWERED, r.holders);
      }
      if (r.survivor == null) {
        return new Result(Outcome.OFF_PLAN, r.holders);
      }
      if (r.holders.size() == 1) {
        return new Result(Outcome.ON_PLAN, r.holders, r.excess);
      }
      survivor = r.survivor;
    } finally {
      fsn.readUnlock();
    }
    // processMisReplicatedBlocks takes the write lock itself, and only logs a postponement: check what it did.
    WideEcReplicaPlacementPolicy.trimming(block, survivor,
        () -> bm.processMisReplicatedBlocks(new ArrayList<>(List.of(block))));
    fsn.readLock();
    try {
      Replicas r = replicas(bm, block, plannedNode);
      if (r.survivor == null) {
        return new Result(Outcome.OFF_PLAN, r.holders);
      }
      return new Result(r.holders.size() == 1 ? Outcome.TRIMMED : Outcome.RETRY, r.holders, r.excess);
    } finally {
      fsn.readUnlock();
    }
  }

  /**
   * Hands out now the deletions pending on at most {@code nodes} DataNodes (those holding excess replicas of the
   * archived blocks a trim pass looked at, when nothing else is pending), each its usual share per heartbeat
   * ({@code dfs.block.invalidate.limit}), instead of leaving them to HDFS's pacing
   * ({@code dfs.namenode.invalidate.work.pct.per.iteration} of the DataNodes every redundancy interval): an archiver
   * waits for its trims' deletions before it records them, and at a third of the DataNodes a round the last ones
   * waited several rounds. HDFS's own bookkeeping does the rest, as in its rounds.
   *
   * @return the blocks handed out
   */
  public static int handOutDeletions(FSNamesystem fsn, int nodes) {
    return nodes <= 0 ? 0 : fsn.getBlockManager().computeInvalidateWork(nodes);
  }

  /** Live replicas (normal storage, node alive and in service, not excess, not corrupt) and the planned one among them. */
  private record Replicas(List<String> holders, DatanodeStorageInfo survivor, boolean stale, List<String> excess) {}

  private static Replicas replicas(BlockManager bm, BlockInfo block, String plannedNode) {
    List<String> holders = new ArrayList<>();
    List<String> excess = new ArrayList<>();
    DatanodeStorageInfo survivor = null;
    boolean stale = false;
    for (DatanodeStorageInfo s : bm.getStorages(block)) {
      DatanodeDescriptor d = s.getDatanodeDescriptor();
      if (bm.isExcess(d, block)) {
        excess.add(d.getXferAddr());
        continue;
      }
      if (s.getState() != DatanodeStorage.State.NORMAL || !d.isAlive() || !d.isInService()
          || bm.isReplicaCorrupt(block, d)) {
        continue;
      }
      stale |= s.areBlockContentsStale();
      holders.add(d.getXferAddr());
      if (d.getXferAddr().equals(plannedNode)) {
        survivor = s;
      }
    }
    return new Replicas(holders, survivor, stale, excess);
  }
}
