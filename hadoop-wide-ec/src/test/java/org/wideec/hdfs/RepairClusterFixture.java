package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
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
import org.wideec.datanode.RepairMetrics;
import org.wideec.datanode.WideEcDataNodePlugin;
import org.wideec.demo.MiniClusters;
import org.wideec.demo.StripedGroups;
import org.wideec.transport.TransportFaultInjector;

/** A cluster with racks, our placement and repair worker, an Azure-LRC(12,2,2) policy and files under it. */
final class RepairClusterFixture {
  static final int CELL = 64 * 1024;
  static final long BLOCK = 4L * CELL;
  static final int RACKS = 8;
  static final int PER_RACK = 3;
  static MiniDFSCluster cluster;
  static DistributedFileSystem fs;
  static ErasureCodingPolicy policy;
  static LinearCode code;
  static final Map<Path, byte[]> files = new HashMap<>();

  /** Starts the cluster, adds the policy and writes the files; {@code extra} adds settings. */
  static void start(Configuration extra) throws Exception {
    files.clear();
    File dir = Files.createTempDirectory("wideec-repair").toFile();
    Configuration conf = MiniClusters.withWideEcRepair(MiniClusters.withWideEcPlacement(extra));
    conf.setInt("wide-ec.transport.slice.bytes", 16 * 1024);
    conf.setInt("wide-ec.transport.stall.timeout.ms", 5000);
    cluster = MiniClusters.start(conf, dir, RACKS, PER_RACK, BLOCK);
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
    for (DataNode dn : cluster.getDataNodes()) {
      assertTrue(WideEcDataNodePlugin.running(dn.getXferPort()).tookOverReconstruction(), "takeover installed");
    }
  }

  static void stop() {
    TransportFaultInjector.set(null);
    if (cluster != null) {
      cluster.shutdown();
      cluster = null;
    }
  }

  static long sum(java.util.function.ToLongFunction<RepairMetrics> f) {
    long s = 0;
    for (DataNode dn : cluster.getDataNodes()) {
      WideEcDataNodePlugin p = WideEcDataNodePlugin.running(dn.getXferPort());
      if (p != null && p.metrics() != null) {
        s += f.applyAsLong(p.metrics());
      }
    }
    return s;
  }

  static long stockReconstructionTasks() throws ReflectiveOperationException {
    Field f = DataNodeMetrics.class.getDeclaredField("ecReconstructionTasks");
    f.setAccessible(true);
    long s = 0;
    for (DataNode dn : cluster.getDataNodes()) {
      s += ((MutableCounterLong) f.get(dn.getMetrics())).value();
    }
    return s;
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
    for (Path p : files.keySet()) {
      for (LocatedStripedBlock g : StripedGroups.groups(fs, p)) {
        Map<Integer, DatanodeInfo> u = new HashMap<>();
        for (int i = 0; i < g.getBlockIndices().length; i++) {
          u.put((int) g.getBlockIndices()[i], g.getLocations()[i]);
        }
        m.put(g.getBlock().getBlockName() + "@" + g.getBlockSize(), u);
      }
    }
    return m;
  }

}
