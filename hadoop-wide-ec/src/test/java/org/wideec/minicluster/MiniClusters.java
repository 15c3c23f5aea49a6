package org.wideec.minicluster;

import java.io.File;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.wideec.time.Backoff;

/** An embedded HDFS cluster with racks, tuned so failures are noticed and repaired in seconds. */
public final class MiniClusters {
  private MiniClusters() {}

  /**
   * The configuration that turns on our placement: the EC block placement policy and the NameNode plugin
   * through which it learns each file's EC policy (what an operator puts in hdfs-site.xml).
   */
  public static Configuration withWideEcPlacement(Configuration base) {
    Configuration conf = new Configuration(base);
    conf.set(DFSConfigKeys.DFS_BLOCK_PLACEMENT_EC_CLASSNAME_KEY,
        "org.apache.hadoop.hdfs.server.blockmanagement.WideEcBlockPlacementPolicy");
    conf.set(DFSConfigKeys.DFS_NAMENODE_PLUGINS_KEY, "org.wideec.placement.hdfs.WideEcNameNodePlugin");
    return conf;
  }

  /**
   * The configuration that lets archived data be trimmed to its planned replica: our contiguous placement policy
   * and the NameNode plugin whose trimmer keeps that replica, passing over the manifests every
   * {@code trimIntervalMs} (what an operator puts in hdfs-site.xml, with a shorter interval).
   */
  public static Configuration withWideEcArchiveTrim(Configuration base, long trimIntervalMs) {
    Configuration conf = withWideEcPlacement(base);
    conf.set(DFSConfigKeys.DFS_BLOCK_REPLICATOR_CLASSNAME_KEY,
        "org.apache.hadoop.hdfs.server.blockmanagement.WideEcReplicaPlacementPolicy");
    conf.setLong("wide-ec.archive.trim.interval.ms", trimIntervalMs);
    return conf;
  }

  /**
   * The configuration that turns on our DataNode repair worker: the plugin, and a cluster secret for the slice
   * transport (random per cluster here; an operator sets one, ideally through a credential provider).
   */
  public static Configuration withWideEcRepair(Configuration base) {
    Configuration conf = new Configuration(base);
    String plugins = conf.getTrimmed(DFSConfigKeys.DFS_DATANODE_PLUGINS_KEY, "");
    conf.set(DFSConfigKeys.DFS_DATANODE_PLUGINS_KEY, (plugins.isEmpty() ? "" : plugins + ",")
        + "org.wideec.datanode.WideEcDataNodePlugin");
    if (conf.get("wide-ec.transport.port") == null) {
      conf.setInt("wide-ec.transport.port", 0); // many DataNodes on one host: any free port each
    }
    if (conf.get("wide-ec.transport.secret") == null) {
      byte[] secret = new byte[24];
      new java.security.SecureRandom().nextBytes(secret);
      conf.set("wide-ec.transport.secret", java.util.HexFormat.of().formatHex(secret));
    }
    return conf;
  }

  /**
   * Test-only: how often the cluster's DataNodes heartbeat (a time duration, "250ms"), where the NameNode keeps its
   * whole seconds. See {@link #withQuickDataNodeHeartbeats}.
   */
  public static final String DATANODE_HEARTBEAT_KEY = "wideec.test.datanode.heartbeat";

  /**
   * DataNodes that heartbeat every quarter second while the NameNode keeps its whole-second interval. A DataNode
   * takes its orders (delete, copy, rebuild) only in a heartbeat's reply and reports a deleted replica only in its
   * next heartbeat (HDFS sends a received block at once, a deleted one with the next heartbeat), so each trim, move
   * or unarchive waits up to two DataNode heartbeats on the NameNode. The NameNode reads the interval in whole
   * seconds (dead-node and block-recovery times derive from it), so it keeps 1 s: a node is declared dead as before.
   * Not for benchmarks, whose numbers compare with HDFS's own timings.
   */
  public static Configuration withQuickDataNodeHeartbeats(Configuration base) {
    Configuration conf = new Configuration(base);
    conf.set(DATANODE_HEARTBEAT_KEY, "250ms");
    return conf;
  }

