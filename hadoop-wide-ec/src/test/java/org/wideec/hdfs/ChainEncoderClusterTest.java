package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options.ChecksumOpt;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.util.DataChecksum;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.wideec.archive.ArchivalPlan;
import org.wideec.archive.ArchivalPlanner;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.PlacementKind;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.protocol.EncodeTreeRequest;
import org.wideec.archive.hdfs.ArchivalSource;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.Archiver;
import org.wideec.archive.hdfs.ChainEncoder;
import org.wideec.topology.Site;
import org.wideec.datanode.JmxEndpointResolver;
import org.wideec.datanode.RepairMetrics;
import org.wideec.repair.BlockRef;
import org.wideec.repair.UnitLocation;
import org.wideec.datanode.WideEcDataNodePlugin;
import org.wideec.minicluster.MiniClusters;
import org.wideec.topology.Endpoint;
import org.wideec.topology.hdfs.DataNodeSites;
import org.wideec.transport.PeerFailure;
import org.wideec.transport.PeerStream;
import org.wideec.transport.SliceTransport;
import org.wideec.transport.hdfs.TokenBytes;
import org.wideec.transport.TrafficCounters;
import org.wideec.transport.TransportConf;
import org.wideec.transport.hdfs.TransportConfReader;
import org.wideec.transport.TransportFaultInjector;

