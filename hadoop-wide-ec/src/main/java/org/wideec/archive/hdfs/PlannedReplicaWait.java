package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeMember;
import org.wideec.time.Backoff;

/**
 * The trim's wait for its effect (DESIGN.md §3.2 "Keeping the planned replica"): the NameNode chooses which replicas go
 * and the DataNodes delete them over their next heartbeats, so the trim polls until each block sits on its planned node
 * alone before {@link StripeTrim} records TRIMMED, moving once more a block whose planned node lost its replica since.
 */
final class PlannedReplicaWait {
  private static final Logger LOG = LoggerFactory.getLogger(PlannedReplicaWait.class);
  /** How long an off-plan block with several replicas is watched for its excess ones to go before it is reported. */
  private static final long OFF_PLAN_GRACE = java.util.concurrent.TimeUnit.SECONDS.toNanos(6);

  private final DistributedFileSystem dfs;
  private final PlanMoves moves;

  PlannedReplicaWait(DistributedFileSystem dfs, PlanMoves moves) {
    this.dfs = dfs;
    this.moves = moves;
  }

  /**
   * Polls the NameNode's block locations until every data block of the stripes sits on exactly its planned node,
   * or its planned node holds none (off plan), or the wait bound passes. A block found without a replica on its
   * planned node that was not moved in this run gets one moved there once (the planned node's replica may have
   * been chosen as excess after the first look, e.g. by a restarted NameNode), and is watched again. True per block
   * on plan, false off plan or unsettled; each problem is one line naming the file, block and nodes.
   */
  Map<Long, Boolean> await(List<ArchivedStripe> stripes,
      Map<Long, String> paths, Map<Long, String> moveFailed, List<String> moved, List<String> offPlan,
      List<String> notTrimmed, Archiver.TrimProgress progress) throws IOException {
    long waitMs = dfs.getConf().getLong(TrimProtocol.WAIT_KEY, TrimProtocol.WAIT_DEFAULT);
    Backoff poll = Backoff.pollingNameNode(50, waitMs);
    Map<Long, Boolean> settled = new HashMap<>();
    Map<Long, List<String>> lastSeen = new HashMap<>();
    Map<Long, Long> offPlanSince = new HashMap<>();
    Set<Long> movedLate = new java.util.HashSet<>();
    Map<Long, StripeMember> members = new LinkedHashMap<>();
    Map<Long, Long> stripeOf = new HashMap<>();
    for (ArchivedStripe s : stripes) {
      for (StripeMember m : PlanMoves.dataMembers(s)) {
        members.put(m.blockId(), m);
        stripeOf.put(m.blockId(), s.stripeId());
      }
    }
    while (true) {
      Map<Long, List<String>> now = moves.locations(members.values());
      for (StripeMember m : members.values()) {
        if (settled.containsKey(m.blockId())) {
          continue;
        }
        List<String> at = now.getOrDefault(m.blockId(), List.of());
        lastSeen.put(m.blockId(), at);
        // Off plan for sure: the planned node holds none and the excess replicas are gone or had time to go.
        boolean off = !at.contains(m.plannedNode()) && (at.size() <= 1
            || System.nanoTime() - offPlanSince.computeIfAbsent(m.blockId(), b -> System.nanoTime()) > OFF_PLAN_GRACE);
        if (at.equals(List.of(m.plannedNode()))) {
          settled.put(m.blockId(), true);
        } else if (off && !at.isEmpty() && !moveFailed.containsKey(m.blockId()) && movedLate.add(m.blockId())) {
          // The planned node lost its replica after the moves before lowering: the NameNode chose it as excess
          // (e.g. a restart's stock re-trim; HDFS lists excess replicas until they are deleted) or it died. Move one
          // there now, once per run; at replication 1 the NameNode keeps the moved replica (our policy's keepMoved,
          // or the stock delete hint when one replica is left).
          moveFailed.putAll(moves.moveOntoPlan(List.of(m), paths, moved, BlockMover.Until.TARGET_LISTED));
          offPlanSince.remove(m.blockId());
        } else if (off) {
          // Waited a little for excess replicas to go, so the report names the node that kept it.
          settled.put(m.blockId(), false);
          offPlan.add(offPlanLine(m, at, paths, moveFailed, stripeOf.get(m.blockId())));
        }
      }
      progress.at(settled.size(), members.size());
      if (settled.size() == members.size()) {
        LOG.debug("{} blocks settled in {} ms", members.size(), poll.elapsedMs());
        return settled;
      }
      if (poll.expired()) {
        for (StripeMember m : members.values()) {
          if (!settled.containsKey(m.blockId())) {
            notTrimmed.add(notTrimmedLine(m, lastSeen.get(m.blockId()), paths, stripeOf.get(m.blockId()), waitMs));
          }
        }
        return settled;
      }
      poll.pause("interrupted while waiting for the NameNode to trim " + members.size() + " blocks");
    }
  }

  /** A block found off its planned node, said in a line: where it is kept, and that nothing was deleted. */
  private static String offPlanLine(StripeMember m, List<String> at, Map<Long, String> paths,
      Map<Long, String> moveFailed, Long stripeId) {
    return paths.getOrDefault(m.inodeId(), "inode " + m.inodeId()) + " block blk_" + m.blockId()
        + " (stripe " + stripeId + "): " + (at.isEmpty() ? "no replica is left"
            : "kept on " + String.join(", ", at)) + ", planned on " + m.plannedNode()
        + "; its stripe stays COMMITTED and nothing was deleted" + (moveFailed.containsKey(m.blockId())
            ? ": " + moveFailed.get(m.blockId()) : at.isEmpty() ? "" : " (its planned node lost the replica"
            + " moved there in this run; rerun to move another)");
  }

  /** A block still above one replica when the wait ran out, said in a line. */
  private static String notTrimmedLine(StripeMember m, List<String> lastSeen, Map<Long, String> paths, Long stripeId,
      long waitMs) {
    return paths.getOrDefault(m.inodeId(), "inode " + m.inodeId()) + " block blk_" + m.blockId()
        + " (stripe " + stripeId + "): still on " + String.join(", ", lastSeen)
        + " after " + waitMs + " ms (" + TrimProtocol.WAIT_KEY + "), planned on " + m.plannedNode()
        + "; rerun to continue";
  }
}