  /** Racks /rack0../rack{r-1}, nodesPerRack DataNodes each. */
  public static MiniDFSCluster start(Configuration base, File dir, int racks, int nodesPerRack, long blockSize)
      throws IOException {
    return start(tuned(base, dir, blockSize), racks, nodesPerRack);
  }

  /** Racks /rack0../rack{r-1}, nodesPerRack DataNodes each, with the configuration as given. */
  public static MiniDFSCluster start(Configuration conf, int racks, int nodesPerRack) throws IOException {
    String[] rackOf = new String[racks * nodesPerRack];
    for (int i = 0; i < rackOf.length; i++) {
      rackOf[i] = "/rack" + (i / nodesPerRack);
    }
    // One storage directory a DataNode, not MiniDFSCluster's two: both would sit on the one disk, and each volume costs
    // its start (format, checks, scanners): a 6 x 3 cluster started in 13 s instead of 18 on the shared 2 cores.
    // MiniDFSCluster's Builder turns HDFS's load check off on the configuration it is given: read a test's choice first.
    boolean considerLoad = conf.getBoolean(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_CONSIDERLOAD_KEY, false);
    // No loopback chains at the start unless asked: their transports pass through the process-wide fault injector a
    // test installs right after its cluster starts, and an embedded bench warms its own paths before it measures.
    conf.setIfUnset(org.wideec.datanode.WideEcDataNodePlugin.CHAIN_WARMUP_KEY, "0");
    MiniDFSCluster.Builder builder = new MiniDFSCluster.Builder(conf).numDataNodes(rackOf.length).racks(rackOf)
        .storagesPerDatanode(1).setNNRedundancyConsiderLoad(considerLoad);
    String heartbeat = conf.getTrimmed(DATANODE_HEARTBEAT_KEY);
    if (heartbeat != null) {
      // A value set on the configuration beats any resource added to it, so the NameNode's interval moves into a
      // resource and each DataNode's own resource, added after it, overrides it (a restarted DataNode keeps its own).
      Configuration nameNode = new Configuration(false);
      String nameNodeInterval = conf.get(DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_KEY,
          String.valueOf(DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_DEFAULT));
      nameNode.set(DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_KEY, nameNodeInterval);
      conf.unset(DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_KEY);
      conf.addResource(nameNode);
      Configuration dataNode = new Configuration(false);
      dataNode.set(DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_KEY, heartbeat);
      Configuration[] overlays = new Configuration[rackOf.length];
      java.util.Arrays.fill(overlays, dataNode);
      builder.dataNodeConfOverlays(overlays);
    }
    MiniDFSCluster cluster = builder.build();
    cluster.waitActive();
    return cluster;
  }

  /** Which ports a stopped DataNode comes back on. */
  public enum Ports {
    /**
     * The ports it had, because the test needs the same node back (a stripe's manifest names its nodes by transfer
     * address). Tried again for a while: another JVM on the machine may hold one of them for a moment.
     */
    SAME,
    /**
     * The ports it had if they come free within a few seconds, new ones otherwise: for bringing nodes back after a
     * test, when the later tests write their own files. Three test JVMs share the machine's ephemeral ports, so a
     * port freed early in a long test can be taken for good by another JVM's connection or DataNode meanwhile.
     */
    SAME_IF_FREE,
    /** New ports. */
    NEW
  }

  /** How long {@link Ports#SAME} keeps trying a port another process holds, and {@link Ports#SAME_IF_FREE} before new. */
  private static final int SAME_PORT_ATTEMPTS = 20;
  private static final int SAME_IF_FREE_ATTEMPTS = 3;

