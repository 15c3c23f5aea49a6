package org.wideec.cluster;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.wideec.client.WideEcFileSystem;
import org.wideec.code.LinearCode;
import org.wideec.code.ReedSolomon;
import org.wideec.coder.StripedCodec;
import org.wideec.datanode.JmxEndpointResolver;
import org.wideec.minicluster.StripedGroups;

/**
 * What every part of the cluster bench works with: the cluster (script, counters), a stock client and our
 * FileSystem on the same NameNode, the phases found invalid, and the NameNode-side waits every loss goes through.
 */
final class ClusterBed implements AutoCloseable {
  final Configuration conf;
  final ClusterScript cluster;
  final DistributedFileSystem stock;
  final WideEcFileSystem ours;
  final DataNodeCounters counters;
  final List<String> invalid = new ArrayList<>();
  final PrintStream log;
  final long timeoutMs;
  private final JmxEndpointResolver jmx;

  ClusterBed(Configuration conf, ClusterScript cluster, PrintStream log, long timeoutMs) throws IOException {
    this.conf = conf;
    this.cluster = cluster;
    this.log = log;
    this.timeoutMs = timeoutMs;
    URI nn = FileSystem.getDefaultUri(conf);
    stock = new DistributedFileSystem();
    stock.initialize(nn, conf);
    // Our FileSystem as a long-running reader runs it (a query engine's executor, a region server): its chain path
    // warmed on loopback when it starts, as each DataNode's is, so the reads compare warm paths on both sides.
    Configuration reader = new Configuration(conf);
    // As many slices as a DataNode's warm-up runs (the shipped hdfs-site.xml says 0 for clients).
    reader.setLong("wide-ec.client.degraded-read.warmup.slices",
        org.wideec.datanode.WideEcDataNodePlugin.CHAIN_WARMUP_DEFAULT);
    ours = new WideEcFileSystem();
    ours.initialize(nn, reader);
    try {
      org.wideec.engine.ChainWarmup.Result w = ours.degradedReadWarmup(120_000);
      log.println("cluster bench: our FileSystem's chain path warmed up: " + w);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while our FileSystem warmed up");
    }
    jmx = new JmxEndpointResolver(conf, 10_000);
    counters = new DataNodeCounters(stock, jmx);
  }

  /** A measured phase, begun once the host is quiet (at most 30 s after the last one's work: {@link HostCpu#awaitQuiet}). */
  Phase phase(String name) throws IOException {
    double waited;
    try {
      waited = HostCpu.awaitQuiet(30);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while waiting for a quiet host before " + name);
    }
    log.println("cluster bench: " + name + String.format(" (host quiet after %.1f s)", waited));
    return Phase.begin(name, cluster, invalid, waited);
  }

  /** A phase that prepares a measurement (its CPU is reported, never counted as invalid). */
  Phase setup(String name) throws IOException {
    log.println("cluster bench: " + name);
    return Phase.setup(name, cluster);
  }

  /**
   * The active NameNode's bean {@code Hadoop:service=NameNode,name=NAME} from its /jmx page (our plugin's is
   * {@code WideEc}), or null when it has none.
   */
  com.fasterxml.jackson.databind.JsonNode nameNodeBean(String name) throws IOException {
    String web = org.apache.hadoop.hdfs.DFSUtil.getInfoServer(org.apache.hadoop.hdfs.HAUtil.getAddressOfActive(stock),
        conf, org.apache.hadoop.hdfs.DFSUtil.getHttpClientScheme(conf)).toString();
    return jmx.firstBean(web + "/jmx?qry=Hadoop:service=NameNode,name=" + name);
  }

  /** The block size files are written with here: the cluster's configured dfs.blocksize. */
  long blockBytes() {
    return conf.getLongBytes(org.apache.hadoop.hdfs.DFSConfigKeys.DFS_BLOCK_SIZE_KEY,
        org.apache.hadoop.hdfs.DFSConfigKeys.DFS_BLOCK_SIZE_DEFAULT);
  }

  /**
   * How long after a DataNode's last heartbeat the NameNode declares it dead, from this cluster's configuration (the
   * client's is the daemons'): 2 x the heartbeat recheck interval + 10 heartbeats, as HDFS's DatanodeManager computes
   * it (20 s on cluster.sh's cluster).
   */
  long deadNodeExpiryMs() {
    long recheckMs = conf.getInt(org.apache.hadoop.hdfs.DFSConfigKeys.DFS_NAMENODE_HEARTBEAT_RECHECK_INTERVAL_KEY,
        org.apache.hadoop.hdfs.DFSConfigKeys.DFS_NAMENODE_HEARTBEAT_RECHECK_INTERVAL_DEFAULT);
    long heartbeatSeconds = conf.getTimeDuration(org.apache.hadoop.hdfs.DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_KEY,
        org.apache.hadoop.hdfs.DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_DEFAULT, java.util.concurrent.TimeUnit.SECONDS);
    return 2 * recheckMs + 10 * 1000 * heartbeatSeconds;
  }

