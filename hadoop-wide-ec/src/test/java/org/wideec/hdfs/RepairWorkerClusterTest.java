package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.metrics.DataNodeMetrics;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wideec.code.LinearCode;
import org.wideec.coder.StripedCodec;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.datanode.RepairMetrics;
import org.wideec.datanode.WideEcDataNodePlugin;
import org.wideec.demo.MiniClusters;
import org.wideec.demo.StripedGroups;
import org.wideec.repair.LinkWeights;
import org.wideec.repair.RepairGraph;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.SingleUnitRepairPlanner;
import org.wideec.repair.UnitLocation;
import org.wideec.transport.Frame;
import org.wideec.transport.TransportFaultInjector;

/**
 * The DataNode repair worker in a real cluster with racks: the NameNode's reconstruction tasks for our codec
 * are run by our worker (not HDFS's reconstructor), with exactly the cross-rack traffic the plan predicts, and
 * every byte reads back, also after the code's remaining tolerance of DataNodes is stopped.
 */
class RepairWorkerClusterTest {
  static final int CELL = 64 * 1024;
  static final long BLOCK = 4L * CELL;
  static final int RACKS = 8;
  static final int PER_RACK = 3;
  static MiniDFSCluster cluster;
  static DistributedFileSystem fs;
  static ErasureCodingPolicy policy;
  static LinearCode code;
  static final Map<Path, byte[]> files = new HashMap<>();

