package org.wideec.datanode;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.util.DataChecksum;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.coder.StripedCodec;
import org.wideec.repair.BlockRef;
import org.wideec.engine.DigestRequest;
import org.wideec.repair.EndpointResolver;
import org.wideec.engine.RepairEngine;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.hdfs.DataNodeSites;
import org.wideec.transport.SliceTransport;

/**
 * Runs a NameNode reconstruction task of one of our codecs: the lost units (those the NameNode gave targets)
 * are rebuilt by the repair engine with this DataNode as requestor and written to the targets the NameNode
 * chose (by our placement policy, so the group keeps its plan). If our worker gives up, HDFS's own
 * reconstructor gets the task (unless wide-ec.repair.fallback-to-stock is false), so a repair is never lost to a
 * problem of ours. Each task ends in one {@link ReconstructionOutcome}, logged with its block group and counted.
 */
final class RepairWorker implements ReconstructionTakeover.Worker {
  private static final Logger LOG = LoggerFactory.getLogger(RepairWorker.class);
  private final DataNode dn;
  private final SliceTransport transport;
  private final JmxEndpointResolver endpoints;
  private final RepairMetrics metrics;
  private final int maxAttempts;
  private final org.wideec.repair.RebuildValidation validation;
  private final RepairScheme scheme;
  private final boolean fallback;
  private final DataChecksum checksum;
  private volatile boolean stopping;

  RepairWorker(DataNode dn, RepairWorkerConf conf, SliceTransport transport, JmxEndpointResolver endpoints,
      RepairMetrics metrics) {
    Configuration hdfs = dn.getConf();
    this.dn = dn;
    this.transport = transport;
    this.endpoints = endpoints;
    this.metrics = metrics;
    this.scheme = conf.scheme();
    this.maxAttempts = conf.maxAttempts();
    this.validation = conf.validation();
    this.fallback = conf.fallbackToStock();
    this.checksum = checksumOf(hdfs);
  }

  /** The checksum a rebuilt block is stored with: the cluster's (dfs.checksum.type, dfs.bytes-per-checksum). */
  static DataChecksum checksumOf(Configuration hdfs) {
    return DataChecksum.newDataChecksum(
        DataChecksum.Type.valueOf(hdfs.getTrimmed(DFSConfigKeys.DFS_CHECKSUM_TYPE_KEY, DFSConfigKeys.DFS_CHECKSUM_TYPE_DEFAULT)),
        hdfs.getInt(DFSConfigKeys.DFS_BYTES_PER_CHECKSUM_KEY, DFSConfigKeys.DFS_BYTES_PER_CHECKSUM_DEFAULT));
  }

  /** Whether a task's codec is one of ours. */
  static boolean ours(ReconstructionTask t) {
    return StripedCodec.names().contains(t.policy().getCodecName());
  }

  /**
   * The DataNode is shutting down: tasks that fail from now on are abandoned, not handed to HDFS's reconstructor
   * (it could not finish them either; the NameNode retargets them after its pending timeout).
   */
  void stop() {
    stopping = true;
  }

  /**
   * What a task asks of our worker: which missing units to rebuild, the index of each one's target among the task's,
   * and the units left out because another rebuild on this DataNode is storing them on their targets already.
   */
  private record Job(GroupRepair group, int[] units, int[] targetIndex, DatanodeInfo[] targets,
      List<Integer> beingStored) {
    List<Integer> unitList() {
      return Arrays.stream(units).boxed().toList();
    }

    List<String> targetList() {
      return Arrays.stream(targetIndex).mapToObj(i -> targets[i].getXferAddr()).toList();
    }
  }

