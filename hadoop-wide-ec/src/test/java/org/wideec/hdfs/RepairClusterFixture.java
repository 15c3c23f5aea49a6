package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.metrics.DataNodeMetrics;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;
import org.wideec.code.LinearCode;
import org.wideec.coder.StripedCodec;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.datanode.ReconstructionOutcome;
import org.wideec.datanode.ReconstructionOutcome.Route;
import org.wideec.datanode.RepairMetrics;
import org.wideec.datanode.WideEcDataNodePlugin;
import org.wideec.minicluster.Eventually;
import org.wideec.minicluster.MiniClusters;
import org.wideec.minicluster.StripedGroups;
import org.wideec.transport.TransportFaultInjector;

/**
 * A cluster with racks, our placement and repair worker, an Azure-LRC(12,2,2) policy and files under it, and
 * what the drills need to say which path finished each repair: every worker's outcomes and every DataNode's
 * count of tasks run by HDFS's reconstructor, kept for DataNodes stopped since.
 */
final class RepairClusterFixture {
  static final int CELL = 64 * 1024;
  static final long BLOCK = 4L * CELL;
  static final int RACKS = 8;
  static final int PER_RACK = 3;
  static MiniDFSCluster cluster;
  /** The cluster's directory, removed when it stops. */
  private static File dir;
  static DistributedFileSystem fs;
  static ErasureCodingPolicy policy;
  static LinearCode code;
  static final Map<Path, byte[]> files = new HashMap<>();
  /** By transfer address, for every DataNode started (stopped ones included). */
  static final Map<String, RepairMetrics> workers = new TreeMap<>();
  static final Map<String, DataNodeMetrics> datanodeMetrics = new TreeMap<>();
  /** Transfer addresses of the DataNodes a test stopped. */
  static final Set<String> stopped = ConcurrentHashMap.newKeySet();
  /** Whether the workers validate rebuilt units (the default for our codecs). */
  static boolean validating;

  /** A task's outcome and the DataNode whose worker recorded it. */
  record Recorded(String node, ReconstructionOutcome outcome) {}

  /** Where a drill starts from: where each unit is, and what each path had done so far. */
  record Before(Map<Long, Map<Integer, String>> units, Map<String, Integer> outcomes, long stockTasks) {}

  /** Starts the cluster (see {@link #startCluster}) and checks that every DataNode's worker took over. */
  static void start(Configuration extra) throws Exception {
    startCluster(extra);
    for (DataNode dn : cluster.getDataNodes()) {
      assertTrue(WideEcDataNodePlugin.running(dn.getXferPort()).tookOverReconstruction(), "takeover installed");
    }
  }

  /**
   * Starts the cluster, adds the policy and writes the files; {@code extra} adds settings (a stall timeout in
   * it wins over the fixture's 5 s).
   */
  static void startCluster(Configuration extra) throws Exception {
    files.clear();
    workers.clear();
    datanodeMetrics.clear();
    stopped.clear();
    dir = Files.createTempDirectory("wideec-repair").toFile();
    Configuration conf = MiniClusters.withWideEcRepair(MiniClusters.withWideEcPlacement(extra));
    // These tests are about the worker taking over HDFS's own reconstruction tasks: the path a lost unit takes when
    // the NameNode's rebuild orders are off or hand it back (LostUnitRebuildClusterTest covers the orders).
    conf.setIfUnset("wide-ec.lost-units.enabled", "false");
    validating = org.wideec.datanode.RepairWorkerConf.validation(conf).enabled();
    conf.setInt("wide-ec.transport.slice.bytes", 16 * 1024);
    if (extra.get("wide-ec.transport.stall.timeout.ms") == null) {
      conf.setInt("wide-ec.transport.stall.timeout.ms", 5000);
    }
    cluster = MiniClusters.start(conf, dir, RACKS, PER_RACK, BLOCK);
    for (DataNode dn : cluster.getDataNodes()) {
      String addr = dn.getDatanodeId().getXferAddr();
      datanodeMetrics.put(addr, dn.getMetrics());
      WideEcDataNodePlugin p = WideEcDataNodePlugin.running(dn.getXferPort());
      if (p != null && p.metrics() != null) {
        workers.put(addr, p.metrics());
      }
    }
    fs = cluster.getFileSystem();
    code = StripedCodec.AZURE_LRC_L2.codeFor(12, 4);
    policy = WideEcPolicies.addAndEnable(fs, WideEcPolicies.policy("azure-lrc-l2", 12, 4, CELL));
    Path d = new Path("/lrc");
    fs.mkdirs(d);
    fs.setErasureCodingPolicy(d, policy.getName());
    Random r = new Random(5);
    for (int size : new int[] {12 * (int) BLOCK + 3 * CELL + 17, 100_000}) { // two full-ish groups; one short group
      Path p = new Path(d, "f" + size);
      byte[] data = new byte[size];
      r.nextBytes(data);
      try (FSDataOutputStream o = fs.create(p)) {
        o.write(data);
      }
      files.put(p, data);
    }
    StripedGroups.awaitSettled(cluster, fs, policy, files.keySet(), 60_000);
  }

