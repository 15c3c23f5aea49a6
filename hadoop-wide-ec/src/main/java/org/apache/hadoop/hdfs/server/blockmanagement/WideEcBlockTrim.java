package org.apache.hadoop.hdfs.server.blockmanagement;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.hdfs.protocol.Block;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
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

  /** A replica HDFS has marked excess on {@code node}, waiting to be deleted there. */
  public record ExcessReplica(DatanodeInfo node, Block block) {}

  /**
   * The outcome, the DataNodes holding live replicas when it was decided (transfer addresses), and the block's
   * replicas waiting for deletion (the ones a TRIMMED call chose, or a move's source).
   */
  public record Result(Outcome outcome, List<String> holders, List<ExcessReplica> excess) {
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
   * Hands out now the deletions of {@code excess} still pending on the NameNode, each DataNode its usual share per
   * heartbeat ({@code dfs.block.invalidate.limit}), instead of leaving them to HDFS's pacing
   * ({@code dfs.namenode.invalidate.work.pct.per.iteration} of the DataNodes every redundancy interval): an archiver
   * waits for its trims' deletions before it records them, and at a third of the DataNodes a round the last ones
   * waited several rounds. HDFS hands out work to DataNodes it picks at random among all with deletions pending
   * (a deleted file's too), so one round of as many DataNodes as hold ours may miss some of them: rounds repeat,
   * each as wide as the DataNodes still holding ours, until none of ours is pending or nothing is handed out (safe
   * mode, HDFS's start-up delay for deletions, nothing left anywhere). Every productive round empties at least one
   * DataNode's share, so the rounds are bounded by the DataNodes there are. HDFS's own bookkeeping does the rest, as
   * in its rounds.
   *
   * @return the blocks handed out (ours and those of the DataNodes picked with them)
   */
  public static int handOutDeletions(FSNamesystem fsn, Collection<ExcessReplica> excess) {
    BlockManager bm = fsn.getBlockManager();
    int handed = 0;
    int bound = bm.getDatanodeManager().getNumLiveDataNodes() + 1;
    for (int round = 0; round < bound; round++) {
      int waiting = nodesStillPending(bm, excess);
      if (waiting == 0) {
        break;
      }
      int n = bm.computeInvalidateWork(waiting);
      if (n == 0) {
        break;
      }
      handed += n;
    }
    return handed;
  }

  /** How many DataNodes still have one of {@code excess} in the NameNode's pending deletions (not yet handed out). */
  private static int nodesStillPending(BlockManager bm, Collection<ExcessReplica> excess) {
    Set<DatanodeInfo> nodes = new HashSet<>();
    for (ExcessReplica e : excess) {
      if (bm.containsInvalidateBlock(e.node(), e.block())) {
        nodes.add(e.node());
      }
    }
    return nodes.size();
  }

  /** Live replicas (normal storage, node alive and in service, not excess, not corrupt) and the planned one among them. */
  private record Replicas(List<String> holders, DatanodeStorageInfo survivor, boolean stale,
      List<ExcessReplica> excess) {}

  private static Replicas replicas(BlockManager bm, BlockInfo block, String plannedNode) {
    List<String> holders = new ArrayList<>();
    List<ExcessReplica> excess = new ArrayList<>();
    DatanodeStorageInfo survivor = null;
    boolean stale = false;
    for (DatanodeStorageInfo s : bm.getStorages(block)) {
      DatanodeDescriptor d = s.getDatanodeDescriptor();
      if (bm.isExcess(d, block)) {
        excess.add(new ExcessReplica(d, block));
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