  /**
   * Restarts these stopped DataNodes on the {@code ports} asked for, and empties the list even when one fails to come
   * back (so that failure is this test's only); then waits until the cluster's DataNodes are up and has each restarted
   * one send its full block report at once. Only the restarted ones: the others' replicas are as the NameNode has them
   * (their incremental reports go at once), and asking a DataNode for a block report waits out its actor's next pass,
   * about 100 ms, so asking all 18 of a cluster cost 1.8 s a test.
   */
  public static void restartAndReport(MiniDFSCluster cluster, java.util.List<MiniDFSCluster.DataNodeProperties> stopped,
      Ports ports) throws IOException {
    java.util.List<org.apache.hadoop.hdfs.server.datanode.DataNode> restarted = new java.util.ArrayList<>();
    try {
      for (MiniDFSCluster.DataNodeProperties p : stopped) {
        restarted.add(restart(cluster, p, ports));
      }
    } finally {
      stopped.clear();
    }
    cluster.waitActive();
    for (org.apache.hadoop.hdfs.server.datanode.DataNode dn : restarted) {
      org.apache.hadoop.hdfs.server.datanode.DataNodeTestUtils.triggerBlockReport(dn);
    }
  }

  /**
   * Restarts one stopped DataNode on the {@code ports} asked for and returns it (a DataNode that fails to bind shuts
   * down what it had started, so it can be tried again).
   */
  public static org.apache.hadoop.hdfs.server.datanode.DataNode restart(MiniDFSCluster cluster,
      MiniDFSCluster.DataNodeProperties p, Ports ports) throws IOException {
    int attempts = ports == Ports.SAME ? SAME_PORT_ATTEMPTS : ports == Ports.SAME_IF_FREE ? SAME_IF_FREE_ATTEMPTS : 0;
    for (int attempt = 1; attempt <= attempts; attempt++) {
      try {
        return restarted(cluster, cluster.restartDataNode(p, true), p);
      } catch (java.net.BindException e) {
        if (attempt == attempts && ports == Ports.SAME) {
          throw e;
        }
        System.err.printf("restarting a stopped DataNode on its old ports, attempt %d of %d: %s%n", attempt, attempts,
            e.getMessage());
        sleep(1_000);
      }
    }
    return restarted(cluster, cluster.restartDataNode(p, false), p);
  }

  /** The DataNode MiniDFSCluster has just restarted (it adds one at the end of its list). */
  private static org.apache.hadoop.hdfs.server.datanode.DataNode restarted(MiniDFSCluster cluster, boolean started,
      MiniDFSCluster.DataNodeProperties p) throws IOException {
    if (!started) {
      throw new IOException("DataNode " + p + " did not restart");
    }
    return cluster.getDataNodes().get(cluster.getDataNodes().size() - 1);
  }