  static void stop() {
    TransportFaultInjector.set(null);
    if (cluster != null) {
      cluster.shutdown();
      cluster = null;
    }
    if (dir != null) {
      org.apache.hadoop.fs.FileUtil.fullyDelete(dir);
      dir = null;
    }
  }

  /** A counter summed over every worker of the cluster, stopped ones included. */
  static long sum(java.util.function.ToLongFunction<RepairMetrics> f) {
    return workers.values().stream().mapToLong(f).sum();
  }

  /** Tasks HDFS's reconstructor ran (finished or failed) on every DataNode, stopped ones included. */
  static long stockReconstructionTasks() throws ReflectiveOperationException {
    return datanodeCounter("ecReconstructionTasks");
  }

  static long stockFailedReconstructionTasks() throws ReflectiveOperationException {
    return datanodeCounter("ecFailedReconstructionTasks");
  }

  private static long datanodeCounter(String name) throws ReflectiveOperationException {
    Field f = DataNodeMetrics.class.getDeclaredField(name);
    f.setAccessible(true);
    long s = 0;
    for (DataNodeMetrics m : datanodeMetrics.values()) {
      s += ((MutableCounterLong) f.get(m)).value();
    }
    return s;
  }

  static Before before() throws Exception {
    StripedGroups.awaitSettled(cluster, fs, policy, files.keySet(), 60_000);
    Map<String, Integer> seen = new HashMap<>();
    workers.forEach((node, m) -> seen.put(node, m.recentOutcomes().size()));
    return new Before(unitLocations(), seen, stockReconstructionTasks());
  }

  /** The outcomes every worker recorded since {@code b}. */
  static List<Recorded> outcomesSince(Before b) {
    List<Recorded> out = new ArrayList<>();
    workers.forEach((node, m) -> {
      List<ReconstructionOutcome> all = m.recentOutcomes();
      for (ReconstructionOutcome o : all.subList(b.outcomes().getOrDefault(node, 0), all.size())) {
        out.add(new Recorded(node, o));
      }
    });
    return out;
  }

  /** Where every unit of every group is now: group id -> unit -> transfer address. */
  static Map<Long, Map<Integer, String>> unitLocations() throws IOException {
    Map<Long, Map<Integer, String>> m = new TreeMap<>();
    for (LocatedStripedBlock g : allGroups()) {
      Map<Integer, String> u = new TreeMap<>();
      unitsOf(g).forEach((i, d) -> u.put(i, d.getXferAddr()));
      m.put(g.getBlock().getBlockId(), u);
    }
    return m;
  }

  private static List<LocatedStripedBlock> allGroups() throws IOException {
    List<LocatedStripedBlock> all = new ArrayList<>();
    for (Path p : files.keySet()) {
      all.addAll(StripedGroups.groups(fs, p));
    }
    return all;
  }

  private static Map<Integer, DatanodeInfo> unitsOf(LocatedStripedBlock g) {
    Map<Integer, DatanodeInfo> u = new HashMap<>();
    for (int i = 0; i < g.getBlockIndices().length; i++) {
      u.put((int) g.getBlockIndices()[i], g.getLocations()[i]);
    }
    return u;
  }

