package org.apache.hadoop.hdfs.server.blockmanagement;

import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.AddBlockFlag;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;
import org.apache.hadoop.net.Node;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.apache.hadoop.hdfs.server.namenode.WideEcNamespace;
import org.apache.hadoop.ipc.CallerContext;
import org.apache.hadoop.ipc.Server;
import org.apache.hadoop.security.UserGroupInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.hdfs.TrimProtocol;
import org.wideec.placement.hdfs.RebuildClaims;
import org.wideec.placement.hdfs.NamespaceAccess;
import org.wideec.placement.hdfs.RateLimitedWarning;

/**
 * Contiguous placement ({@code dfs.block.replicator.classname}) that lets the archival layout keep the planned
 * replica when a file drops to one (DESIGN.md §3.2 "Keeping the planned replica"). Everything is the stock default
 * policy except {@link #chooseReplicasToDelete}, which HDFS calls without naming the block, so:
 * <ol>
 *   <li>in an RPC from an HDFS superuser whose caller context carries {@link TrimProtocol#CALLER_CONTEXT} (the
 *       archiver's {@code setReplication(file, 1)}), it chooses nothing: the replicas stay until the NameNode
 *       plugin's trimmer trims each block itself. An ordinary user's marker is ignored, or anyone could keep free
 *       extra replicas by lowering replication with it;</li>
 *   <li>while the trimmer processes one block in its own thread ({@link #trimming}), it returns every candidate
 *       except the planned survivor's storage: HDFS then marks them excess and invalidates them with its own
 *       bookkeeping, so no later re-examination can pick the survivor;</li>
 *   <li>when a replica was just moved with a delete hint onto a block meant to keep one replica ({@link
 *       #keepMoved}), every other replica goes: the move is how an off-plan block reaches its planned node;</li>
 *   <li>otherwise, stock.</li>
 * </ol>
 * It never throws (DESIGN.md §2): any failure of ours is a rate-limited warning and the stock answer. Lives in
 * Hadoop's package because {@code BlockInfo}'s storage lookup is package-private.
 */
public class WideEcReplicaPlacementPolicy extends BlockPlacementPolicyDefault {
  private static final Logger LOG = LoggerFactory.getLogger(WideEcReplicaPlacementPolicy.class);
  private static final ThreadLocal<Survivor> TRIM = new ThreadLocal<>();
  /** Told when a trim was deferred, so the trimmer runs soon rather than at its next interval. */
  private static volatile Runnable deferred = () -> { };

  private final RateLimitedWarning failures = new RateLimitedWarning(LOG, 60_000);
  private final RateLimitedWarning refused = new RateLimitedWarning(LOG, 60_000);

  /** The block the calling thread is trimming and the storage that keeps it. */
  record Survivor(BlockInfo block, DatanodeStorageInfo storage) {}

  /** Runs {@code r} with the survivor of {@code block} set for this thread (the trimmer's one-block call). */
  static void trimming(BlockInfo block, DatanodeStorageInfo survivor, Runnable r) {
    TRIM.set(new Survivor(block, survivor));
    try {
      r.run();
    } finally {
      TRIM.remove();
    }
  }

  /** Set by the NameNode plugin's trimmer; must return at once (it is called under the namesystem lock). */
  public static void onDeferred(Runnable wake) {
    deferred = wake == null ? () -> { } : wake;
  }

  /** Deferrals refused because the marker came from a user who is not an HDFS superuser. */
  public long markersRefused() {
    return refused.count();
  }

  /**
   * No target while our decommission rebuilds an archived block whose every replica is on a leaving DataNode ({@link
   * RebuildClaims}): HDFS would copy it from the leaving node, whose NIC every other such block waits behind,
   * while our worker rebuilds it from its stripe elsewhere. HDFS keeps the block queued and asks again next cycle;
   * once the rebuilt replica is live the block needs nothing. Otherwise, and on any failure of ours, stock.
   */
  @Override
  public DatanodeStorageInfo[] chooseTarget(String srcPath, int numOfReplicas, Node writer,
      List<DatanodeStorageInfo> chosen, boolean returnChosenNodes, Set<Node> excludedNodes, long blocksize,
      BlockStoragePolicy storagePolicy, EnumSet<AddBlockFlag> flags) {
    try {
      if (chosen.isEmpty() && !returnChosenNodes && writer instanceof DatanodeDescriptor source
          && (source.isDecommissionInProgress() || source.isEnteringMaintenance())) {
        FSNamesystem fsn = NamespaceAccess.get();
        Boolean claimed = fsn == null ? null : WideEcNamespace.withBlocks(fsn, srcPath,
            blocks -> WideEcLeavingUnits.claimedArchivedBlock(fsn.getBlockManager(), blocks));
        if (Boolean.TRUE.equals(claimed)) {
          return new DatanodeStorageInfo[0];
        }
      }
    } catch (RuntimeException | LinkageError e) {
      failures.warn("wide-ec decommission check failed for {} ({}); HDFS copies its blocks as usual", srcPath,
          e.toString(), e);
    }
    return super.chooseTarget(srcPath, numOfReplicas, writer, chosen, returnChosenNodes, excludedNodes, blocksize,
        storagePolicy, flags);
  }