  @Override
  public void run(ReconstructionTask task, Runnable stock) {
    metrics.tasksTakenOver.incr();
    Job job = null;
    ReconstructionOutcome outcome;
    List<Integer> stored = java.util.Collections.synchronizedList(new ArrayList<>());
    try {
      job = job(task);
      if (job.units().length == 0) {
        outcome = outcome(task, job, ReconstructionOutcome.Route.OUR_WORKER, null, job.beingStored().isEmpty()
            ? "nothing to rebuild" : "nothing to rebuild: units " + job.beingStored() + " are being stored on their"
            + " targets by another rebuild on this DataNode (the NameNode's order, or an earlier task)");
      } else {
        RepairEngine.Result r = repair(task, job, stored);
        outcome = outcome(task, job, ReconstructionOutcome.Route.OUR_WORKER, r, "stored and confirmed");
      }
    } catch (Throwable e) { // nothing of ours escapes into the DataNode; the task takes another route
      if (!(e instanceof IOException)) {
        metrics.unexpectedError();
        LOG.error("wide-ec repair of block group {} failed unexpectedly", task.blockGroup(), e);
      }
      RepairEngine.Result tried = e instanceof RepairEngine.RepairFailedException f ? f.result() : null;
      String why = e.getMessage();
      if (UnitsBeingStored.refused(e)) {
        // Another rebuild here stores the unit now; HDFS's reconstructor would collide with it the same way.
        outcome = outcome(task, job, ReconstructionOutcome.Route.ABANDONED, tried, why);
      } else if (stopping) {
        outcome = outcome(task, job, ReconstructionOutcome.Route.ABANDONED, tried, "the DataNode is shutting down: " + why);
      } else if (!stored.isEmpty()) {
        // HDFS's reconstructor would write the same units again: once anything is stored the NameNode retargets the rest.
        outcome = outcome(task, job, ReconstructionOutcome.Route.ABANDONED, tried, "units " + stored
            + " were already stored, so the task is not handed to HDFS's reconstructor: " + why);
      } else if (fallback) {
        outcome = outcome(task, job, ReconstructionOutcome.Route.HANDED_TO_STOCK, tried, why);
      } else {
        outcome = outcome(task, job, ReconstructionOutcome.Route.ABANDONED, tried, RepairWorkerConf.FALLBACK + " is false: " + why);
      }
    }
    metrics.record(outcome);
    if (outcome.route() == ReconstructionOutcome.Route.OUR_WORKER) {
      LOG.info("wide-ec: block group {} units {} rebuilt by our worker on {} ({})", task.blockGroup(), outcome.units(),
          outcome.targets(), outcome.detail());
    } else {
      LOG.warn("wide-ec: block group {} units {}: {} ({})", task.blockGroup(), outcome.units(),
          outcome.route() == ReconstructionOutcome.Route.HANDED_TO_STOCK ? "handed to HDFS's reconstructor"
              : "abandoned, the NameNode will retarget it", outcome.detail());
    }
    if (outcome.route() == ReconstructionOutcome.Route.HANDED_TO_STOCK) {
      stock.run(); // decrements the DataNode's xmits itself
    } else {
      float weight = dn.getErasureCodingWorker().getXmitWeight();
      dn.decrementXmitsInProgress(Math.max((int) (task.xmits() * weight), 1));
    }
  }

  private static ReconstructionOutcome outcome(ReconstructionTask task, Job job, ReconstructionOutcome.Route route,
      RepairEngine.Result r, String detail) {
    List<Integer> units = job == null ? List.of() : job.unitList();
    List<String> targets = job == null
        ? Arrays.stream(task.targets()).map(DatanodeInfo::getXferAddr).toList() : job.targetList();
    return new ReconstructionOutcome(task.blockGroup().getBlockId(), units, targets, route,
        r == null ? 0 : r.attempts(), r == null ? List.of() : r.excludedNodes(), String.valueOf(detail));
  }