  @BeforeAll
  static void start() throws Exception {
    File dir = Files.createTempDirectory("wideec-repair").toFile();
    Configuration conf = MiniClusters.withWideEcRepair(MiniClusters.withWideEcPlacement(new Configuration()));
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
    MiniClusters.awaitQuiet(cluster, 60_000);
    for (DataNode dn : cluster.getDataNodes()) {
      assertTrue(WideEcDataNodePlugin.running(dn.getXferPort()).tookOverReconstruction(), "takeover installed");
    }
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.shutdown();
    }
  }

  @AfterEach
  void noFaults() {
    TransportFaultInjector.set(null);
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
    MiniClusters.awaitQuiet(cluster, 60_000);
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
    DatanodeInfo info = infos.get(victim);
    DataNode dn = dnAt(info);
    cluster.stopDataNode(cluster.getDataNodes().indexOf(dn));
    cluster.setDataNodeDead(dn.getDatanodeId());
    for (Path p : files.keySet()) {
      StripedGroups.awaitComplete(fs, p, policy, 120_000);
    }
    return info;
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

  @Test
  void ourWorkerRebuildsLostUnitsWithThePlannedCrossRackTrafficAndNothingIsLost() throws Exception {
    long stockBefore = stockReconstructionTasks();
    long crossBefore = sum(RepairMetrics::bytesSentCrossRack);
    Map<String, Map<Integer, DatanodeInfo>> before = layout();
    DatanodeInfo lost = loseBusiestNode();
    Map<String, Map<Integer, DatanodeInfo>> after = layout();

    // Predict the cross-rack bytes from the plan: each lost unit, rebuilt by the rack-aggregated chain with
    // its new location as requestor, sends (racks its helpers span beyond the requestor's) x unit length.
    long expected = 0;
    int rebuilt = 0;
    for (Map.Entry<String, Map<Integer, DatanodeInfo>> g : before.entrySet()) {
      long groupBytes = Long.parseLong(g.getKey().substring(g.getKey().indexOf('@') + 1));
      for (Map.Entry<Integer, DatanodeInfo> u : g.getValue().entrySet()) {
        if (!u.getValue().getXferAddr().equals(lost.getXferAddr())) {
          continue;
        }
        Map<Integer, UnitLocation> survivors = new HashMap<>();
        g.getValue().forEach((i, d) -> {
          if (i != u.getKey().intValue()) {
            survivors.put(i, new UnitLocation(i, d.getXferAddr(), d.getNetworkLocation()));
          }
        });
        java.util.Set<Integer> zeros = new java.util.HashSet<>();
        for (int i = 0; i < code.k(); i++) {
          if (StripedBlockUtil.getInternalBlockLength(groupBytes, CELL, code.k(), i) == 0) {
            zeros.add(i);
            survivors.put(i, new UnitLocation(i, "(zero unit)", "-"));
          }
        }
        DatanodeInfo target = after.get(g.getKey()).get(u.getKey());
        RepairGraph plan = SingleUnitRepairPlanner.plan(RepairScheme.RACK_AGGREGATED, code, u.getKey(), survivors,
            target.getXferAddr(), target.getNetworkLocation(), LinkWeights.UNIFORM,
            java.util.Comparator.comparing((Integer i) -> !zeros.contains(i)).thenComparing(i -> i));
        long len = StripedBlockUtil.getInternalBlockLength(groupBytes, CELL, code.k(), u.getKey());
        for (var step : plan.steps()) {
          if (zeros.contains(step.helper().unit())) {
            continue;
          }
          String to = step.next() == -1 ? target.getNetworkLocation() : plan.steps().get(step.next()).helper().rack();
          expected += step.helper().rack().equals(to) ? 0 : len;
        }
        rebuilt++;
      }
    }
    assertTrue(rebuilt >= 2, "the lost node held units of several groups");
    assertEquals(rebuilt, sum(RepairMetrics::succeeded), "each lost unit rebuilt by our worker");
    assertEquals(rebuilt, sum(RepairMetrics::tasksTakenOver));
    assertEquals(stockBefore, stockReconstructionTasks(), "HDFS's reconstructor ran no task");
    assertEquals(expected, sum(RepairMetrics::bytesSentCrossRack) - crossBefore, "cross-rack bytes as planned");
    assertTrue(sum(m -> m.repairs(RepairScheme.RACK_AGGREGATED)) >= rebuilt);
    everyByteReadsBack();

    // A corrupt slice on the wire: the repair restarts without its sender and still stores the right bytes.
    AtomicReference<ByteBuf> marked = new AtomicReference<>();
    AtomicBoolean corrupted = new AtomicBoolean();
    TransportFaultInjector.set(new TransportFaultInjector() {
      @Override
      public void beforeSend(String node, long repairId, int slice, ByteBuf payload) {
        if (slice == 1 && payload.readableBytes() > 8 && !corrupted.getAndSet(true)) {
          marked.set(payload);
        }
      }

      @Override
      public void afterEncode(Frame frame, ByteBuf out, int offset, int length) {
        if (frame.payload() == marked.get()) {
          out.setByte(offset + 3, out.getByte(offset + 3) ^ 1);
          marked.set(null);
        }
      }
    });
    long retriesBefore = sum(RepairMetrics::retries);
    loseBusiestNode();
    assertTrue(corrupted.get());
    assertTrue(sum(RepairMetrics::retries) > retriesBefore, "the corrupt slice forced a restart");
    assertEquals(stockBefore, stockReconstructionTasks());
    TransportFaultInjector.set(null);
    everyByteReadsBack();

    // After the repairs the groups are whole again: stop as many DataNodes as HDFS's client decodes on its
    // own (g; it reads the lowest-index parities, so an LRC's g + 1st loss is not always served, DESIGN §2),
    // all in one rack, and read everything.
    int tolerance = code.guaranteedTolerance() - 1;
    for (int i = 0; i < tolerance; i++) {
      cluster.stopDataNode(0);
    }
    for (Map.Entry<Path, byte[]> e : files.entrySet()) {
      byte[] back = new byte[e.getValue().length];
      try (FSDataInputStream in = fs.open(e.getKey())) {
        IOUtils.readFully(in, back, 0, back.length);
      }
      assertArrayEquals(e.getValue(), back, "degraded read of " + e.getKey());
    }
  }
}