/**
 * {@code wide-ec archive --encoder chain} on a racked cluster (6 racks x 3 DataNodes, 64 KiB blocks, block tokens
 * on, our DataNode plugin in every DataNode): the DataNodes holding the data compute the parity along chains and
 * write it; the archiver never reads a data byte. Data is written by a client using CRC32 with 1 KiB per checksum
 * (not the cluster's CRC32C/512), and an identical copy is archived by the classic encoder: the chain's parity files
 * equal the classic encoder's byte for byte, and carry the data's checksum type (the classic encoder's carry its
 * client's). A helper DataNode killed mid-encode, or a corrupt slice, fails the run; the rerun rolls the stripe back
 * and completes it. A collector refuses a request whose tokens do not cover every block it names. The bytes the
 * DataNodes' slice transports count as sent across racks equal, exactly, the executed plans' stream bytes across
 * racks plus the replies the archiver gets (result frames and CRC32C digests, its rack being none of the
 * DataNodes'); the dry run's chain estimate is printed beside them (EncodingNodeCrashClusterTest asserts the two
 * equal: the archiver moves the blocks onto their planned nodes before the chain runs).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ChainEncoderClusterTest extends ArchiveTestBed {
  /** Six units, one per rack: every hop of its chain crosses racks. */
  private static final String RS = "rs:k=4,m=2";

  @Override
  Configuration baseConf() {
    Configuration c = MiniClusters.withWideEcRepair(MiniClusters.withQuickDataNodeHeartbeats(new Configuration()));
    c.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    return c;
  }

  @AfterEach
  void noFaults() {
    TransportFaultInjector.set(null);
  }

  /** A client writing with CRC32 and 1 KiB per checksum. */
  private FileSystem crc32Client() throws Exception {
    Configuration c = new Configuration(conf);
    c.set(DFSConfigKeys.DFS_CHECKSUM_TYPE_KEY, "CRC32");
    c.setInt(DFSConfigKeys.DFS_BYTES_PER_CHECKSUM_KEY, 1024);
    return FileSystem.newInstance(fs.getUri(), c);
  }

  /** A directory of mixed sizes and a file of two stripes under {@code root}, bytes seeded by their names. */
  private void writeTree(FileSystem client, String root) throws Exception {
    checks.writeWith(client, root + "/dir/b", BLOCK / 2, "b");
    checks.writeWith(client, root + "/dir/c", 2 * BLOCK + 17, "c");
    checks.writeWith(client, root + "/dir/sub/e", 7 * BLOCK, "e");
    checks.writeWith(client, root + "/file", 9 * BLOCK + 1000, "file");
  }

  @Test
  @Order(1)
  void chainParityEqualsClassicParityByteForByteWithTheDataChecksum() throws Exception {
    try (FileSystem client = crc32Client()) {
      for (String code : List.of(CODE, RS)) {
        String tag = code.startsWith("rs") ? "rs" : "lrc";
        writeTree(client, "/chain-" + tag);
        writeTree(client, "/classic-" + tag);
        for (String part : List.of("/dir", "/file")) {
          String chainPath = "/chain-" + tag + part;
          String classicPath = "/classic-" + tag + part;
          long composedBefore = sumOverDataNodes(RepairMetrics::digestsComposed);
          long t0 = System.nanoTime();
          // Both copies in file order: grouped by racks, their different replicas could make different stripes.
          ToolRun chain = tool("archive", chainPath, "--code", code, "--encoder", "chain", "--no-trim", "--json",
              "--grouping", "files");
          long t1 = System.nanoTime();
          assertEquals(0, chain.exit(), chain.err());
          JsonNode j = chain.json();
          assertEquals("chain", j.get("encoder").asText());
          assertEquals(0, j.get("parityOffPlan").size(), j.toString());
          assertEquals(composedBefore, sumOverDataNodes(RepairMetrics::digestsComposed),
              "CRC32 data: the holders read each data unit for its CRC32C, none composes it from CRC32 checksums");
          long t2 = System.nanoTime();
          ToolRun classic = tool("archive", classicPath, "--code", code, "--encoder", "classic", "--no-trim", "--json",
              "--grouping", "files");
          System.out.printf("wall time of archive %s (%s): chain %d ms, classic %d ms%n", part, code,
              (t1 - t0) / 1_000_000, (System.nanoTime() - t2) / 1_000_000);
          assertEquals(0, classic.exit(), classic.err());
          assertEquals("classic", classic.json().get("encoder").asText());
          assertEquals(classic.json().get("parityBytesWritten").asLong(), j.get("parityBytesWritten").asLong());

          StripeManifest mc = manifestOf(chainPath);
          StripeManifest mk = manifestOf(classicPath);
          // azure-lrc:k=6: 11 and 10 blocks make 2 stripes; rs:k=4: 3 stripes.
          assertEquals(code.equals(RS) ? 3 : 2, mc.stripes().size(), chainPath);
          assertEquals(mk.stripes().size(), mc.stripes().size());
          checks.everyStripeMatchesIndependentEncode(mc);
          int compared = 0;
          for (int i = 0; i < mc.stripes().size(); i++) {
            ArchivedStripe sc = mc.stripes().get(i);
            ArchivedStripe sk = mk.stripes().get(i);
            assertEquals(StripeState.COMMITTED, sc.state());
            for (int u = sc.code().k(); u < sc.code().n(); u++) {
              StripeMember m = sc.member(u);
              assertEquals(sk.member(u).padding(), m.padding());
              if (m.padding()) {
                continue;
              }
              Path pc = ArchiveLayout.parityUnit(sc.parityFilePath(), u);
              Path pk = ArchiveLayout.parityUnit(sk.parityFilePath(), u);
              assertArrayEquals(readAll(pk), readAll(pc), pc + " equals the classic encoder's " + pk);
              assertEquals(sk.member(u).crc32c(), m.crc32c(), pc.toString());
              ChecksumOpt ours = checksumOf(pc);
              assertEquals(DataChecksum.Type.CRC32, ours.getChecksumType(), pc + " has the data's checksum type");
              assertEquals(1024, ours.getBytesPerChecksum(), pc + " has the data's bytes per checksum");
              assertNotEquals(DataChecksum.Type.CRC32, checksumOf(pk).getChecksumType(),
                  "the classic encoder writes with its client's checksum");
              compared++;
            }
            for (int u = 0; u < sc.code().k(); u++) {
              assertEquals(sk.member(u).crc32c(), sc.member(u).crc32c(), "data unit " + u + " of " + chainPath);
            }
          }
          // Every parity is stored: each local group of azure-lrc:k=6,l=2,g=2 holds a real block, RS rows span all.
          assertEquals(code.equals(RS) ? 3 * 2 : 2 * 4, compared, chainPath + ": parities compared");
        }
      }
    }
    checks.everyByteReadsBack();
  }

  @Test
  @Order(2)
  void theSlicePortsCountExactlyThePlannedCrossRackStreams() throws Exception {
    try (FileSystem client = crc32Client()) {
      checks.writeWith(client, "/count/file", 11 * BLOCK + 333, "count");
    }
    Path path = new Path("/count/file");
    ArchivalPlan dryRun = ArchivalPlanner.plan(new ArchivalSource(fs).request(path, CODE, PlacementKind.CL));
    long[] before = crossRackSent();
    long treesBefore = sumOverDataNodes(RepairMetrics::encodeTreesCollected);
    long parityBefore = sumOverDataNodes(RepairMetrics::encodeParityBytesWritten);
    long written;
    List<EncodePlan> plans;
    try (ChainEncoder encoder = ChainEncoder.from(fs)) {
      Archiver.Result r = new Archiver(fs, store, encoder, Archiver.Hook.NONE, Archiver.Listener.NONE).archive(path,
          CODE, PlacementKind.CL);
      assertEquals(List.of(StripeState.COMMITTED, StripeState.COMMITTED), ArchiveChecks.states(r.manifest()));
      plans = encoder.plans();
      written = r.parityBytesWritten();
    }
    long[] after = crossRackSent();
    long counted = after[0] - before[0];
    StripeManifest m = manifestOf("/count/file");
    checks.everyStripeMatchesIndependentEncode(m);
    assertEquals(2, plans.size());
    long streams = 0;
    long replies = 0;
    for (int i = 0; i < plans.size(); i++) {
      EncodePlan p = plans.get(i);
      ArchivedStripe s = m.stripes().get(i);
      streams += p.crossRackStreamBytes();
      replies += repliesToArchiver(p, s);
      System.out.printf("stripe %d: executed plan %d bytes across racks (streams %d, deliveries %d), dry run's chain"
          + " estimate %d%n", s.stripeId(), p.crossRackBytes(), p.crossRackStreamBytes(), p.crossRackDeliveryBytes(),
          dryRun.stripes().get(i).chain().crossRackBytes());
      System.out.println(p.describe());
    }
    assertEquals(streams + replies, counted, "cross-rack bytes the DataNodes' slice ports sent: the plans' streams ("
        + streams + ") and the replies to the archiver (" + replies + ")");
    assertTrue(streams > 0);
    assertEquals(2 * 4 * BLOCK, written, "two stripes of four 64 KiB parities");
    assertEquals(written, sumOverDataNodes(RepairMetrics::encodeParityBytesWritten) - parityBefore);
    assertEquals(2 * 3, sumOverDataNodes(RepairMetrics::encodeTreesCollected) - treesBefore,
        "azure-lrc: a tree of the global parities and one per local parity, each stripe");
  }

  @Test
  @Order(3)
  void rackTreesEncodeTheSameParityAndAnUnknownShapeIsRefusedByName() throws Exception {
    checks.write("/tree/file", 9 * BLOCK + 1000);
    ToolRun bad = tool("-D" + ChainEncoder.SHAPE_KEY + "=star", "archive", "/tree/file", "--code", CODE, "--encoder",
        "chain", "--no-trim");
    assertEquals(org.wideec.cli.WideEcTool.EXIT_FAILED, bad.exit());
    assertTrue(bad.err().contains("wide-ec.archive.chain.shape must be chain or rack-tree, got 'star'"), bad.err());
    ToolRun r = tool("-D" + ChainEncoder.SHAPE_KEY + "=rack-tree", "archive", "/tree/file", "--code", CODE, "--encoder",
        "chain", "--no-trim", "--json");
    assertEquals(0, r.exit(), r.err());
    assertEquals("chain", r.json().get("encoder").asText());
    checks.everyStripeMatchesIndependentEncode(manifestOf("/tree/file"));
  }

  @Test
  @Order(4)
  void aCollectorRefusesARequestWhoseTokensDoNotCoverItsBlocks() throws Exception {
    checks.write("/auth/a", 2 * BLOCK);
    List<LocatedBlock> lbs = fs.getClient().getLocatedBlocks("/auth/a", 0, 2 * BLOCK).getLocatedBlocks();
    LocatedBlock b0 = lbs.get(0);
    LocatedBlock b1 = lbs.get(1);
    DatanodeInfo dn = b0.getLocations()[0];
    Site site = DataNodeSites.of(dn);
    Map<Integer, Site> holders = Map.of(0, site, 1, site);
    Map<Integer, Site> targets = Map.of(6, site, 7, site, 8, site, 9, site);
    EncodeTreeRequest.TargetNode target = new EncodeTreeRequest.TargetNode(dn.getIpAddr(), dn.getHostName(),
        dn.getDatanodeUuid(), dn.getXferPort(), dn.getInfoPort(), dn.getInfoSecurePort(), dn.getIpcPort(), "DISK", "DS-x");
    byte[] token0 = TokenBytes.of(b0.getBlockToken());
    byte[] token1 = TokenBytes.of(b1.getBlockToken());
    BlockRef parity = new BlockRef(b0.getBlock().getBlockPoolId(), 1L << 40, 1, BLOCK);
    EncodeTreeRequest wrongToken = new EncodeTreeRequest("auth", CODE, EncodePlan.Shape.CHAIN, 64 * 1024, 0,
        new long[] {BLOCK, BLOCK, 0, 0, 0, 0}, holders, targets, List.of(), Map.of(0, ref(b0, token1)), List.of(), 2, 512);
    EncodeTreeRequest noWriteToken = new EncodeTreeRequest("auth", CODE, EncodePlan.Shape.CHAIN, 64 * 1024, 0,
        new long[] {BLOCK, BLOCK, 0, 0, 0, 0}, holders, targets, List.of(), Map.of(0, ref(b0, token0), 1, ref(b1, token1)),
        List.of(new EncodeTreeRequest.ParityOutput(6, parity, target)), 2, 512);
    RepairMetrics metrics = WideEcDataNodePlugin.running(dn.getXferPort()).metrics();
    SliceTransport server = WideEcDataNodePlugin.running(dn.getXferPort()).transport();
    long failedBefore = metrics.encodeTreesFailed();
    long screenedBefore = server.screenedOut();
    ExecutorService idle = Executors.newSingleThreadExecutor();
    JmxEndpointResolver resolver = new JmxEndpointResolver(conf, 5000);
    SliceTransport client = new SliceTransport(TransportConfReader.forClient(conf), "archiver test", TrafficCounters.NONE, idle);
    try {
      Endpoint e = resolver.resolve(new UnitLocation(-1, DataNodeSites.of(dn)), dn);
      PeerFailure refused = assertThrows(PeerFailure.class, () -> ask(client, e, wrongToken, token1));
      assertTrue(refused.getMessage().contains("refused the request: block token refused for " + b0.getBlock()
          .getBlockPoolId() + ":blk_" + b0.getBlock().getBlockId()), refused.getMessage());
      assertEquals(null, refused.culprit(), "the asker lacks authority: no node is to blame");
      PeerFailure unwritable = assertThrows(PeerFailure.class, () -> ask(client, e, noWriteToken, token0));
      assertTrue(unwritable.getMessage().contains("refused the request: no WRITE token for parity unit 6"),
          unwritable.getMessage());
    } finally {
      client.close();
      resolver.close();
      idle.shutdownNow();
    }
    // Refused on the event loop before a helper thread was taken: neither request became a failed encode tree.
    assertEquals(screenedBefore + 2, server.screenedOut());
    assertEquals(failedBefore, metrics.encodeTreesFailed());
  }

  @Test
  @Order(5)
  void anEncodeRequestNamingASlicePortOutsideTheClusterIsRefusedAndNothingIsDialled() throws Exception {
    checks.write("/outside/a", 2 * BLOCK);
    List<LocatedBlock> lbs = fs.getClient().getLocatedBlocks("/outside/a", 0, 2 * BLOCK).getLocatedBlocks();
    LocatedBlock b0 = lbs.get(0);
    LocatedBlock b1 = lbs.get(1);
    DatanodeInfo dn = b0.getLocations()[0];
    DatanodeInfo other = b1.getLocations()[0];
    byte[] token0 = TokenBytes.of(b0.getBlockToken());
    Map<Integer, BlockRef> blocks = Map.of(0, ref(b0, token0), 1, ref(b1, TokenBytes.of(b1.getBlockToken())));
    Site self = DataNodeSites.of(dn);
    Map<Integer, Site> targets = Map.of(6, self, 7, self, 8, self, 9, self);
    ExecutorService idle = Executors.newSingleThreadExecutor();
    JmxEndpointResolver resolver = new JmxEndpointResolver(conf, 5000);
    SliceTransport client = new SliceTransport(TransportConfReader.forClient(conf), "archiver test", TrafficCounters.NONE, idle);
    try (java.net.ServerSocket outside = new java.net.ServerSocket(0, 50, java.net.InetAddress.getByName("127.0.0.1"))) {
      Endpoint e = resolver.resolve(new UnitLocation(-1, DataNodeSites.of(dn)), dn);
      int port = outside.getLocalPort();
      // A node of no DataNode's, and a real DataNode's name on a port that is not its slice port (same host).
      String stranger = "127.0.0.1:" + port;
      for (Endpoint named : List.of(new Endpoint("127.0.0.1", port, new Site(stranger, "/rack1")),
          new Endpoint("127.0.0.1", port, DataNodeSites.of(other)))) {
        Map<Integer, Site> holders = Map.of(0, self, 1, new Site(named.node(), named.rack()));
        EncodeTreeRequest req = new EncodeTreeRequest("outside", CODE, EncodePlan.Shape.CHAIN, 64 * 1024, 0,
            new long[] {BLOCK, BLOCK, 0, 0, 0, 0}, holders, targets, List.of(named), blocks, List.of(), 2, 512);
        PeerFailure refused = assertThrows(PeerFailure.class, () -> ask(client, e, req, token0));
        String expected = named.node().equals(stranger)
            ? "refused the encode: the request names slice port 127.0.0.1:" + port + " of " + stranger
                + ", which is not a live DataNode of this cluster"
            : "refused the encode: the request names slice port 127.0.0.1:" + port + " for DataNode "
                + other.getXferAddr() + ", whose slice port is ";
        assertTrue(refused.getMessage().contains(expected), refused.getMessage());
        assertEquals(null, refused.culprit(), "the asker is refused: no node is to blame");
      }
      // Refused before anything was dialled: nothing ever connected to the outside address.
      outside.setSoTimeout(1);
      assertThrows(java.net.SocketTimeoutException.class, outside::accept);
    } finally {
      client.close();
      resolver.close();
      idle.shutdownNow();
    }
  }

  private static BlockRef ref(LocatedBlock lb, byte[] token) {
    return new BlockRef(lb.getBlock().getBlockPoolId(), lb.getBlock().getBlockId(), lb.getBlock().getGenerationStamp(),
        lb.getBlock().getNumBytes(), token);
  }

  private static void ask(SliceTransport client, Endpoint e, EncodeTreeRequest req, byte[] token) throws Exception {
    try (PeerStream s = client.open(e, "archiver test", "/default-rack", 7, req.toBytes(), client.credentialFor(token))) {
      s.next(0).release();
    }
  }

  @Test
  @Order(6)
  void aCorruptSliceFailsTheStripeAndTheRerunCompletesIt() throws Exception {
    try (FileSystem client = crc32Client()) {
      checks.writeWith(client, "/corrupt/file", 9 * BLOCK + 1000, "corrupt");
    }
    java.util.concurrent.atomic.AtomicBoolean corrupted = new java.util.concurrent.atomic.AtomicBoolean();
    AtomicReference<Object> marked = new AtomicReference<>();
    TransportFaultInjector.set(new TransportFaultInjector() {
      @Override
      public void beforeSend(String node, String to, long repairId, int slice, io.netty.buffer.ByteBuf payload) {
        // The second slice of a chain's stream (the replies to the archiver are at most a few dozen bytes).
        if (slice == 1 && payload.readableBytes() >= 4096 && !corrupted.getAndSet(true)) {
          marked.set(payload);
        }
      }

      @Override
      public void afterEncode(org.wideec.transport.Frame frame, io.netty.buffer.ByteBuf out, int offset, int length) {
        if (frame.payload() == marked.get()) {
          out.setByte(offset + 3, out.getByte(offset + 3) ^ 1);
          marked.set(null);
        }
      }
    });
    long failedBefore = sumOverDataNodes(RepairMetrics::encodeTreesFailed);
    // One stripe at a time, so the stripe whose slice is corrupted is the first and the second is still PLANNED.
    ToolRun failed = tool("-D" + TransportConf.SLICE_BYTES + "=16384", "-D" + ChainEncoder.CONCURRENT_KEY + "=1",
        "archive", "/corrupt/file", "--code", CODE, "--encoder", "chain", "--no-trim", "--json");
    assertTrue(corrupted.get());
    assertEquals(org.wideec.cli.WideEcTool.EXIT_FAILED, failed.exit(), failed.out());
    assertTrue(failed.err().contains("stripe 0: chain encode failed"), failed.err());
    assertTrue(sumOverDataNodes(RepairMetrics::encodeTreesFailed) > failedBefore);
    assertEquals(List.of(StripeState.ENCODING, StripeState.PLANNED), ArchiveChecks.states(manifestOf("/corrupt/file")));
    TransportFaultInjector.set(null);

    ToolRun rerun = tool("archive", "/corrupt/file", "--code", CODE, "--encoder", "chain", "--no-trim", "--json");
    assertEquals(0, rerun.exit(), rerun.err());
    assertEquals(1, rerun.json().get("rolledBack").asInt());
    checks.everyStripeMatchesIndependentEncode(manifestOf("/corrupt/file"));
    checks.everyByteReadsBack();
  }


  @Test
  @Order(7)
  void aHelperKilledMidEncodeFailsTheRunAndTheRerunRollsBackAndCompletes() throws Exception {
    try (FileSystem client = crc32Client()) {
      checks.writeWith(client, "/kill/file", 9 * BLOCK + 1000, "kill");
    }
    CountDownLatch sending = new CountDownLatch(1);
    AtomicReference<String> victim = new AtomicReference<>();
    TransportFaultInjector.set(new TransportFaultInjector() {
      @Override
      public void beforeSend(String node, String toNode, long repairId, int slice, io.netty.buffer.ByteBuf payload)
          throws java.io.IOException {
        // A helper's second slice of a chain (not a collector's reply to the archiver): hold it until it is killed.
        if (slice == 1 && !toNode.startsWith("archiver") && victim.compareAndSet(null, node)) {
          sending.countDown();
          try {
            Thread.sleep(60_000);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          throw new java.io.IOException(node + " was killed");
        }
      }
    });
    ExecutorService bg = Executors.newSingleThreadExecutor();
    try {
      // Slices of 16 KiB, so a 64 KiB unit is four slices and the helper dies after its first went out; one stripe at
      // a time, so the stripe that fails is the first and the second is still PLANNED.
      Future<ToolRun> run = bg.submit(() -> tool("-D" + TransportConf.SLICE_BYTES + "=16384",
          "-D" + ChainEncoder.CONCURRENT_KEY + "=1", "archive", "/kill/file", "--code", CODE, "--encoder", "chain",
          "--no-trim", "--json"));
      assertTrue(sending.await(60, TimeUnit.SECONDS), "no chain started");
      DataNode dead = cluster.getDataNodes().stream().filter(d -> d.getDatanodeId().getXferAddr().equals(victim.get()))
          .findFirst().orElseThrow();
      cluster.stopDataNode(victim.get());
      cluster.setDataNodeDead(dead.getDatanodeId());
      ToolRun failed = run.get(120, TimeUnit.SECONDS);
      assertEquals(org.wideec.cli.WideEcTool.EXIT_FAILED, failed.exit(), failed.out());
      assertTrue(failed.err().contains("stripe 0: chain encode failed"), failed.err());
    } finally {
      bg.shutdownNow();
    }
    StripeManifest m = manifestOf("/kill/file");
    assertEquals(List.of(StripeState.ENCODING, StripeState.PLANNED), ArchiveChecks.states(m));
    TransportFaultInjector.set(null);

    ToolRun rerun = tool("archive", "/kill/file", "--code", CODE, "--encoder", "chain", "--no-trim", "--json");
    assertEquals(0, rerun.exit(), rerun.err());
    assertEquals(1, rerun.json().get("rolledBack").asInt());
    assertTrue(rerun.json().get("resumed").asBoolean());
    StripeManifest done = manifestOf("/kill/file");
    assertEquals(List.of(StripeState.COMMITTED, StripeState.COMMITTED), ArchiveChecks.states(done));
    for (ArchivedStripe s : done.stripes()) {
      checks.stripeMatchesIndependentEncode(s, false); // a parity planned on the dead node went elsewhere
    }
    checks.everyByteReadsBack();
  }

  /**
   * The chain encoder's stripes of one archive run at once (wide-ec.archive.chain.concurrent-stripes, 4 here):
   * encodes overlap (each waits, up to 20 s, until a second one has begun: one stripe after another would wait out
   * every timeout and never see two), every transition is recorded once on the manifest as the others left it, and
   * every stripe ends with the parity an independent encode computes.
   */
  @Test
  @Order(8)
  void aDirectorysStripesAreEncodedAtOnceAndEachRecordsItsOwnTransitions() throws Exception {
    try (FileSystem client = crc32Client()) {
      for (int i = 0; i < 4; i++) {
        checks.writeWith(client, "/many/f" + i, 6 * BLOCK, "many" + i);
      }
    }
    List<String> order = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    Archiver.Hook seen = (manifest, stripe) -> {
      if (stripe != null) {
        order.add(stripe.stripeId() + " " + stripe.state());
      }
    };
    // The tool runs of earlier tests set their -D options in the configuration the cluster's FileSystem shares.
    fs.getConf().setInt(ChainEncoder.CONCURRENT_KEY, 4);
    java.util.concurrent.atomic.AtomicInteger inFlight = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicInteger most = new java.util.concurrent.atomic.AtomicInteger();
    CountDownLatch second = new CountDownLatch(2);
    try (ChainEncoder chain = ChainEncoder.from(fs)) {
      assertEquals(4, chain.concurrentStripes());
      org.wideec.archive.hdfs.StripeEncoder overlapping = new org.wideec.archive.hdfs.StripeEncoder() {
        @Override
        public String name() {
          return chain.name();
        }

        @Override
        public int concurrentStripes() {
          return chain.concurrentStripes();
        }

        @Override
        public boolean readsPlannedHolders(ArchivedStripe stripe) throws java.io.IOException {
          return chain.readsPlannedHolders(stripe);
        }

        @Override
        public java.util.OptionalLong heldCrc(org.apache.hadoop.hdfs.protocol.LocatedBlock lb, String where)
            throws java.io.IOException {
          return chain.heldCrc(lb, where);
        }

        @Override
        public org.wideec.archive.hdfs.StripeEncoder.Encoded encode(ArchivedStripe stripe) throws java.io.IOException {
          most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
          second.countDown();
          try {
            second.await(20, TimeUnit.SECONDS);
            return chain.encode(stripe);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException();
          } finally {
            inFlight.decrementAndGet();
          }
        }
      };
      Archiver.Result r = new Archiver(fs, store, overlapping, seen, Archiver.Listener.NONE).archive(new Path("/many"),
          CODE, PlacementKind.CL);
      assertEquals(List.of(StripeState.COMMITTED, StripeState.COMMITTED, StripeState.COMMITTED,
          StripeState.COMMITTED), ArchiveChecks.states(r.manifest()), order.toString());
      assertEquals(4, chain.plans().size());
      for (int i = 0; i < 4; i++) {
        assertEquals("stripe " + i, chain.plans().get(i).name(), "plans in stripe order");
      }
    }
    assertTrue(most.get() >= 2, "at most " + most.get() + " stripe encoding at once: " + order);
    for (int i = 0; i < 4; i++) {
      for (StripeState st : List.of(StripeState.ENCODING, StripeState.PARITY_WRITTEN, StripeState.VERIFIED,
          StripeState.COMMITTED)) {
        String e = i + " " + st;
        assertEquals(1, order.stream().filter(e::equals).count(), "stripe " + i + " recorded " + st + " once: " + order);
      }
    }
    fs.getConf().unset(ChainEncoder.CONCURRENT_KEY);
    checks.everyStripeMatchesIndependentEncode(manifestOf("/many"));
    checks.everyByteReadsBack();
  }

  /**
   * What the DataNodes send the archiver for one stripe (its rack being none of theirs): each tree that stores a parity
   * answers with one result frame (2 bytes + 18 a parity); the archiver then asks for one 8-byte CRC32C digest per
   * stored unit, data and parity, and VERIFIED asks each parity's holder again (no parity byte crosses to it).
   */
  static long repliesToArchiver(EncodePlan p, ArchivedStripe s) {
    long replies = 0;
    for (EncodePlan.Tree t : p.trees()) {
      int rows = (int) java.util.Arrays.stream(t.rows()).filter(r -> !s.member(r).padding()).count();
      replies += rows == 0 ? 0 : EncodeTreeRequest.resultLength(rows);
    }
    replies += 8L * s.storedUnits().length;
    return replies + 8L * java.util.stream.IntStream.range(s.code().k(), s.code().n())
        .filter(u -> !s.member(u).padding()).count();
  }

  /** Cross-rack and in-rack slice bytes every running DataNode plugin has sent. */
  private long[] crossRackSent() {
    long cross = 0;
    long in = 0;
    for (DataNode d : cluster.getDataNodes()) {
      WideEcDataNodePlugin p = WideEcDataNodePlugin.running(d.getXferPort());
      RepairMetrics metrics = p == null ? null : p.metrics();
      if (metrics != null) {
        cross += metrics.bytesSentCrossRack();
        in += metrics.bytesSentInRack();
      }
    }
    return new long[] {cross, in};
  }

  private byte[] readAll(Path p) throws Exception {
    byte[] b = new byte[(int) fs.getFileStatus(p).getLen()];
    try (FSDataInputStream in = fs.open(p)) {
      in.readFully(0, b);
    }
    return b;
  }

  private ChecksumOpt checksumOf(Path p) throws Exception {
    return fs.getFileChecksum(p).getChecksumOpt();
  }
}
