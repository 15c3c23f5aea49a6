package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.metrics.DataNodeMetrics;
import org.apache.hadoop.io.erasurecode.ECSchema;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.wideec.coder.StripedCodec;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.datanode.RepairMetrics;
import org.wideec.datanode.WideEcDataNodePlugin;
import org.wideec.minicluster.Eventually;
import org.wideec.minicluster.MiniClusters;
import org.wideec.minicluster.StripedGroups;
import org.wideec.placement.hdfs.WideEcNameNodeMetrics;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;
import org.wideec.transport.TransportFaultInjector;

/**
 * A DataNode dies on the racked test bed (6 racks x 3 DataNodes, 64 KiB cells), holding units of block groups of an
 * Azure-LRC(6,2,2) policy, of a stock RS(3,2) policy and archived blocks: the NameNode plugin orders our workers to
 * rebuild every lost unit of the LRC groups, and HDFS sends no reconstruction task for any of them (our worker takes
 * over every task HDFS sends for our codecs, and took none), while HDFS reconstructs the stock groups as always; every
 * byte reads back and every LRC unit is what the code computes. Then a node dies while every rebuild order fails: each
 * claim is handed back and HDFS reconstructs the units. The tests share the cluster and run in this order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LostUnitRebuildClusterTest extends ArchiveTestBed {
  private static final int CELL = 64 * 1024;
  private final Map<Path, byte[]> lrcFiles = new TreeMap<>();
  private final Map<Path, byte[]> stockFiles = new TreeMap<>();
  /** Every DataNode's worker and HDFS metrics, stopped ones included. */
  private final Map<String, RepairMetrics> workers = new HashMap<>();
  private final Map<String, DataNodeMetrics> datanodes = new HashMap<>();
  private ErasureCodingPolicy lrc;
  private ErasureCodingPolicy stock;

  @Override
  Configuration baseConf() {
    Configuration base = MiniClusters.withWideEcRepair(MiniClusters.withWideEcArchiveTrim(new Configuration(), 300));
    base.setLong("wide-ec.archive.repair.interval.ms", 300);
    base.setLong("wide-ec.archive.repair.backoff.ms", 2000);
    base.setLong("wide-ec.archive.repair.backoff.max.ms", 4000);
    return base;
  }

  @BeforeAll
  void writeEveryLayout() throws Exception {
    awaitTrimmerLease();
    lrc = WideEcPolicies.addAndEnable(fs, WideEcPolicies.policy("azure-lrc-l2", 6, 4, CELL));
    stock = WideEcPolicies.addAndEnable(fs, new ErasureCodingPolicy(new ECSchema("rs", 3, 2), CELL));
    Random r = new Random(26);
    write(new Path("/lrc"), lrc, 6, lrcFiles, r);
    write(new Path("/stock"), stock, 3, stockFiles, r);
    StripedGroups.awaitSettled(cluster, fs, lrc, lrcFiles.keySet(), 60_000);
    StripedGroups.awaitSettled(cluster, fs, stock, stockFiles.keySet(), 60_000);
    checks.write("/ar/a", 3 * BLOCK + 17);
    checks.write("/ar/b", 7 * BLOCK);
    archived("/ar");
    for (DataNode dn : cluster.getDataNodes()) {
      workers.put(dn.getDatanodeId().getXferAddr(), WideEcDataNodePlugin.running(dn.getXferPort()).metrics());
      datanodes.put(dn.getDatanodeId().getXferAddr(), dn.getMetrics());
    }
    MiniClusters.awaitQuiet(cluster, 60_000);
  }

  private void write(Path dir, ErasureCodingPolicy policy, int k, Map<Path, byte[]> into, Random r) throws IOException {
    fs.mkdirs(dir);
    fs.setErasureCodingPolicy(dir, policy.getName());
    for (int i = 0; i < 6; i++) {
      byte[] data = new byte[(int) (k * BLOCK) * (1 + i % 2) - 1000 * i]; // one or two groups, some short
      r.nextBytes(data);
      Path p = new Path(dir, "f" + i);
      try (FSDataOutputStream o = fs.create(p)) {
        o.write(data);
      }
      into.put(p, data);
    }
  }

  @AfterEach
  void noFaults() {
    TransportFaultInjector.set(null);
  }

  private static WideEcNameNodeMetrics metrics() {
    return WideEcNameNodePlugin.metrics();
  }

  /**
   * Units of the files' block groups on each live DataNode.
   */
  private Map<String, Integer> unitsPerNode(Map<Path, byte[]> files) throws IOException {
    Map<String, Integer> n = new TreeMap<>();
    for (Path p : files.keySet()) {
      for (LocatedStripedBlock g : StripedGroups.groups(fs, p)) {
        for (DatanodeInfo d : g.getLocations()) {
          n.merge(d.getXferAddr(), 1, Integer::sum);
        }
      }
    }
    return n;
  }

  /** The live DataNode holding the most units of LRC groups among those holding stock units too. */
  private String busiest() throws IOException {
    Map<String, Integer> ours = unitsPerNode(lrcFiles);
    Map<String, Integer> theirs = unitsPerNode(stockFiles);
    String best = null;
    for (String node : ours.keySet()) {
      if (theirs.getOrDefault(node, 0) > 0 && (best == null || ours.get(node) > ours.get(best))) {
        best = node;
      }
    }
    assertTrue(best != null, "some DataNode holds units of both policies: " + ours + " " + theirs);
    return best;
  }

  /** Kills the DataNode, and the NameNode declares it dead at once (as after its heartbeats stopped). */
  private void kill(String node) throws IOException {
    DataNode dn = datanode(node);
    var id = dn.getDatanodeId();
    assertTrue(cluster.stopDataNode(node) != null, node);
    cluster.setDataNodeDead(id);
  }

  /** Waits until every group of both policies has every unit again and every archived block a live replica. */
  private void awaitEveryUnitBack(String what) throws IOException {
    var manifest = manifestOf("/ar");
    Eventually.await(what, Duration.ofSeconds(180), () -> {
      List<String> missing = new ArrayList<>();
      for (var files : List.of(lrcFiles, stockFiles)) {
        for (Path p : files.keySet()) {
          ErasureCodingPolicy policy = files == lrcFiles ? lrc : stock;
          for (LocatedStripedBlock g : StripedGroups.groups(fs, p)) {
            if (!StripedGroups.missingUnits(g, policy).isEmpty()) {
              missing.add(g.getBlock() + " of " + p + " misses " + StripedGroups.missingUnits(g, policy));
            }
          }
        }
      }
      for (var s : manifest.stripes()) {
        for (int u : s.storedUnits()) {
          if (located(s.member(u)).getLocations().length == 0) {
            missing.add("archived stripe " + s.stripeId() + " unit " + u);
          }
        }
      }
      return missing.isEmpty() ? null : missing + "; rebuilt " + metrics().lostUnitsRebuilt() + ", failures "
          + metrics().lostUnitRebuildFailures();
    }, java.util.Objects::isNull);
  }

  /** Every file of every layout reads back as written, and every LRC unit on disk is what the code computes. */
  private void everyByteReadsBack() throws Exception {
    for (Path p : lrcFiles.keySet()) {
      assertArrayEquals(lrcFiles.get(p), read(p, lrcFiles), p.toString());
      int located = StripedGroups.groups(fs, p).stream().mapToInt(g -> g.getLocations().length).sum();
      assertEquals(located, StripedGroups.verifyEveryUnit(cluster, fs, p, lrc,
          StripedCodec.AZURE_LRC_L2.codeFor(6, 4), lrcFiles.get(p)), p.toString());
    }
    for (Path p : stockFiles.keySet()) {
      assertArrayEquals(stockFiles.get(p), read(p, stockFiles), p.toString());
    }
    checks.everyByteReadsBack();
  }

  @Test
  @Order(1)
  void everyLostUnitOfOurGroupsIsRebuiltByOurWorkersWhileHdfsReconstructsOnlyTheStockGroups() throws Exception {
    String node = busiest();
    int ourUnits = unitsPerNode(lrcFiles).get(node);
    int stockUnits = unitsPerNode(stockFiles).get(node);
    long[] ordersBefore = DeadUnitDrills.orderCounts();
    long takenOverBefore = sum(RepairMetrics::tasksTakenOver);
    long stockTasksBefore = stockTasks();

    kill(node);
    awaitEveryUnitBack("every unit " + node + " held back on a live DataNode");
    DeadUnitDrills.awaitOrdersAccounted(ordersBefore, ourUnits);

    assertEquals(ourUnits, metrics().lostUnitsRebuilt() - ordersBefore[0],
        "every unit of the LRC groups on " + node + " rebuilt on the NameNode's order");
    assertEquals(0, metrics().lostUnitsLeftToHdfs(), "none left to HDFS");
    assertEquals(takenOverBefore, sum(RepairMetrics::tasksTakenOver),
        "HDFS sent no reconstruction task for a group of our codecs (our worker takes over every such task)");
    assertTrue(stockTasks() - stockTasksBefore >= stockUnits, "HDFS's reconstructor rebuilt the " + stockUnits
        + " stock units: " + (stockTasks() - stockTasksBefore) + " tasks");
    everyByteReadsBack();
  }

  @Test
  @Order(2)
  void aLostUnitWhoseRebuildOrderFailsIsHandedBackAndHdfsReconstructsIt() throws Exception {
    String node = busiest();
    int ourUnits = unitsPerNode(lrcFiles).get(node);
    long rebuiltBefore = metrics().lostUnitsRebuilt();
    long failuresBefore = metrics().lostUnitRebuildFailures();
    long handedToStockBefore = sum(RepairMetrics::tasksHandedToStock);
    // No DataNode sends a slice: every rebuild order fails, and so does every task our worker takes over from HDFS,
    // which then hands it to HDFS's own reconstructor (reading through DataTransferProtocol).
    TransportFaultInjector.set(new TransportFaultInjector() {
      @Override
      public void beforeSend(String from, String to, long repairId, int slice, ByteBuf payload) throws IOException {
        throw new IOException("injected: " + from + " sends no slice");
      }
    });
    kill(node);
    Eventually.await("the LRC groups that lost units on " + node + " whole again", Duration.ofSeconds(180), () -> {
      for (Path p : lrcFiles.keySet()) {
        for (LocatedStripedBlock g : StripedGroups.groups(fs, p)) {
          if (!StripedGroups.missingUnits(g, lrc).isEmpty()) {
            return g.getBlock() + " misses " + StripedGroups.missingUnits(g, lrc) + "; failures "
                + (metrics().lostUnitRebuildFailures() - failuresBefore);
          }
        }
      }
      return null;
    }, java.util.Objects::isNull);
    TransportFaultInjector.set(null); // the archived blocks need our workers: their rebuild resumes after its back-off

    assertTrue(metrics().lostUnitRebuildFailures() - failuresBefore >= 1, "some rebuild order failed");
    assertEquals(rebuiltBefore, metrics().lostUnitsRebuilt(), "no order stored a unit");
    assertTrue(sum(RepairMetrics::tasksHandedToStock) - handedToStockBefore >= ourUnits,
        "each of the " + ourUnits + " units went back to HDFS, whose reconstructor rebuilt it: "
            + (sum(RepairMetrics::tasksHandedToStock) - handedToStockBefore) + " tasks handed to it");
    awaitEveryUnitBack("every unit " + node + " held back on a live DataNode");
    everyByteReadsBack();
  }

  private long sum(java.util.function.ToLongFunction<RepairMetrics> f) {
    return workers.values().stream().mapToLong(f).sum();
  }

  /** Tasks HDFS's own reconstructor ran on every DataNode, stopped ones included. */
  private long stockTasks() throws ReflectiveOperationException {
    Field f = DataNodeMetrics.class.getDeclaredField("ecReconstructionTasks");
    f.setAccessible(true);
    long s = 0;
    for (DataNodeMetrics m : datanodes.values()) {
      s += ((MutableCounterLong) f.get(m)).value();
    }
    return s;
  }

  private byte[] read(Path p, Map<Path, byte[]> files) throws Exception {
    byte[] back = new byte[files.get(p).length];
    try (FSDataInputStream in = fs.open(p)) {
      in.readFully(0, back);
    }
    return back;
  }
}