  /**
   * Which path finished each repair since {@code b} (waits until the groups are whole again). A unit is lost
   * when the DataNode that held it was stopped; each lost unit was rebuilt by exactly one task of our worker
   * that stored it on a live DataNode. No task went to HDFS's reconstructor, on any DataNode, live or stopped;
   * a task was left unfinished only by a DataNode the test stopped; and our worker rebuilt nothing that was
   * not lost. (Units the NameNode moves between live DataNodes, for placement, are copies, not repairs.)
   *
   * @return the outcomes since {@code b}, for the test's own claims
   */
  static List<Recorded> assertEveryRebuiltUnitStoredByOurWorker(Before b) throws Exception {
    awaitAllComplete();
    StripedGroups.awaitSettled(cluster, fs, policy, files.keySet(), 60_000);
    // A target reports its replica to the NameNode before its requestor has confirmed it and recorded the
    // task's outcome: wait for every worker to finish its tasks.
    awaitWorkersIdle(60_000);
    Map<Long, Map<Integer, String>> after = unitLocations();
    List<Recorded> since = outcomesSince(b);
    assertEquals(b.stockTasks(), stockReconstructionTasks(), "HDFS's reconstructor ran no task on any DataNode: " + since);
    assertEquals(b.units().keySet(), after.keySet(), "the same block groups");
    int lost = 0;
    for (Map.Entry<Long, Map<Integer, String>> g : b.units().entrySet()) {
      assertEquals(g.getValue().keySet(), after.get(g.getKey()).keySet(), "group " + g.getKey() + " has every unit again");
      for (Map.Entry<Integer, String> u : g.getValue().entrySet()) {
        if (!stopped.contains(u.getValue())) {
          continue;
        }
        lost++;
        List<Recorded> by = since.stream().filter(r -> r.outcome().route() == Route.OUR_WORKER
            && r.outcome().blockGroupId() == g.getKey() && storesOnALiveNode(r.outcome(), u.getKey())).toList();
        assertEquals(1, by.size(), "unit " + u.getKey() + " of group " + g.getKey() + ", lost with " + u.getValue()
            + ", was rebuilt and stored by exactly one task of our worker; outcomes: " + since);
      }
    }
    assertTrue(lost > 0, "the drill lost units");
    long rebuilt = since.stream().filter(r -> r.outcome().route() == Route.OUR_WORKER)
        .mapToLong(r -> r.outcome().units().stream().filter(unit -> storesOnALiveNode(r.outcome(), unit)).count()).sum();
    assertEquals(lost, rebuilt, "our worker stored exactly the lost units on live DataNodes: " + since);
    // Unless a test turned dfs.datanode.ec.reconstruction.validation off, every stored repair was validated.
    assertEquals(validating ? sum(RepairMetrics::succeeded) : 0, sum(RepairMetrics::validations),
        "every repair validated before storing, when validation is on");
    assertEquals(0, sum(RepairMetrics::validationFailures));
    for (Recorded r : since) {
      if (r.outcome().route() == Route.HANDED_TO_STOCK) {
        fail("a task went to HDFS's reconstructor: " + r);
      }
      if (r.outcome().route() == Route.ABANDONED) {
        assertTrue(stopped.contains(r.node()), "only a DataNode being stopped leaves a task unfinished: " + r);
      }
    }
    return since;
  }

  private static void awaitWorkersIdle(long timeoutMs) {
    Eventually.await("every task of our workers with an outcome (tasks in progress)", Duration.ofMillis(timeoutMs),
        () -> sum(RepairMetrics::tasksInProgress), n -> n == 0);
  }

  /** Whether the task stored {@code unit} on a DataNode the test did not stop. */
  static boolean storesOnALiveNode(ReconstructionOutcome o, int unit) {
    int i = o.units().indexOf(unit);
    return i >= 0 && !stopped.contains(o.targets().get(i));
  }

  /** Stops the DataNode holding the most units, waits for the groups to be complete again. */
  static DatanodeInfo loseBusiestNode() throws Exception {
    DatanodeInfo info = busiestNode();
    kill(info);
    awaitAllComplete();
    return info;
  }

  static void awaitAllComplete() throws Exception {
    for (Path p : files.keySet()) {
      StripedGroups.awaitComplete(fs, p, policy, 120_000);
    }
  }

  /** Stops a DataNode and tells the NameNode at once (no heartbeat timeout to wait for). */
  static void kill(DatanodeInfo info) throws IOException {
    DataNode dn = dnAt(info);
    stopped.add(info.getXferAddr());
    cluster.stopDataNode(cluster.getDataNodes().indexOf(dn));
    cluster.setDataNodeDead(dn.getDatanodeId());
  }

  static DatanodeInfo busiestNode() throws Exception {
    StripedGroups.awaitSettled(cluster, fs, policy, files.keySet(), 60_000);
    Map<String, Integer> units = new HashMap<>();
    Map<String, DatanodeInfo> infos = new HashMap<>();
    for (Path p : files.keySet()) {
      for (LocatedStripedBlock g : StripedGroups.groups(fs, p)) {
        for (DatanodeInfo d : g.getLocations()) {
          units.merge(d.getXferAddr(), 1, Integer::sum);
          infos.put(d.getXferAddr(), d);
        }
      }
    }
    String victim = units.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
    return infos.get(victim);
  }

  static DataNode dnAt(DatanodeInfo info) {
    for (DataNode dn : cluster.getDataNodes()) {
      if (dn.getXferPort() == info.getXferPort()) {
        return dn;
      }
    }
    throw new IllegalStateException("no DataNode " + info);
  }

  static void everyByteReadsBack() throws IOException {
    for (Map.Entry<Path, byte[]> e : files.entrySet()) {
      assertTrue(StripedGroups.verifyEveryUnit(cluster, fs, e.getKey(), policy, code, e.getValue()) > 0);
      byte[] back = new byte[e.getValue().length];
      try (FSDataInputStream in = fs.open(e.getKey())) {
        IOUtils.readFully(in, back, 0, back.length);
      }
      assertArrayEquals(e.getValue(), back, e.getKey().toString());
    }
  }

  /** Where every unit of every group is now: group name -> unit -> location. */
  static Map<String, Map<Integer, DatanodeInfo>> layout() throws IOException {
    Map<String, Map<Integer, DatanodeInfo>> m = new HashMap<>();
    for (LocatedStripedBlock g : allGroups()) {
      m.put(g.getBlock().getBlockName() + "@" + g.getBlockSize(), unitsOf(g));
    }
    return m;
  }
}
