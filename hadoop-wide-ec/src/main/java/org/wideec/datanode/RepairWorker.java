package org.wideec.datanode;

import java.io.IOException;
import java.util.ArrayList;
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
import org.wideec.repair.DigestRequest;
import org.wideec.repair.EndpointResolver;
import org.wideec.repair.RepairEngine;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.UnitLocation;
import org.wideec.transport.SliceTransport;

/**
 * Runs a NameNode reconstruction task of one of our codecs: the lost units (those the NameNode gave targets)
 * are rebuilt by the repair engine with this DataNode as requestor and written to the targets the NameNode
 * chose (by our placement policy, so the group keeps its plan). If our worker gives up, HDFS's own
 * reconstructor gets the task (unless wide-ec.repair.fallback-to-stock is false), so a repair is never lost to a
 * problem of ours.
 */
final class RepairWorker implements ReconstructionTakeover.Worker {
  static final String SCHEME = "wide-ec.repair.scheme";
  static final String MAX_ATTEMPTS = "wide-ec.repair.max-attempts";
  static final String FALLBACK = "wide-ec.repair.fallback-to-stock";
  private static final Logger LOG = LoggerFactory.getLogger(RepairWorker.class);
  private final DataNode dn;
  private final SliceTransport transport;
  private final JmxEndpointResolver endpoints;
  private final RepairMetrics metrics;
  private final RepairEngine.Builder engines;
  private final RepairScheme scheme;
  private final boolean fallback;
  private final DataChecksum checksum;

  RepairWorker(DataNode dn, SliceTransport transport, JmxEndpointResolver endpoints, RepairMetrics metrics) {
    Configuration conf = dn.getConf();
    this.dn = dn;
    this.transport = transport;
    this.endpoints = endpoints;
    this.metrics = metrics;
    this.scheme = scheme(conf.getTrimmed(SCHEME, "rack_aggregated"));
    int attempts = conf.getInt(MAX_ATTEMPTS, 3);
    this.engines = resolver -> new RepairEngine(transport, resolver, metrics, attempts);
    this.fallback = conf.getBoolean(FALLBACK, true);
    this.checksum = DataChecksum.newDataChecksum(
        DataChecksum.Type.valueOf(conf.getTrimmed(DFSConfigKeys.DFS_CHECKSUM_TYPE_KEY, DFSConfigKeys.DFS_CHECKSUM_TYPE_DEFAULT)),
        conf.getInt(DFSConfigKeys.DFS_BYTES_PER_CHECKSUM_KEY, DFSConfigKeys.DFS_BYTES_PER_CHECKSUM_DEFAULT));
  }

  static RepairScheme scheme(String name) {
    try {
      return RepairScheme.valueOf(name.toUpperCase(java.util.Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(SCHEME + " must be one of "
          + java.util.Arrays.toString(RepairScheme.values()).toLowerCase(java.util.Locale.ROOT) + ", got '" + name + "'");
    }
  }

  /** Whether a task's codec is one of ours. */
  static boolean ours(ReconstructionTask t) {
    return StripedCodec.names().contains(t.policy().getCodecName());
  }

  @Override
  public void run(ReconstructionTask task, Runnable stock) {
    metrics.tasksTakenOver.incr();
    boolean stockRan = false;
    try {
      repair(task);
    } catch (IOException | RuntimeException e) {
      LOG.warn("wide-ec repair of block group {} failed: {}{}", task.blockGroup(), e.getMessage(),
          fallback ? "; handing the task to HDFS's reconstructor" : "");
      if (fallback) {
        stockRan = true;
        stock.run(); // decrements the DataNode's xmits itself
      }
    } finally {
      if (!stockRan) {
        float weight = dn.getErasureCodingWorker().getXmitWeight();
        dn.decrementXmitsInProgress(Math.max((int) (task.xmits() * weight), 1));
      }
    }
  }

  private void repair(ReconstructionTask t) throws IOException {
    ExtendedBlock group = t.blockGroup();
    int[] live = new int[t.liveIndices().length];
    for (int j = 0; j < live.length; j++) {
      live[j] = t.liveIndices()[j];
    }
    GroupRepair all = GroupRepair.of(group, t.policy(), live, t.sources(), null, scheme);
    if (all.repair() == null) {
      LOG.info("block group {}: nothing to rebuild", group);
      return;
    }
    // The NameNode names as many targets as it found room for: rebuild that many missing units, in order,
    // skipping the ones it excluded (being rebuilt elsewhere).
    List<Integer> missing = new ArrayList<>();
    for (int u : all.repair().lost()) {
      if (!t.excluded().get(u)) {
        missing.add(u);
      }
    }
    int count = Math.min(missing.size(), t.targets().length);
    if (count == 0) {
      return;
    }
    int[] wanted = missing.subList(0, count).stream().mapToInt(Integer::intValue).toArray();
    Map<String, DatanodeInfo> nodes = new HashMap<>(all.nodes());
    Map<Integer, Integer> targetOf = new HashMap<>();
    for (int i = 0; i < count; i++) {
      targetOf.put(wanted[i], i);
      nodes.put(t.targets()[i].getXferAddr(), t.targets()[i]);
    }
    DatanodeInfo self = t.targets()[0];
    UnitLocation requestor = new UnitLocation(-1, self.getXferAddr(), self.getNetworkLocation());
    EndpointResolver resolver = endpoints.over(nodes::get);
    engines.create(resolver).repair(all.repair().only(wanted), requestor, (unit, len) -> {
      int ti = targetOf.get(unit);
      DatanodeInfo target = t.targets()[ti];
      ExtendedBlock internal = new ExtendedBlock(group.getBlockPoolId(), group.getBlockId() + unit, len,
          group.getGenerationStamp());
      BlockRef ref = new BlockRef(group.getBlockPoolId(), internal.getBlockId(), internal.getGenerationStamp(), len);
      return new BlockTargetWriter(dn, internal, target, t.targetStorageTypes()[ti], t.targetStorageIds()[ti], checksum,
          b -> DigestRequest.crcOf(transport, resolver.resolve(new UnitLocation(unit, target.getXferAddr(),
              target.getNetworkLocation())), requestor, ref, transport.conf().sliceBytes()));
    });
  }
}