  int liveDataNodes() throws IOException {
    return stock.getDataNodeStats(DatanodeReportType.LIVE).length;
  }

  /** The live DataNodes of rack {@code rack}. */
  List<DatanodeInfo> rack(int rack) throws IOException {
    List<DatanodeInfo> out = new ArrayList<>();
    for (DatanodeInfo dn : stock.getDataNodeStats(DatanodeReportType.LIVE)) {
      if (ClusterScript.rackOf(dn) == rack) {
        out.add(dn);
      }
    }
    return out;
  }

  /**
   * Waits until the NameNode has declared every one of {@code nodes} dead and dropped their replicas from the block
   * groups of {@code files} (the report calls a node dead as soon as its heartbeats are late; the replicas go at the
   * next heartbeat check, and only then is the rebuild scheduled).
   */
  void awaitDropped(Collection<DatanodeInfo> nodes, Collection<Path> files) throws IOException {
    Set<String> addrs = new HashSet<>();
    nodes.forEach(d -> addrs.add(d.getXferAddr()));
    Await.until("the NameNode declaring " + addrs + " dead", timeoutMs, () -> {
      Set<String> dead = new HashSet<>();
      for (DatanodeInfo d : stock.getDataNodeStats(DatanodeReportType.DEAD)) {
        dead.add(d.getXferAddr());
      }
      return dead.containsAll(addrs);
    });
    Await.until("the NameNode dropping the replicas of " + addrs, timeoutMs, () -> {
      for (Path f : files) {
        for (LocatedBlock b : stock.getClient().getLocatedBlocks(f.toUri().getPath(), 0, Long.MAX_VALUE).getLocatedBlocks()) {
          if (Arrays.stream(b.getLocations()).anyMatch(d -> addrs.contains(d.getXferAddr()))) {
            return false;
          }
        }
      }
      return true;
    });
  }

  /** Waits until every block group of every file holds each of its units exactly once (rebuilt, excess deleted). */
  void awaitWhole(Collection<Path> files, ErasureCodingPolicy policy) throws IOException {
    Await.until("every block group whole", timeoutMs, () -> {
      for (Path f : files) {
        for (LocatedStripedBlock g : StripedGroups.groups(stock, f)) {
          if (!StripedGroups.isSettled(g, policy)) {
            return false;
          }
        }
      }
      return true;
    });
  }

  /** Waits until every DataNode of the cluster is live again (after a start or a healed rack). */
  /**
   * Starts a DataNode again and waits until the NameNode lists it live and its web UI answers: one killed and started
   * within the NameNode's recheck interval never looked dead, so "live" alone does not say the new process serves.
   */
  void startDataNode(String node) throws IOException {
    cluster.start(node);
    Await.until(node + " live and serving its web UI", timeoutMs, () -> {
      for (DatanodeInfo d : stock.getDataNodeStats(DatanodeReportType.LIVE)) {
        if (ClusterScript.nodeName(d).equals(node)) {
          return counters.serving(d);
        }
      }
      return false;
    });
  }

  void awaitLive(int nodes) throws IOException {
    Await.until(nodes + " DataNodes live", timeoutMs, () -> liveDataNodes() == nodes);
  }

  /** The code of a striped policy: ours by codec name, HDFS's "rs" as the MDS Reed-Solomon code it is. */
  static LinearCode codeOf(ErasureCodingPolicy p) {
    String c = p.getCodecName();
    return StripedCodec.names().contains(c) ? StripedCodec.byName(c).codeFor(p.getNumDataUnits(), p.getNumParityUnits())
        : ReedSolomon.create(p.getNumDataUnits(), p.getNumParityUnits());
  }

  /** Whether the policy is HDFS's own (codec "rs", which our worker never takes over). */
  static boolean isStock(ErasureCodingPolicy p) {
    return !StripedCodec.names().contains(p.getCodecName());
  }

  ErasureCodingPolicy policy(String name) throws IOException {
    for (var info : stock.getAllErasureCodingPolicies()) {
      if (info.getPolicy().getName().equals(name)) {
        if (!info.isEnabled()) {
          throw new IOException("erasure-coding policy " + name + " is not enabled (cluster.sh up --policies)");
        }
        return info.getPolicy();
      }
    }
    throw new IOException("no erasure-coding policy " + name + " on this cluster (cluster.sh up adds the shipped ones)");
  }

  @Override
  public void close() throws IOException {
    jmx.close();
    ours.close();
    stock.close();
  }
}