  @Override
  public List<DatanodeStorageInfo> chooseReplicasToDelete(Collection<DatanodeStorageInfo> availableReplicas,
      Collection<DatanodeStorageInfo> delCandidates, int expectedNumOfReplicas, List<StorageType> excessTypes,
      DatanodeDescriptor addedNode, DatanodeDescriptor delNodeHint) {
    try {
      List<DatanodeStorageInfo> ours = byPlan(availableReplicas, delCandidates, expectedNumOfReplicas);
      if (ours == null) {
        ours = keepMoved(availableReplicas, delCandidates, expectedNumOfReplicas, excessTypes, addedNode, delNodeHint);
      }
      if (ours != null) {
        return ours;
      }
    } catch (RuntimeException | LinkageError e) {
      failures.warn("wide-ec choice of excess replicas failed ({}); using the stock choice", e.toString(), e);
    }
    return super.chooseReplicasToDelete(availableReplicas, delCandidates, expectedNumOfReplicas, excessTypes,
        addedNode, delNodeHint);
  }

  /** Our answer, or null for the stock one. */
  List<DatanodeStorageInfo> byPlan(Collection<DatanodeStorageInfo> available, Collection<DatanodeStorageInfo> candidates,
      int expected) {
    Survivor s = TRIM.get();
    if (s != null) {
      return keepOnly(s, available, candidates, expected);
    }
    if (Server.isRpcInvocation() && marked(CallerContext.getCurrent())) {
      UserGroupInformation user = Server.getRemoteUser();
      FSNamesystem fsn = NamespaceAccess.get();
      if (user != null && fsn != null && WideEcNamespace.isSuperUser(fsn)) {
        deferred.run();
        return new ArrayList<>();
      }
      refused.warn("{} set replication with the wide-ec trim marker but is not an HDFS superuser; excess replicas"
          + " are chosen as usual", user);
    }
    return null;
  }

  /**
   * Every candidate except the survivor, or nothing when that is not safe: the survivor is not a candidate (it
   * is stale, excess, corrupt or leaving service: it cannot be the only replica now), a candidate is not a replica
   * of the block being trimmed, or fewer than {@code expected} replicas would remain. Null (stock) when the block
   * is meant to keep more than one replica: the plan names one survivor only.
   */
  private static List<DatanodeStorageInfo> keepOnly(Survivor s, Collection<DatanodeStorageInfo> available,
      Collection<DatanodeStorageInfo> candidates, int expected) {
    if (expected != 1) {
      return null;
    }
    List<DatanodeStorageInfo> delete = new ArrayList<>();
    if (candidates == null || available == null || !candidates.contains(s.storage())) {
      return delete;
    }
    for (DatanodeStorageInfo c : candidates) {
      if (c == null || s.block().findStorageInfo(c) < 0) {
        return new ArrayList<>();
      }
      if (c != s.storage()) {
        delete.add(c);
      }
    }
    return available.size() - delete.size() >= expected ? delete : new ArrayList<>();
  }

  /**
   * A replica moved with a delete hint ({@code replaceBlock}, as the archiver's {@code BlockMover} and the Balancer
   * do) onto a block meant to keep one replica: keep the moved replica and drop every other. The stock choice drops
   * the hinted replica first but picks the rest by rack and free space, so when a block still has several replicas
   * (an archived file lowered while its trim was deferred, and its planned node held none) it could drop the very
   * replica that was just moved onto plan. Null (stock) unless both nodes are candidates, the hint is of a storage
   * type HDFS wants fewer of (the stock precondition for honouring it), and one replica is expected.
   */
  static List<DatanodeStorageInfo> keepMoved(Collection<DatanodeStorageInfo> available,
      Collection<DatanodeStorageInfo> candidates, int expected, List<StorageType> excessTypes,
      DatanodeDescriptor addedNode, DatanodeDescriptor delNodeHint) {
    if (expected != 1 || addedNode == null || delNodeHint == null || addedNode == delNodeHint || candidates == null
        || available == null || excessTypes == null) {
      return null;
    }
    DatanodeStorageInfo added = null;
    DatanodeStorageInfo hint = null;
    for (DatanodeStorageInfo c : candidates) {
      if (c != null && c.getDatanodeDescriptor() == addedNode) {
        added = c;
      } else if (c != null && c.getDatanodeDescriptor() == delNodeHint) {
        hint = c;
      }
    }
    if (added == null || hint == null || !excessTypes.contains(hint.getStorageType())) {
      return null;
    }
    List<DatanodeStorageInfo> delete = new ArrayList<>();
    for (DatanodeStorageInfo c : candidates) {
      if (c != added) {
        delete.add(c);
      }
    }
    return available.size() - delete.size() >= expected ? delete : null;
  }

  private static boolean marked(CallerContext ctx) {
    return ctx != null && ctx.getContext() != null && ctx.getContext().contains(TrimProtocol.CALLER_CONTEXT);
  }
}
