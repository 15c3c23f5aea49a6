package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.coder.StripedCodec;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.datanode.RepairMetrics;
import org.wideec.datanode.WideEcDataNodePlugin;
import org.wideec.minicluster.MiniClusters;
import org.wideec.minicluster.StripedGroups;
import org.wideec.placement.hdfs.WideEcNameNodeMetrics;
import org.wideec.repair.RackLinkLoad;

/**
 * A dead rack's, then a dead DataNode's, units of Azure-LRC(12,2,2) block groups rebuilt on the NameNode's orders as
 * its full-node recovery plan shapes them, on a racked cluster (7 racks of 3 DataNodes, 64 KiB cells): each
 * rack-aggregated chain visits its racks in the order the plan chose, so the slice bytes the DataNodes sent across
 * each rack link (their per-destination counters) are exactly the bytes the plan put there; and a group that lost
 * units of one local group with its rack has them rebuilt by one joint decode, the DataNodes reading what it plans. The second decode that checks
 * a unit nobody holds a CRC32C of is off here: its sampled slices are no part of the plan. Every byte reads back and
 * every unit on disk is what the code computes. The tests share the cluster and run in this order.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DeadNodeRecoveryShapeClusterTest {
  private static final int RACKS = 7;
  private static final int PER_RACK = 3;
  private static final int CELL = 64 * 1024;
  private static final int K = 12;
  private static final int GROUPS = 14;

  private MiniDFSCluster cluster;
  private DistributedFileSystem fs;
  private ErasureCodingPolicy lrc;
  private final Map<Path, byte[]> files = new TreeMap<>();
  /** Every DataNode's worker metrics and rack, stopped ones included. */
  private final Map<String, RepairMetrics> workers = new HashMap<>();
  private final Map<String, String> rackOf = new HashMap<>();

  @BeforeAll
  void start(@TempDir java.nio.file.Path dir) throws Exception {
    Configuration base = MiniClusters.withWideEcRepair(MiniClusters.withWideEcPlacement(new Configuration()));
    base.setLong("wide-ec.archive.repair.interval.ms", 300);
    base.setLong("wide-ec.archive.repair.backoff.ms", 2000);
    base.setLong("wide-ec.archive.repair.backoff.max.ms", 4000);
    base.setBoolean("dfs.datanode.ec.reconstruction.validation", false);
    cluster = MiniClusters.start(base, dir.toFile(), RACKS, PER_RACK, CELL);
    fs = cluster.getFileSystem();
    lrc = WideEcPolicies.addAndEnable(fs, WideEcPolicies.policy("azure-lrc-l2", K, 4, CELL));
    Path d = new Path("/lrc");
    fs.mkdirs(d);
    fs.setErasureCodingPolicy(d, lrc.getName());
    Random r = new Random(27);
    for (int i = 0; i < GROUPS; i++) {
      byte[] data = new byte[K * CELL]; // one full group each: every unit one cell long
      r.nextBytes(data);
      Path p = new Path(d, "f" + i);
      try (FSDataOutputStream o = fs.create(p)) {
        o.write(data);
      }
      files.put(p, data);
    }
    StripedGroups.awaitSettled(cluster, fs, lrc, files.keySet(), 120_000);
    for (DataNode dn : cluster.getDataNodes()) {
      String node = dn.getDatanodeId().getXferAddr();
      workers.put(node, WideEcDataNodePlugin.running(dn.getXferPort()).metrics());
      rackOf.put(node, cluster.getNamesystem().getBlockManager().getDatanodeManager().getDatanode(dn.getDatanodeId())
          .getNetworkLocation());
    }
    MiniClusters.awaitQuiet(cluster, 60_000);
  }

  @AfterAll
  void stop() {
    if (cluster != null) {
      cluster.shutdown();
    }
  }

  private static WideEcNameNodeMetrics metrics() {
    return DeadUnitDrills.metrics();
  }

  private void kill(Set<String> nodes) throws IOException {
    DeadUnitDrills.kill(cluster, nodes);
  }

  private static long[] orderCounts() {
    return DeadUnitDrills.orderCounts();
  }

  private static void awaitOrdersAccounted(long[] before, int units) {
    DeadUnitDrills.awaitOrdersAccounted(before, units);
  }

  private void awaitEveryUnitBack(String what) {
    DeadUnitDrills.awaitEveryUnitBack(what, fs, lrc, files.keySet());
  }

  private void everyByteReadsBack() throws Exception {
    DeadUnitDrills.everyByteReadsBack(cluster, fs, lrc, StripedCodec.AZURE_LRC_L2.codeFor(K, 4), files);
  }

  @Test
  @Order(2)
  void aDeadNodesUnitsAreRebuiltAlongThePlannedChainsAndEachRackLinkCarriesExactlyThePlannedBytes() throws Exception {
    String node = busiest();
    int units = unitsOn(Set.of(node));
    long rebuiltBefore = metrics().lostUnitsRebuilt();
    long reorderedBefore = metrics().lostUnitChainsReordered();
    Map<String, Long> plannedBefore = metrics().lostUnitRackLinkBytesPlanned();
    Map<String, Long> sentBefore = sentByRackLink();

    long[] ordersBefore = orderCounts();
    kill(Set.of(node));
    awaitEveryUnitBack("every unit " + node + " held back on a live DataNode");
    awaitOrdersAccounted(ordersBefore, units);

    assertEquals(units, metrics().lostUnitsRebuilt() - rebuiltBefore, "every unit on " + node
        + " rebuilt on the NameNode's order");
    assertEquals(0, metrics().lostUnitsLeftToHdfs(), "none left to HDFS");
    assertTrue(metrics().lostUnitChainsReordered() - reorderedBefore >= 1, "the plan has some chain visit its racks"
        + " out of name order, so this test tells the planned chains from the worker's default");
    Map<String, Long> planned = minus(metrics().lostUnitRackLinkBytesPlanned(), plannedBefore);
    assertTrue(!planned.isEmpty(), "the rebuilds cross racks");
    assertEquals(planned, minus(sentByRackLink(), sentBefore), "the DataNodes sent across each rack link (up: leaving"
        + " the rack, down: entering it) exactly the bytes of the plan's chains");
    everyByteReadsBack();
  }

  @Test
  @Order(1)
  void aDeadRacksGroupsThatLostUnitsOfOneLocalGroupDecodeThemJointlyAndReadExactlyWhatThePlanReads() throws Exception {
    String rack = rackWithTwoUnitsOfOneLocalGroup();
    Set<String> nodes = new TreeSet<>();
    for (DataNode dn : cluster.getDataNodes()) {
      String node = dn.getDatanodeId().getXferAddr();
      if (rackOf.get(node).equals(rack)) {
        nodes.add(node);
      }
    }
    int units = unitsOn(nodes);
    long rebuiltBefore = metrics().lostUnitsRebuilt();
    long bytesBefore = metrics().lostUnitBytesRebuilt();
    long jointBefore = metrics().lostUnitJointDecodes();
    long jointUnitsBefore = metrics().lostUnitsDecodedJointly();
    long helperBytesBefore = metrics().lostUnitHelperBytesPlanned();
    long readBefore = sum(RepairMetrics::bytesReadLocally);
    long repairsBefore = sum(RepairMetrics::succeeded);

    long[] ordersBefore = orderCounts();
    kill(nodes);
    awaitEveryUnitBack("every unit rack " + rack + " held back on a live DataNode");
    awaitOrdersAccounted(ordersBefore, units);

    long rebuilt = metrics().lostUnitsRebuilt() - rebuiltBefore;
    long jointOrders = metrics().lostUnitJointDecodes() - jointBefore;
    long jointUnits = metrics().lostUnitsDecodedJointly() - jointUnitsBefore;
    assertEquals(units, rebuilt, "every unit in " + rack + " rebuilt on the NameNode's order (left to HDFS "
        + metrics().lostUnitsLeftToHdfs() + ", failures " + metrics().lostUnitRebuildFailures() + ")");
    assertEquals(0, metrics().lostUnitsLeftToHdfs(), "none left to HDFS");
    assertTrue(jointOrders >= 1 && jointUnits >= 2 * jointOrders, "some group's two lost units of one local group"
        + " decoded by one order: " + jointOrders + " joint orders of " + jointUnits + " units");
    assertEquals(rebuilt - jointUnits + jointOrders, sum(RepairMetrics::succeeded) - repairsBefore,
        "one repair per order: the units of a joint order by one decode");
    // Each order reads what its plan says (a joint decode one input set for all its units; a rack summing its inputs
    // reads them once per output), and each stored unit is read back once on its target to confirm it.
    assertEquals(metrics().lostUnitHelperBytesPlanned() - helperBytesBefore
        + (metrics().lostUnitBytesRebuilt() - bytesBefore), sum(RepairMetrics::bytesReadLocally) - readBefore,
        "the DataNodes read what the plan's repairs read, and each stored unit back");
    everyByteReadsBack();
  }

  /** The live DataNode holding the most units. */
  private String busiest() throws IOException {
    Map<String, Integer> n = new TreeMap<>();
    for (Path p : files.keySet()) {
      for (LocatedStripedBlock g : StripedGroups.groups(fs, p)) {
        for (DatanodeInfo d : g.getLocations()) {
          n.merge(d.getXferAddr(), 1, Integer::sum);
        }
      }
    }
    return n.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
  }

  private int unitsOn(Set<String> nodes) throws IOException {
    int n = 0;
    for (Path p : files.keySet()) {
      for (LocatedStripedBlock g : StripedGroups.groups(fs, p)) {
        for (DatanodeInfo d : g.getLocations()) {
          n += nodes.contains(d.getXferAddr()) ? 1 : 0;
        }
      }
    }
    return n;
  }

  /**
   * Of the racks whose every group keeps a rack of its plan to go back to (a rack holding none of its units, with a
   * live DataNode per unit it loses: the NameNode's plan puts them there), the one holding the most groups' pairs of
   * units of one local group (data units 0-5 and local parity 14, data units 6-11 and 15): each such group's units
   * there need a global decode once the rack is lost.
   */
  private String rackWithTwoUnitsOfOneLocalGroup() throws IOException {
    Map<String, Integer> live = new TreeMap<>();
    cluster.getDataNodes().forEach(dn -> live.merge(rackOf.get(dn.getDatanodeId().getXferAddr()), 1, Integer::sum));
    Map<String, Integer> pairs = new TreeMap<>();
    live.keySet().forEach(r -> pairs.put(r, 0));
    for (Path p : files.keySet()) {
      for (LocatedStripedBlock g : StripedGroups.groups(fs, p)) {
        Map<String, Integer> perRackAndLocalGroup = new HashMap<>();
        Map<String, Integer> perRack = new HashMap<>();
        for (int i = 0; i < g.getLocations().length; i++) {
          int u = g.getBlockIndices()[i];
          String rack = g.getLocations()[i].getNetworkLocation();
          perRack.merge(rack, 1, Integer::sum);
          int local = u < K ? u / 6 : u >= K + 2 ? u - K - 2 : -1;
          if (local >= 0) {
            perRackAndLocalGroup.merge(rack + " " + local, 1, Integer::sum);
          }
        }
        for (String r : live.keySet()) {
          int lost = perRack.getOrDefault(r, 0);
          boolean room = lost == 0 || live.entrySet().stream()
              .anyMatch(e -> !perRack.containsKey(e.getKey()) && e.getValue() >= lost);
          if (!room) {
            pairs.remove(r);
          }
        }
        perRackAndLocalGroup.forEach((k, n) -> pairs.computeIfPresent(k.split(" ")[0], (r, c) -> c + (n >= 2 ? 1 : 0)));
      }
    }
    String rack = pairs.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(null);
    assertTrue(rack != null && pairs.get(rack) >= 1, "some rack whose groups have room elsewhere holds two units of"
        + " one local group of some group: " + pairs);
    return rack;
  }

  /**
   * Slice bytes every DataNode (stopped ones included) sent across rack links so far, by link: "up R" leaving rack R,
   * "down R" entering it. Only DataNodes' racks: an order's progress frames to the NameNode are no repair traffic.
   */
  private Map<String, Long> sentByRackLink() {
    Set<String> racks = new TreeSet<>(rackOf.values());
    RackLinkLoad out = new RackLinkLoad(RackLinkLoad.Links.FULL_DUPLEX);
    workers.forEach((node, m) -> m.crossRackBytesByDestination().forEach((to, bytes) -> {
      if (racks.contains(to)) {
        out.addTransfer(rackOf.get(node), to, bytes);
      }
    }));
    return new TreeMap<>(out.bytes());
  }

  private static Map<String, Long> minus(Map<String, Long> after, Map<String, Long> before) {
    Map<String, Long> out = new TreeMap<>();
    after.forEach((link, n) -> {
      long d = n - before.getOrDefault(link, 0L);
      if (d != 0) {
        out.put(link, d);
      }
    });
    return out;
  }

  private long sum(java.util.function.ToLongFunction<RepairMetrics> f) {
    return workers.values().stream().mapToLong(f).sum();
  }
}