  /**
   * The NameNode names as many targets as it found room for: rebuild that many missing units, in order,
   * skipping the ones it excluded (being rebuilt elsewhere).
   */
  private Job job(ReconstructionTask t) {
    int[] live = new int[t.liveIndices().length];
    for (int j = 0; j < live.length; j++) {
      live[j] = t.liveIndices()[j];
    }
    // Helpers check READ tokens this DataNode mints, as HDFS's StripedBlockReader does for its sources.
    GroupRepair all = GroupRepair.of(t.blockGroup(), t.policy(), live, t.sources(), null, scheme,
        b -> BlockTokenAccess.readToken(dn, b));
    if (all.repair() == null) {
      return new Job(all, new int[0], new int[0], t.targets(), List.of());
    }
    List<Integer> missing = new ArrayList<>();
    for (int u : all.repair().lost()) {
      if (!t.excluded().get(u)) {
        missing.add(u);
      }
    }
    int count = Math.min(missing.size(), t.targets().length);
    List<Integer> units = new ArrayList<>();
    List<Integer> targetIndex = new ArrayList<>();
    List<Integer> beingStored = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int u = missing.get(i);
      if (UnitsBeingStored.isBeingStored(t.blockGroup().getBlockPoolId(), t.blockGroup().getBlockId() + u,
          t.targets()[i])) {
        beingStored.add(u);
      } else {
        units.add(u);
        targetIndex.add(i);
      }
    }
    return new Job(all, units.stream().mapToInt(Integer::intValue).toArray(),
        targetIndex.stream().mapToInt(Integer::intValue).toArray(), t.targets(), beingStored);
  }

  /**
   * Reports a source replica a helper found corrupt to the NameNode, synchronously, as HDFS's reconstructor does
   * (DataNode#reportRemoteBadBlock, the call behind its reportCorruptedBlocks): the NameNode then no longer counts
   * the unit as live and queues it for reconstruction before this task stores its units, so the group is not left
   * looking whole with a corrupt unit in it. The helper's own DataNode reports it too, but only with its next
   * heartbeat.
   */
  private void reportCorrupt(ExtendedBlock group, DatanodeInfo holder, int unit, BlockRef block, String why)
      throws IOException {
    if (holder == null) {
      throw new IOException("no DataNode known for the corrupt replica of unit " + unit);
    }
    ExtendedBlock internal = new ExtendedBlock(group.getBlockPoolId(), block.blockId(), block.numBytes(),
        block.genStamp());
    dn.reportRemoteBadBlock(holder, internal);
    metrics.corruptSourcesReported.incr();
    LOG.warn("wide-ec: block group {} unit {}: replica {} on {} is corrupt ({}); reported to the NameNode, which"
        + " schedules its reconstruction", group, unit, internal, holder.getXferAddr(), why);
  }

  private RepairEngine.Result repair(ReconstructionTask t, Job job, List<Integer> stored) throws IOException {
    ExtendedBlock group = t.blockGroup();
    int[] wanted = job.units();
    Map<String, DatanodeInfo> nodes = new HashMap<>(job.group().nodes());
    Map<Integer, Integer> targetOf = new HashMap<>();
    for (int i = 0; i < wanted.length; i++) {
      int ti = job.targetIndex()[i];
      targetOf.put(wanted[i], ti);
      nodes.put(t.targets()[ti].getXferAddr(), t.targets()[ti]);
    }
    DatanodeInfo self = t.targets()[0];
    UnitLocation requestor = new UnitLocation(-1, DataNodeSites.of(self));
    EndpointResolver resolver = endpoints.over(nodes::get);
    RepairEngine engine = new RepairEngine(transport, resolver, metrics, maxAttempts, validation,
        (unit, where, block, why) -> reportCorrupt(group, nodes.get(where.node()), unit, block, why)).asBackground();
    return engine.repair(job.group().repair().only(wanted), requestor, (unit, len) -> {
      int ti = targetOf.get(unit);
      DatanodeInfo target = t.targets()[ti];
      ExtendedBlock internal = new ExtendedBlock(group.getBlockPoolId(), group.getBlockId() + unit, len,
          group.getGenerationStamp());
      BlockRef ref = new BlockRef(group.getBlockPoolId(), internal.getBlockId(), internal.getGenerationStamp(), len,
          BlockTokenAccess.readToken(dn, internal));
      return new StoreRecorder(new BlockTargetWriter(dn, internal, target, t.targetStorageTypes()[ti],
          t.targetStorageIds()[ti], checksum, b -> DigestRequest.crcOf(transport,
              resolver.resolve(new UnitLocation(unit, DataNodeSites.of(target))), requestor, ref,
              transport.conf().sliceBytes())),
          unit, stored);
    });
  }
}
