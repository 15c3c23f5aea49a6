package org.wideec.demo;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.wideec.topology.Site;
import org.wideec.topology.hdfs.DataNodeSites;
import org.wideec.datanode.GroupRepair;
import org.wideec.datanode.WideEcDataNodePlugin;
import org.wideec.engine.DigestRequest;
import org.wideec.minicluster.StripedGroups;
import org.wideec.repair.BlockRef;
import org.wideec.repair.EndpointResolver;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Endpoint;
import org.wideec.transport.SliceTransport;

/**
 * The striped block groups and DataNodes of an embedded bench cluster as the repair benchmarks reach them: a group
 * written in one go, a unit's length, reference and CRC32C as its holder reads it, the repair of a lost unit, and each
 * DataNode's rack, wide-ec plugin and slice endpoint (looked up before any timing starts).
 */
final class EmbeddedGroups {
  private EmbeddedGroups() {}

  static void writeFile(DistributedFileSystem fs, Path p, long bytes, long blockBytes) throws IOException {
    byte[] buf = new byte[1 << 20];
    Random r = new Random(p.hashCode());
    try (FSDataOutputStream o = fs.create(p, true, 1 << 16, (short) 1, blockBytes)) {
      for (long left = bytes; left > 0; left -= buf.length) {
        r.nextBytes(buf);
        o.write(buf, 0, (int) Math.min(buf.length, left));
      }
    }
  }

  /** A DataNode in the rack that holds no unit of the group (where the NameNode would put the rebuilt unit). */
  static DataNode spareInRack(MiniDFSCluster cluster, LocatedStripedBlock g, String rack) throws IOException {
    java.util.Set<Integer> used = new java.util.HashSet<>();
    for (DatanodeInfo d : g.getLocations()) {
      used.add(d.getXferPort());
    }
    for (DataNode dn : cluster.getDataNodes()) {
      if (!used.contains(dn.getXferPort()) && rackOf(cluster, dn).equals(rack)) {
        return dn;
      }
    }
    throw new IOException("no spare DataNode in " + rack);
  }

  static String rackOf(MiniDFSCluster cluster, DataNode dn) {
    return descriptor(cluster, dn).getNetworkLocation();
  }

  static DatanodeInfo descriptor(MiniDFSCluster cluster, DataNode dn) {
    return cluster.getNamesystem().getBlockManager().getDatanodeManager()
        .getDatanodeByXferAddr(dn.getDatanodeId().getIpAddr(), dn.getXferPort());
  }

  static WideEcDataNodePlugin plugin(DataNode dn) {
    WideEcDataNodePlugin p = WideEcDataNodePlugin.running(dn.getXferPort());
    if (p == null || p.transport() == null) {
      throw new IllegalStateException(dn.getDisplayName() + " runs no wide-ec repair worker");
    }
    return p;
  }

  static UnitLocation where(MiniDFSCluster cluster, DataNode dn) {
    return new UnitLocation(-1, new Site(dn.getDatanodeId().getXferAddr(), rackOf(cluster, dn)));
  }

  /** The asker's resolver, with every DataNode's endpoint already looked up (discovery is not what we time). */
  static EndpointResolver resolver(MiniDFSCluster cluster, DataNode asker) throws IOException {
    Map<String, DatanodeInfo> all = new HashMap<>();
    for (DataNode dn : cluster.getDataNodes()) {
      all.put(dn.getDatanodeId().getXferAddr(), descriptor(cluster, dn));
    }
    EndpointResolver r = plugin(asker).endpoints().over(all::get);
    for (DatanodeInfo d : all.values()) {
      r.resolve(new UnitLocation(-1, DataNodeSites.of(d)));
    }
    return r;
  }

  static long crcOf(MiniDFSCluster cluster, ErasureCodingPolicy policy, LocatedStripedBlock g, int unit,
      DataNode asker) throws Exception {
    DatanodeInfo at = StripedGroups.location(g, unit);
    SliceTransport t = plugin(asker).transport();
    Endpoint e = resolver(cluster, asker).resolve(new UnitLocation(unit, DataNodeSites.of(at)));
    return DigestRequest.crcOf(t, e, where(cluster, asker), ref(g, unit, unitLength(policy, g, unit)), t.conf().sliceBytes());
  }

  static long unitLength(ErasureCodingPolicy policy, LocatedStripedBlock g, int unit) {
    return org.apache.hadoop.hdfs.util.StripedBlockUtil.getInternalBlockLength(g.getBlockSize(), policy.getCellSize(),
        policy.getNumDataUnits(), unit);
  }

  static BlockRef ref(LocatedStripedBlock g, int unit, long len) {
    org.apache.hadoop.hdfs.protocol.ExtendedBlock b = new org.apache.hadoop.hdfs.protocol.ExtendedBlock(
        g.getBlock().getBlockPoolId(), g.getBlock().getBlockId() + unit, len, g.getBlock().getGenerationStamp());
    return new BlockRef(b.getBlockPoolId(), b.getBlockId(), b.getGenerationStamp(), len, GroupRepair.tokensOf(g).apply(b));
  }

  static StripeRepair repairOf(ErasureCodingPolicy policy, LocatedStripedBlock g, int lost, RepairScheme scheme) {
    int[] live = new int[g.getBlockIndices().length];
    for (int i = 0; i < live.length; i++) {
      live[i] = g.getBlockIndices()[i];
    }
    return GroupRepair.of(g.getBlock(), policy, live, g.getLocations(), new int[] {lost}, scheme, GroupRepair.tokensOf(g)).repair();
  }

  static long crossRackBytes(MiniDFSCluster cluster) {
    long sum = 0;
    for (DataNode dn : cluster.getDataNodes()) {
      WideEcDataNodePlugin p = WideEcDataNodePlugin.running(dn.getXferPort());
      sum += p == null || p.metrics() == null ? 0 : p.metrics().bytesSentCrossRack();
    }
    return sum;
  }
}
