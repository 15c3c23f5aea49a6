package org.wideec.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.datanode.RepairMetrics;
import org.wideec.minicluster.Eventually;
import org.wideec.placement.StripedPlacement;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;
import org.wideec.transport.SliceTransport;
import org.wideec.transport.TrafficCounters;
import org.wideec.transport.hdfs.TransportConfReader;

/**
 * The repair a degraded read is timed beside is the one a DataNode's worker runs: background work at every hop. Its
 * helpers then grant it the configured window of slices, where a user's stream gets up to
 * {@link org.wideec.transport.SliceTransport#FOREGROUND_WINDOW_BYTES} a hop; an unmarked load kept that much queued on
 * every link the healthy read beside it crossed. And the reads timed beside it read a lost unit, by the path their
 * FileSystem's own counters name. Counted by the DataNodes' and the FileSystems' own metrics; nothing here is timed.
 */
class DegradedReadDuringRepairBenchTest {
  private static final int SLICE = 64 << 10;

  @TempDir
  Path dir;

  @Test
  void everySliceTheRepairLoadSendsIsBackgroundWorkAtEveryHelper() throws Exception {
    PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    MiniDFSCluster cluster = RepairBench.start(new Configuration(), out, dir.toFile(), StripedPlacement.AUTO,
        FullNodeSpreadBench.RACKS, FullNodeSpreadBench.PER_RACK, SLICE, false, 1 << 20);
    try {
      RepairBench.Stripe st = RepairBench.write(out, cluster, cluster.getFileSystem(), RepairBench.LRC, 10, 4,
          "/bench/lrc10", 1 << 20);
      long[] before = sent(cluster);
      RepeatedRepairs load = DegradedReadDuringRepairBench.backgroundRepair(cluster, st, SLICE);
      load.start();
      int repairs;
      try {
        // A repair's hops each send at most one unit (1 MiB) and it has fewer than 14 helpers: 16 MiB is one at least.
        Eventually.await("the repair load to send 16 MiB", Duration.ofSeconds(120),
            () -> sent(cluster)[0] + sent(cluster)[1] - before[0] - before[1] >= 16L << 20);
      } finally {
        repairs = load.stop();
      }
      long[] after = sent(cluster);
      assertTrue(repairs >= 1, "repairs of the load completed: " + repairs);
      assertEquals(0, after[0] - before[0], "no slice of the load went out as a user's stream");
      assertTrue(after[1] - before[1] >= 16L << 20, "every slice went out as background work: "
          + (after[1] - before[1]) + " bytes");
    } finally {
      cluster.shutdown();
    }
  }

  /**
   * The reads timed beside the repair read a lost unit: its DataNode stopped and nothing rebuilding it (the cluster
   * runs without the NameNode's lost-unit orders, which rebuilt it at once and left the reads a healthy unit, 2 ms
   * each), so every read of ours and of the chain-only FileSystem took the degraded path, as their own counters say.
   * The links are shaped fast: this checks which path ran, not how long it took.
   */
  @Test
  void everyReadBesideTheRepairTakesTheDegradedPathAndNothingRebuildsTheUnit() throws Exception {
    PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    long block = 2 << 20; // two cells per internal block: the reads take a full stripe's cells
    MiniDFSCluster cluster = RepairBench.start(DegradedReadBench.withLostUnitsKept(new Configuration()), out,
        dir.toFile(), StripedPlacement.AUTO, FullNodeSpreadBench.RACKS, FullNodeSpreadBench.PER_RACK, SLICE, true, block);
    ExecutorService idle = Executors.newSingleThreadExecutor();
    try {
      RepairBench.Stripe st = RepairBench.write(out, cluster, cluster.getFileSystem(), RepairBench.LRC, 10, 4,
          "/bench/lrc10", block);
      long rebuiltBefore = WideEcNameNodePlugin.metrics().lostUnitsRebuilt();
      DegradedReadBench.Lost lost = DegradedReadBench.Lost.of(cluster, cluster.getFileSystem(), st);
      RepairBench.Settings fast = new RepairBench.Settings(block, 200_000_000L, 10, List.of(SLICE), 0, 0, 0, false,
          true);
      Map<String, Object> m;
      try (SliceTransport client = new SliceTransport(TransportConfReader.forClient(lost.clientConf()), "test client",
          TrafficCounters.NONE, idle)) {
        m = new DegradedReadDuringRepairBench(new ReadsDuringRepairs(out, fast)).run(cluster, st, lost.clientConf(),
            lost.cells(client, EmbeddedGroups.resolver(cluster, st.requestor())));
      }
      Map<?, ?> paths = (Map<?, ?>) m.get("paths");
      assertEquals((long) DegradedReadDuringRepairBench.READS, paths.get("degradedReads"),
          "every read of ours was degraded: " + m);
      assertEquals((long) DegradedReadDuringRepairBench.READS, ((Map<?, ?>) m.get("chainOnlyTiming")).get("chains"),
          "every chain-only read was served by a chain: " + m);
      assertTrue((Integer) m.get("repairsDuringReads") >= 1, "the repair ran beside the reads: " + m);
      assertEquals(rebuiltBefore, WideEcNameNodePlugin.metrics().lostUnitsRebuilt(),
          "the NameNode ordered no rebuild of the lost unit");
    } finally {
      idle.shutdownNow();
      cluster.shutdown();
    }
  }

