package org.wideec.datanode;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.apache.hadoop.util.DataChecksum;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.code.LinearCode;
import org.wideec.coder.StripedCodec;
import org.wideec.repair.BlockRef;
import org.wideec.repair.DigestRequest;
import org.wideec.repair.EndpointResolver;
import org.wideec.repair.RepairEngine;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;
import org.wideec.transport.SliceTransport;

/**
 * Runs a NameNode reconstruction task of one of our codecs: the lost units (those the NameNode gave targets)
 * are rebuilt by the repair engine with this DataNode as requestor and written to the targets the NameNode
 * chose (by our placement policy, so the group keeps its plan). If our worker fails before anything is
 * stored, HDFS's own reconstructor gets the task, so a repair is never lost to a problem of ours.
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
    this.scheme = RepairScheme.valueOf(conf.getTrimmed(SCHEME, "rack_aggregated").toUpperCase());
    int attempts = conf.getInt(MAX_ATTEMPTS, 3);
    this.engines = resolver -> new RepairEngine(transport, resolver, metrics, attempts);
    this.fallback = conf.getBoolean(FALLBACK, true);
    this.checksum = DataChecksum.newDataChecksum(
        DataChecksum.Type.valueOf(conf.getTrimmed(DFSConfigKeys.DFS_CHECKSUM_TYPE_KEY, DFSConfigKeys.DFS_CHECKSUM_TYPE_DEFAULT)),
        conf.getInt(DFSConfigKeys.DFS_BYTES_PER_CHECKSUM_KEY, DFSConfigKeys.DFS_BYTES_PER_CHECKSUM_DEFAULT));
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
    ErasureCodingPolicy policy = t.policy();
    int k = policy.getNumDataUnits();
    int n = k + policy.getNumParityUnits();
    LinearCode code = StripedCodec.byName(policy.getCodecName()).codeFor(k, policy.getNumParityUnits());
    ExtendedBlock group = t.blockGroup();
    long[] length = new long[n];
    for (int i = 0; i < n; i++) {
      length[i] = StripedBlockUtil.getInternalBlockLength(group.getNumBytes(), policy.getCellSize(), k, i);
    }
    Map<String, DatanodeInfo> nodes = new HashMap<>();
    Map<Integer, UnitLocation> survivors = new HashMap<>();
    Map<Integer, BlockRef> blocks = new HashMap<>();
    Set<Integer> live = new HashSet<>();
    for (int j = 0; j < t.liveIndices().length; j++) {
      int u = t.liveIndices()[j];
      DatanodeInfo src = t.sources()[j];
      live.add(u);
      nodes.put(src.getXferAddr(), src);
      survivors.put(u, new UnitLocation(u, src.getXferAddr(), src.getNetworkLocation()));
      blocks.put(u, new BlockRef(group.getBlockPoolId(), group.getBlockId() + u, group.getGenerationStamp(), length[u]));
    }
    Set<Integer> zeros = new HashSet<>();
    List<Integer> missing = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (!live.contains(i)) {
        if (length[i] == 0) {
          zeros.add(i);
        } else if (!t.excluded().get(i)) {
          missing.add(i);
        }
      }
    }
    int count = Math.min(missing.size(), t.targets().length);
    if (count == 0) {
      LOG.info("block group {}: nothing to rebuild", group);
      return;
    }
    int[] lost = new int[count];
    long[] lostLengths = new long[count];
    Map<Integer, Integer> targetOf = new HashMap<>();
    for (int i = 0; i < count; i++) {
      lost[i] = missing.get(i);
      lostLengths[i] = length[lost[i]];
      targetOf.put(lost[i], i);
      nodes.put(t.targets()[i].getXferAddr(), t.targets()[i]);
    }
    DatanodeInfo self = t.targets()[0];
    UnitLocation requestor = new UnitLocation(-1, self.getXferAddr(), self.getNetworkLocation());
    EndpointResolver resolver = endpoints.over(nodes::get);
    StripeRepair r = StripeRepair.of("block group " + group.getBlockName() + " (" + policy.getName() + ")", code, lost,
        lostLengths, survivors, blocks, zeros, scheme);
    engines.create(resolver).repair(r, requestor, (unit, len) -> {
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