  private static void sleep(long ms) throws IOException {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while restarting a DataNode");
    }
  }

  /**
   * Has the NameNode declare these stopped DataNodes dead at once (as after their heartbeats stopped), under the
   * namesystem's write lock: the heartbeat check removes dead nodes one lock at a time, so without it a reader under the
   * read lock (our repair monitor's pass) may see some removed and the others still live.
   */
  public static void declareDeadAtOnce(MiniDFSCluster cluster,
      java.util.Collection<org.apache.hadoop.hdfs.server.blockmanagement.DatanodeDescriptor> dead) {
    cluster.getNamesystem().writeLock();
    try {
      dead.forEach(org.apache.hadoop.hdfs.DFSTestUtil::setDatanodeDead);
      org.apache.hadoop.hdfs.server.blockmanagement.BlockManagerTestUtil.checkHeartbeat(
          cluster.getNamesystem().getBlockManager());
    } finally {
      cluster.getNamesystem().writeUnlock();
    }
  }

  /** Whether {@code key} in {@code base} is unset or comes from Hadoop's *-default.xml, not from the test. */
  private static boolean isDefault(Configuration base, String key) {
    String[] sources = base.getPropertySources(key);
    return sources == null || java.util.Arrays.stream(sources).anyMatch(src -> src.endsWith("-default.xml"));
  }

  /** The base configuration with the embedded cluster's directory, block size and second-scale failure detection. */
  public static Configuration tuned(Configuration base, File dir, long blockSize) {
    Configuration conf = new Configuration(base);
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, dir.getAbsolutePath());
    conf.setLong(DFSConfigKeys.DFS_BLOCK_SIZE_KEY, blockSize);
    conf.setLong(DFSConfigKeys.DFS_NAMENODE_MIN_BLOCK_SIZE_KEY, Math.min(blockSize, 64 * 1024));
    conf.setInt(DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_KEY, 1);
    conf.setIfUnset(org.wideec.datanode.WideEcDataNodePlugin.CHAIN_WARMUP_KEY, "0"); // as in start: see there
    // Seconds to declare a stopped DataNode dead, unless the base keeps it listed longer on purpose (a test of what a
    // client sees while the NameNode still lists a dead node's replicas).
    if (isDefault(base, DFSConfigKeys.DFS_NAMENODE_HEARTBEAT_RECHECK_INTERVAL_KEY)) {
      conf.setInt(DFSConfigKeys.DFS_NAMENODE_HEARTBEAT_RECHECK_INTERVAL_KEY, 2000);
    }
    // A second unless the base sets another cycle itself (a time duration: "250ms"); hdfs-default.xml's 3s is no
    // such setting.
    boolean baseSetsRedundancy = !isDefault(base, DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY);
    conf.set(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY,
        baseSetsRedundancy ? base.get(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY) : "1");
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_REPLICATION_MAX_STREAMS_KEY, 20);
    conf.setBoolean(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_CONSIDERLOAD_KEY, false);
    // Moving a short group's unit to a new rack copies one internal block but records two pending targets; the
    // group is only requeued when the entry times out (5 minutes by default), so drills would wait that long.
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_RECONSTRUCTION_PENDING_TIMEOUT_SEC_KEY, 10);
    return conf;
  }

  /**
   * Waits until the NameNode has no redundancy work queued and no excess replica awaiting deletion. HDFS counts an
   * excess copy made while fixing placement as live; losing a node before that copy is deleted can leave a group
   * short until the next full block report, so failure drills start from a quiet cluster. Most of these counters
   * are snapshots the RedundancyMonitor refreshes once per cycle, so quiet must hold across a whole cycle (when
   * the monitor runs at all: with its interval turned up, the live queue alone is checked).
   */
  public static void awaitQuiet(MiniDFSCluster cluster, long timeoutMs) throws IOException, InterruptedException {
    org.apache.hadoop.hdfs.server.blockmanagement.BlockManager bm = cluster.getNamesystem().getBlockManager();
    Backoff poll = Backoff.doubling(100, 100, timeoutMs);
    while (true) {
      if (quiet(bm)) {
        awaitRedundancyCycles(cluster, 1, 5_000);
        if (quiet(bm)) {
          return;
        }
      }
      if (poll.expired()) {
        throw new IOException("NameNode still busy after " + timeoutMs + " ms: lowRedundancy="
            + bm.getLowRedundancyBlocks() + " (reported " + bm.getLowRedundancyBlocksCount() + ") excess="
            + bm.getExcessBlocksCount() + " pendingDeletion=" + bm.getPendingDeletionBlocksCount());
      }
      poll.pause();
    }
  }

  /**
   * Waits until the NameNode's RedundancyMonitor has finished {@code cycles} more cycles; false when it did not
   * within the timeout (its interval turned up, say).
   */
  public static boolean awaitRedundancyCycles(MiniDFSCluster cluster, int cycles, long timeoutMs)
      throws InterruptedException {
    org.apache.hadoop.hdfs.server.blockmanagement.BlockManager bm = cluster.getNamesystem().getBlockManager();
    Backoff poll = Backoff.doubling(50, 50, timeoutMs);
    for (int i = 0; i < cycles; i++) {
      long last = bm.getLastRedundancyMonitorTS();
      while (bm.getLastRedundancyMonitorTS() == last) {
        if (poll.expired()) {
          return false;
        }
        poll.pause();
      }
    }
    return true;
  }

  private static boolean quiet(org.apache.hadoop.hdfs.server.blockmanagement.BlockManager bm) {
    // Work handed to DataNodes leaves the low-redundancy queue for the pending one, and the NameNode counts its
    // targets as replicas: a unit lost while a group's entry is pending is not requeued until the entry lapses.
    return bm.getLowRedundancyBlocks() + bm.getLowRedundancyBlocksCount() + bm.getExcessBlocksCount()
        + bm.getPendingDeletionBlocksCount() + bm.getPendingReconstructionBlocksCount() == 0;
  }
}
