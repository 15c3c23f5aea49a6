package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.PlacementKind;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.archive.encode.EncodePlanner;
import org.wideec.archive.encode.EncodeStripe;
import org.wideec.topology.Site;
import org.wideec.archive.hdfs.Archiver;
import org.wideec.archive.hdfs.ChainEncoder;
import org.wideec.archive.hdfs.ClientClassicEncoder;
import org.wideec.archive.hdfs.StripeEncoder;
import org.wideec.archive.hdfs.TrimProtocol;
import org.wideec.code.UnitRole;
import org.wideec.datanode.RepairMetrics;
import org.wideec.minicluster.MiniClusters;
import org.wideec.transport.TransportConf;
import org.wideec.transport.TransportFaultInjector;

/**
 * "Nothing lost in any crash" for the DataNodes that do the encoding (the archiver's own crashes are
 * {@link ArchiveCrashResumeClusterTest}'s). On a racked cluster (6 racks x 3 DataNodes, 64 KiB blocks, block tokens,
 * our NameNode trimmer and DataNode plugin), one stripe of azure-lrc:k=6,l=2,g=2 per case is archived while a DataNode
 * is stopped at a transition of its stripe:
 * <ul>
 *   <li>{@code chain}: the global tree's collector (the chain's last node, which writes its parities) and a data
 *       holder in the middle of that chain (at ENCODING and COMMITTED); at ENCODING the node dies mid-stream (a slice of its chain held until it
 *       is stopped), at PARITY_WRITTEN, VERIFIED, COMMITTED and TRIMMED right after the archiver records them
 *       (and the NameNode is told at once);</li>
 *   <li>{@code classic}: the archiver itself encodes (ClientClassicEncoder), so the DataNode doing the encoding work
 *       is the one its parity stream is written to: the first global parity's target, stopped when ENCODING is
 *       recorded (before the NameNode notices, so the write to it fails) and after COMMITTED is.</li>
 * </ul>
 * The node is restarted and {@code wide-ec archive} rerun; every stripe must end TRIMMED, its parity equal to an
 * independent encode, its parity directory holding exactly its stored units (nothing partial left behind), and every
 * byte of every file written must read back unchanged.
 *
 * <p>And the chain dry run is the cost paid: a file whose replicas all start in one rack is costed by
 * {@code archive --dry-run --encoder chain}; the archiver then moves the blocks onto the plan before the chain runs,
 * and the cross-rack bytes the DataNodes count (slice-port streams, minus the few replies to the archiver, plus
 * the parities a collector wrote to another rack) equal the printed prediction exactly.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EncodingNodeCrashClusterTest extends ArchiveTestBed {
  /** One full stripe of azure-lrc:k=6,l=2,g=2. */
  private static final long LENGTH = 6 * BLOCK;

  private final List<MiniDFSCluster.DataNodeProperties> stopped = new ArrayList<>();

  @Override
  Configuration baseConf() {
    Configuration c = MiniClusters.withWideEcRepair(MiniClusters.withWideEcArchiveTrim(
        MiniClusters.withQuickDataNodeHeartbeats(new Configuration()), 300));
    c.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    c.setLong(TrimProtocol.WAIT_KEY, 30_000);
    // A 64 KiB unit is four slices, so a chain node can die with its stream part sent.
    c.setInt(TransportConf.SLICE_BYTES, 16 * 1024);
    // The archive repair monitor stays out of the way: the case restarts the node instead of rebuilding its blocks.
    c.setLong("wide-ec.archive.repair.interval.ms", 3_600_000);
    // A read of a block whose only replica is on a stopped node fails at once instead of retrying for seconds.
    c.setInt("dfs.client.retry.window.base", 20);
    c.setInt(DFSConfigKeys.DFS_CLIENT_MAX_BLOCK_ACQUIRE_FAILURES_KEY, 1);
    // Each case waits for the trim and, after the restart, for the excess replicas to go (awaitQuiet holds over a
    // whole RedundancyMonitor cycle): cycles every 250 ms, deletions handed to every DataNode in each (not a third).
    c.set(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, "250ms");
    c.setFloat(DFSConfigKeys.DFS_NAMENODE_INVALIDATE_WORK_PCT_PER_ITERATION, 1.0f);
    return c;
  }

  @BeforeAll
  void awaitLease() throws Exception {
    awaitTrimmerLease();
  }

  @AfterEach
  void restartStopped() throws Exception {
    TransportFaultInjector.set(null);
    MiniClusters.restartAndReport(cluster, stopped, MiniClusters.Ports.SAME_IF_FREE);
  }

  /** Which DataNode of the stripe is stopped. */
  enum Victim {
    /** chain: the global tree's collector, the last node of its chain, which writes the global parities. */
    COLLECTOR,
    /** chain: the holder of a data unit in the middle of the global tree's chain. */
    MID_CHAIN,
    /** classic: the node the archiver's encoder streams the first global parity to. */
    PARITY_TARGET
  }

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    List<StripeState> states = List.of(StripeState.ENCODING, StripeState.PARITY_WRITTEN, StripeState.VERIFIED,
        StripeState.COMMITTED, StripeState.TRIMMED);
    // The chain's collector encodes and writes the global parities: it is stopped at every transition. A data holder
    // in mid-chain takes part in the encode and then holds a kept replica; verifying reads the parity only, and
    // PARITY_WRITTEN, VERIFIED and TRIMMED take it down the paths COMMITTED and the collector's cases already take.
    // The classic encoder runs in the archiver, so its parity target is stopped mid-write (ENCODING) and once its
    // parity is committed (the trim finds that parity without a live replica); its other transitions repeat the
    // collector's, whose parity sits on it just the same. Nine cases keep the class near two and a half minutes.
    for (StripeState s : states) {
      out.add(Arguments.of("chain", Victim.COLLECTOR, s));
      if (s == StripeState.ENCODING || s == StripeState.COMMITTED) {
        out.add(Arguments.of("chain", Victim.MID_CHAIN, s));
        out.add(Arguments.of("classic", Victim.PARITY_TARGET, s));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} encoder, {1} stopped at {2}")
  @MethodSource("cases")
  @Order(2)
  void anEncodingNodeStoppedAtATransitionLosesNothingAndTheRerunTrims(String encoderName, Victim victim,
      StripeState at) throws Exception {
    String path = "/kill/" + encoderName + "-" + victim.name().toLowerCase() + "-" + at.name().toLowerCase();
    checks.write(path, LENGTH);
    AtomicReference<String> node = new AtomicReference<>();
    AtomicReference<String> stoppedAt = new AtomicReference<>();
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch killed = new CountDownLatch(1);
    StripeEncoder encoder = encoderName.equals("chain") ? ChainEncoder.from(fs) : ClientClassicEncoder.from(fs);
    Archiver.Hook hook = (manifest, stripe) -> {
      if (stripe == null) {
        node.set(victimOf(manifest.stripe(0), victim, encoder)); // the PLANNED record: before any block moves
        return;
      }
      if (stripe.state() != at || stoppedAt.get() != null) {
        return;
      }
      if (at == StripeState.ENCODING && victim != Victim.PARITY_TARGET) {
        holdMidStream(node.get(), victim, holding, killed); // stopped by the test thread while its slice waits
        return;
      }
      stoppedAt.set("after " + at + " was recorded");
      // The classic encoder is about to write to it: stopped before the NameNode notices, so the write fails.
      stop(node.get(), at != StripeState.ENCODING);
    };
    ExecutorService bg = Executors.newSingleThreadExecutor();
    String failure = null;
    List<String> parityOffPlan = new java.util.concurrent.CopyOnWriteArrayList<>();
    try {
      Archiver archiver = new Archiver(fs, store, encoder, hook, Archiver.Listener.NONE);
      Future<String> run = bg.submit(() -> {
        try {
          Archiver.Result r = archiver.archive(new Path(path), CODE, PlacementKind.CL);
          parityOffPlan.addAll(r.offPlan());
          Archiver.TrimResult t = archiver.trim(new Path(path), Archiver.TrimProgress.NONE);
          return t.clean() ? null : "trim: " + t.offPlan() + t.notTrimmed() + r.encodedOffPlan();
        } catch (IOException e) {
          return e.toString();
        }
      });
      if (at == StripeState.ENCODING && victim != Victim.PARITY_TARGET) {
        assertTrue(holding.await(60, TimeUnit.SECONDS), "no chain slice of " + node.get() + " was held");
        stoppedAt.set("mid-stream during the encode");
        stop(node.get(), true);
        killed.countDown();
      }
      failure = run.get(180, TimeUnit.SECONDS);
    } finally {
      killed.countDown();
      bg.shutdownNow();
      TransportFaultInjector.set(null);
      if (encoder instanceof java.io.Closeable c) {
        c.close();
      }
    }
    assertNotNull(stoppedAt.get(), "the victim was stopped");
    StripeManifest crashed = manifestOf(path);
    System.out.printf("%s: %s stopped %s; the run %s; parity off plan %s; stripe left %s%n", path, node.get(),
        stoppedAt.get(), failure == null ? "finished clean" : "failed: " + failure, parityOffPlan,
        crashed.stripe(0).state());
    if (at == StripeState.ENCODING && victim == Victim.PARITY_TARGET) {
      // The stock output stream recovers: it abandons the block on the dead node and writes the parity elsewhere,
      // which the encoder reports off plan (or the write fails and the stripe stays ENCODING).
      assertTrue(failure != null ? crashed.stripe(0).state() == StripeState.ENCODING
          : parityOffPlan.size() == 1 && parityOffPlan.get(0).contains("HDFS placed the parity block on"),
          failure + " " + parityOffPlan);
    } else if (at == StripeState.ENCODING) {
      assertNotNull(failure, "the encode lost its node");
      assertEquals(StripeState.ENCODING, crashed.stripe(0).state());
    } else {
      assertTrue(crashed.stripe(0).state().ordinal() >= at.ordinal(), "recorded before the node was stopped");
    }

    // The same node back: the stripe's manifest names it by its transfer address.
    MiniClusters.restartAndReport(cluster, stopped, MiniClusters.Ports.SAME);
    // The restarted node's replicas come back next to the copies HDFS made meanwhile; until the NameNode has deleted
    // the excess ones it still lists them, and a chain step sent to one would find its replica gone.
    MiniClusters.awaitQuiet(cluster, 60_000);
    ToolRun rerun = tool("archive", path, "--code", CODE, "--encoder", encoderName, "--json");
    assertEquals(0, rerun.exit(), rerun.out() + rerun.err());
    JsonNode j = rerun.json();
    assertTrue(j.get("resumed").asBoolean());
    assertEquals(0, j.get("dataEncodedOffPlan").size(), j.toString());
    StripeManifest done = manifestOf(path);
    assertEquals(List.of(StripeState.TRIMMED), ArchiveChecks.states(done), path);
    ArchivedStripe s = done.stripe(0);
    // A parity whose only replica was on the stopped node, or written while it was down, may sit elsewhere now.
    checks.stripeMatchesIndependentEncode(s, false);
    nothingButTheStoredParity(s);
    assertEquals(1, fs.getFileStatus(new Path(path)).getReplication());
    checks.everyByteReadsBack();
  }

  /** The parity directory holds exactly the stripe's stored parity units: no partial file survives a rerun. */
  private void nothingButTheStoredParity(ArchivedStripe s) throws IOException {
    List<String> expected = new ArrayList<>();
    for (int u = s.code().k(); u < s.code().n(); u++) {
      if (!s.member(u).padding()) {
        expected.add("u" + u);
      }
    }
    List<String> found = new ArrayList<>();
    for (FileStatus f : fs.listStatus(new Path(s.parityFilePath()))) {
      found.add(f.getPath().getName());
    }
    found.sort(null);
    assertEquals(expected, found, "parity directory of stripe " + s.stripeId());
  }

  /**
   * The case's victim: the classic encoder's parity target from the recorded plan; the chain's collector or a holder
   * in mid-chain from the chain the encoder will run, over the replicas it will read (the planned nodes after the
   * plan's moves, or a core rack's replicas where they are).
   */
  private static String victimOf(ArchivedStripe s, Victim victim, StripeEncoder encoder) throws IOException {
    if (victim == Victim.PARITY_TARGET) {
      return s.member(s.code().k()).plannedNode();
    }
    EncodePlan.Tree global = chainToRun(s, ((ChainEncoder) encoder).sourcesNow(s).holders()).trees().get(0);
    if (victim == Victim.COLLECTOR) {
      return global.collector().node();
    }
    // The holder nearest the middle of the chain that is not the collector too: a core rack's node may hold several
    // of the stripe's blocks, and the collector (a parity's target) one of them.
    List<EncodePlan.Step> steps = global.steps();
    for (int d = 0; d < steps.size(); d++) {
      for (int i : new int[] {steps.size() / 2 - d, steps.size() / 2 + d}) {
        if (i >= 0 && i < steps.size() && !steps.get(i).site().node().equals(global.collector().node())) {
          return steps.get(i).site().node();
        }
      }
    }
    throw new AssertionError("every step of the chain runs on its collector " + global.collector().node());
  }

  /** The chain over {@code holders} and the stripe's planned parity nodes, as the chain encoder plans it. */
  private static EncodePlan chainToRun(ArchivedStripe s, Map<Integer, Site> holders) {
    Map<Integer, Site> targets = new HashMap<>();
    long[] lengths = new long[s.code().k()];
    for (int u = 0; u < s.code().n(); u++) {
      StripeMember m = s.member(u);
      if (m.padding()) {
        continue;
      }
      if (m.role() == UnitRole.DATA) {
        lengths[u] = m.length();
      } else {
        targets.put(u, new Site(m.plannedNode(), m.plannedRack()));
      }
    }
    return EncodePlanner.chain(EncodeStripe.archival("test", s.code(), holders, lengths, targets),
        EncodePlan.Shape.CHAIN, 16 * 1024, 1 << 20);
  }

  /**
   * Holds the victim's part of the chain mid-stream: the collector's second incoming slice, or the mid-chain
   * holder's second outgoing one, waits until the test thread has stopped the victim, then fails as the broken
   * connection would.
   */
  private static void holdMidStream(String victim, Victim role, CountDownLatch holding, CountDownLatch killed) {
    java.util.concurrent.atomic.AtomicBoolean once = new java.util.concurrent.atomic.AtomicBoolean();
    TransportFaultInjector.set(new TransportFaultInjector() {
      @Override
      public void beforeSend(String from, String to, long repairId, int slice, io.netty.buffer.ByteBuf payload)
          throws IOException {
        boolean ours = role == Victim.COLLECTOR ? to.equals(victim) : from.equals(victim) && !to.startsWith("archiver");
        if (slice == 1 && ours && once.compareAndSet(false, true)) {
          holding.countDown();
          try {
            killed.await(60, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          throw new IOException(victim + " was stopped");
        }
      }
    });
  }

  /** Stops the DataNode at a transfer address; {@code tellNameNode} has the NameNode declare it dead at once. */
  private void stop(String xferAddr, boolean tellNameNode) {
    DataNode dn = cluster.getDataNodes().stream().filter(d -> d.getDatanodeId().getXferAddr().equals(xferAddr))
        .findFirst().orElseThrow(() -> new AssertionError("no DataNode at " + xferAddr));
    MiniDFSCluster.DataNodeProperties p = cluster.stopDataNode(xferAddr);
    assertNotNull(p, xferAddr);
    stopped.add(p);
    if (tellNameNode) {
      try {
        cluster.setDataNodeDead(dn.getDatanodeId());
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }

  @Test
  @Order(1)
  void theChainsDryRunCostIsWhatTheDataNodesCountForAFileStartingOffPlan() throws Exception {
    // Every replica in /rack0 (favored nodes): the plan spreads the stripe over its racks, so most blocks move; a
    // stripe whose chain costs less in /rack0, its core rack, is read there and its moves wait for the trim.
    java.net.InetSocketAddress[] rack0 = java.util.Arrays.stream(fs.getDataNodeStats())
        .filter(d -> d.getNetworkLocation().equals("/rack0"))
        .map(d -> new java.net.InetSocketAddress(d.getIpAddr(), d.getXferPort()))
        .toArray(java.net.InetSocketAddress[]::new);
    String path = "/offplan/file";
    checks.writeOn(path, 12 * BLOCK + 777, rack0);
    ToolRun dry = tool("archive", path, "--code", CODE, "--encoder", "chain", "--dry-run", "--json");
    assertEquals(0, dry.exit(), dry.err());
    JsonNode plan = dry.json();
    long predicted = plan.get("crossRackBytesEncoding").asLong();
    assertEquals(predicted, plan.get("crossRackBytesChain").asLong());
    assertTrue(plan.get("blocksMoved").asLong() > 0, "the replicas start off plan: " + plan.get("blocksMoved"));

    long slicesBefore = sumOverDataNodes(RepairMetrics::bytesSentCrossRack);
    long deliveriesBefore = sumOverDataNodes(RepairMetrics::encodeParityBytesCrossRack);
    Archiver.Result r;
    List<EncodePlan> plans;
    try (ChainEncoder encoder = ChainEncoder.from(fs)) {
      r = new Archiver(fs, store, encoder, Archiver.Hook.NONE, Archiver.Listener.NONE).archive(new Path(path), CODE,
          PlacementKind.CL);
      plans = encoder.plans();
    }
    long slices = sumOverDataNodes(RepairMetrics::bytesSentCrossRack) - slicesBefore;
    long deliveries = sumOverDataNodes(RepairMetrics::encodeParityBytesCrossRack) - deliveriesBefore;
    assertEquals(List.of(), r.encodedOffPlan());
    assertEquals(List.of(), r.offPlan());
    long movedFirst = 0;
    for (JsonNode s : plan.get("stripes")) {
      if (s.get("chain").get("coreRack").isNull()) {
        for (JsonNode u : s.get("units")) {
          movedFirst += u.get("action").asText().equals("move") ? 1 : 0;
        }
      }
    }
    assertEquals(movedFirst, r.moved().size(), "blocks moved before the encode: those of stripes read on the planned"
        + " nodes; " + r.moved());
    StripeManifest m = r.manifest();
    assertEquals(List.of(StripeState.COMMITTED, StripeState.COMMITTED, StripeState.COMMITTED), ArchiveChecks.states(m));
    checks.everyStripeMatchesIndependentEncode(m);
    // The replies to the archiver cross racks too (its rack is none of the DataNodes'): one result frame per tree
    // that stores a parity, one 8-byte CRC32C digest per stored unit, data and parity, and at VERIFIED one more per
    // stored parity (its holder reads it back; no parity byte crosses to the archiver).
    long replies = 0;
    for (int i = 0; i < plans.size(); i++) {
      replies += ChainEncoderClusterTest.repliesToArchiver(plans.get(i), m.stripes().get(i));
      JsonNode printed = plan.get("stripes").get(i).get("chain");
      assertEquals(printed.get("crossRackBytes").asLong(), plans.get(i).crossRackBytes(), "stripe " + i);
    }
    System.out.printf("dry run %d bytes across racks; DataNodes counted %d (streams) + %d (parities to other racks);"
        + " %d blocks moved first%n", predicted, slices - replies, deliveries, r.moved().size());
    assertEquals(predicted, slices - replies + deliveries,
        "the DataNodes' cross-rack bytes (slice ports less " + replies + " reply bytes, plus parity deliveries)");
    assertTrue(predicted > 0);
    checks.everyByteReadsBack();
  }

}