  /**
   * The lost unit's local group (Azure-LRC(10,2,2): five helpers, three units a rack) sits in two racks, neither the
   * client's, so our FileSystem reads the cell as a rack star: each rack's helpers add their parts inside it and send
   * one partial sum, exactly the cell, straight to the client. No partial sum crosses from one helper rack into the
   * other, as one chain's did (in from the first rack and out again, through the uplink the unit's rebuild also uses).
   */
  @Test
  void aLostCellReachesTheClientAsOnePartialSumFromEachOfItsTwoHelperRacks() throws Exception {
    PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    long block = 2 << 20;
    MiniDFSCluster cluster = RepairBench.start(DegradedReadBench.withLostUnitsKept(new Configuration()), out,
        dir.toFile(), StripedPlacement.AUTO, FullNodeSpreadBench.RACKS, FullNodeSpreadBench.PER_RACK, SLICE, true, block);
    try {
      RepairBench.Stripe st = RepairBench.write(out, cluster, cluster.getFileSystem(), RepairBench.LRC, 10, 4,
          "/bench/lrc10", block);
      DegradedReadBench.Lost lost = DegradedReadBench.Lost.of(cluster, cluster.getFileSystem(), st);
      java.util.Set<String> helperRacks = new java.util.TreeSet<>();
      int[] localGroup = org.wideec.coder.StripedCodec.AZURE_LRC_L2.codeFor(10, 4).repairPlan(st.lost()).helpers();
      assertEquals(5, localGroup.length, "unit 0's local group: data units 1..4 and its local parity");
      for (int h : localGroup) {
        helperRacks.add(org.wideec.minicluster.StripedGroups.location(lost.group(), h).getNetworkLocation());
      }
      assertEquals(2, helperRacks.size(), "the local group's helpers sit in two racks: " + helperRacks);
      Map<String, Map<String, Long>> before = sentAcrossRacks(cluster);
      // No hedge: this asserts which path served the read, and on a busy host direct decode could overtake a first
      // chain that is merely slow (slice-port look-ups, cold code).
      Configuration noHedge = new Configuration(lost.clientConf());
      noHedge.set("wide-ec.client.degraded-read.hedge.ms", "0");
      try (org.wideec.client.WideEcFileSystem ours = (org.wideec.client.WideEcFileSystem)
          org.apache.hadoop.fs.FileSystem.newInstance(cluster.getURI(), noHedge);
          org.apache.hadoop.fs.FSDataInputStream in = ours.open(st.file())) {
        byte[] got = new byte[lost.lostCell().length];
        in.readFully(lost.lostAt(), got);
        org.junit.jupiter.api.Assertions.assertArrayEquals(lost.lostCell(), got, "the lost cell, read degraded");
        org.wideec.client.ReadPathCounters c = ours.readPathCounters();
        assertEquals(List.of(1L, 1L, 0L, 0L, 5L), List.of(c.degradedReads(), c.pipelinedReads(), c.pipelinedFallbacks(),
            c.unitsFetched(), c.chainHops()), "one pipelined read of the five helpers, nothing fetched over HDFS: " + c);
      }
      Map<String, Map<String, Long>> sent = since(sentAcrossRacks(cluster), before);
      assertEquals(helperRacks, sent.keySet(), "only the helper racks sent across racks: " + sent);
      String clientRack = org.apache.hadoop.net.NetworkTopology.DEFAULT_RACK;
      for (String rack : helperRacks) {
        assertEquals(Map.of(clientRack, (long) lost.lostCell().length), sent.get(rack),
            "rack " + rack + " sent one partial sum, exactly the cell, to the client's rack and none to the other");
      }
    } finally {
      cluster.shutdown();
    }
  }

  /** Slice bytes each rack's DataNodes have sent to each other rack so far. */
  private static Map<String, Map<String, Long>> sentAcrossRacks(MiniDFSCluster cluster) {
    Map<String, Map<String, Long>> m = new java.util.TreeMap<>();
    for (DataNode dn : cluster.getDataNodes()) {
      if (!dn.isDatanodeUp()) {
        continue;
      }
      String rack = EmbeddedGroups.rackOf(cluster, dn);
      EmbeddedGroups.plugin(dn).metrics().crossRackBytesByDestination().forEach((to, bytes) ->
          m.computeIfAbsent(rack, r -> new java.util.TreeMap<>()).merge(to, bytes, Long::sum));
    }
    return m;
  }

  /** What was sent since {@code before}: only the rack pairs with bytes. */
  private static Map<String, Map<String, Long>> since(Map<String, Map<String, Long>> now,
      Map<String, Map<String, Long>> before) {
    Map<String, Map<String, Long>> d = new java.util.TreeMap<>();
    now.forEach((from, to) -> to.forEach((rack, bytes) -> {
      long was = before.getOrDefault(from, Map.of()).getOrDefault(rack, 0L);
      if (bytes > was) {
        d.computeIfAbsent(from, r -> new java.util.TreeMap<>()).put(rack, bytes - was);
      }
    }));
    return d;
  }

  /** Slice bytes the DataNodes sent for users and as background work, summed over the cluster. */
  private static long[] sent(MiniDFSCluster cluster) {
    long[] s = new long[2];
    for (DataNode dn : cluster.getDataNodes()) {
      RepairMetrics m = EmbeddedGroups.plugin(dn).metrics();
      s[0] += m.foregroundBytesSent();
      s[1] += m.backgroundBytesSent();
    }
    return s;
  }
}
