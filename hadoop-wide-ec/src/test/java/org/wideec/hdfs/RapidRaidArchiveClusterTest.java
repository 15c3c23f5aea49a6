package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.SourcePiece;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeState;
import org.wideec.protocol.EncodeTreeRequest;
import org.wideec.archive.encode.RapidRaidPlan;
import org.wideec.archive.hdfs.Archiver;
import org.wideec.archive.hdfs.CodewordFiles;
import org.wideec.archive.hdfs.RapidRaidPipelines;
import org.wideec.archive.hdfs.SealedArchiver;
import org.wideec.archive.hdfs.SealedFiles;
import org.wideec.client.WideEcFileSystem;
import org.wideec.code.LinearCode;
import org.wideec.coder.ErasureCoder;
import org.wideec.datanode.RepairMetrics;
import org.wideec.datanode.WideEcDataNodePlugin;
import org.wideec.minicluster.Eventually;
import org.wideec.minicluster.MiniClusters;
import org.wideec.topology.Site;
import org.wideec.topology.hdfs.DataNodeSites;
import org.wideec.transport.TransportConf;
import org.wideec.transport.hdfs.TransportConfReader;
import org.wideec.transport.TransportFaultInjector;

/**
 * {@code wide-ec archive FILE --code rapidraid:... --encoder rapidraid} on a racked cluster (6 racks x 3 DataNodes,
 * 64 KiB blocks, block tokens on, our plugin in every DataNode): RapidRAID's pipeline runs on the DataNodes holding
 * the replicas. Every codeword equals an independent encode of the file's pieces and sits on its chain node; the bytes
 * the DataNodes' slice ports count across racks are exactly the plans' (x streams with their reports) plus the replies
 * to the archiver; the file reads back through WideEcFileSystem and a stock open fails. A file whose replicas all sit
 * on two nodes is copied onto a chain first (replication kept). A chain DataNode stopped mid-encode fails the run
 * naming it, nothing of the file is touched, and the rerun finishes.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RapidRaidArchiveClusterTest extends ArchiveTestBed {
  static final String RR8 = "rapidraid:n=8,k=4";
  static final String RR16 = "rapidraid:n=16,k=11";

  @Override
  Configuration baseConf() {
    Configuration c = MiniClusters.withWideEcRepair(MiniClusters.withQuickDataNodeHeartbeats(new Configuration()));
    c.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    c.setInt("wide-ec.archive.rapidraid.max-positions", 1); // one pipeline at a time per DataNode: refusals testable
    return c;
  }

  @AfterEach
  void noFaults() {
    TransportFaultInjector.set(null);
  }

  private byte[] write(String path, long bytes, short replication, InetSocketAddress[] favored) throws Exception {
    byte[] data = new byte[(int) bytes];
    new Random(path.hashCode()).nextBytes(data);
    fs.mkdirs(new Path(path).getParent(), new FsPermission((short) 0755));
    try (FSDataOutputStream o = favored == null ? fs.create(new Path(path), replication)
        : fs.create(new Path(path), FsPermission.getFileDefault(), true, 4096, replication, BLOCK, null, favored)) {
      o.write(data);
    }
    return data;
  }

  private FileSystem wideEc() throws Exception {
    Configuration c = new Configuration(conf);
    c.set("fs.hdfs.impl", WideEcFileSystem.class.getName());
    c.setBoolean("fs.hdfs.impl.disable.cache", true);
    return FileSystem.newInstance(fs.getUri(), c);
  }

  private StripeManifest sealedManifest(String path) throws Exception {
    return store.read(new Path(store.pointer(new Path(path)).manifestPath()));
  }

  private SealedArchiver.Result archive(String path, String code, RapidRaidPipelines f) throws Exception {
    return new SealedArchiver(fs, store, f, Archiver.Hook.NONE, 3).archive(new Path(path), code);
  }

  private long crossRackSent() {
    long sum = 0;
    for (DataNode d : cluster.getDataNodes()) {
      WideEcDataNodePlugin p = WideEcDataNodePlugin.running(d.getXferPort());
      RepairMetrics m = p == null ? null : p.metrics();
      sum += m == null ? 0 : m.bytesSentCrossRack();
    }
    return sum;
  }

  @Test
  @Order(1)
  void thePipelineSealsEveryCodewordOnItsChainNodeAndCountsExactlyThePlan() throws Exception {
    for (String code : List.of(RR8, RR16)) {
      String path = "/rr/" + (code.equals(RR8) ? "eight" : "sixteen");
      // (8,4): 11 blocks, stripes of 4, 4 and 3 pieces; (16,11): 12 blocks, the second stripe one piece and ten zeros.
      long length = (code.equals(RR8) ? 10 : 11) * BLOCK + 1000;
      byte[] data = write(path, length, (short) 3, null);
      long before = crossRackSent();
      SealedArchiver.Result r;
      List<RapidRaidPlan> plans;
      try (RapidRaidPipelines f = new RapidRaidPipelines(fs)) {
        r = archive(path, code, f);
        plans = f.plans();
        System.out.println(code + ": moves " + f.moves());
      }
      long counted = crossRackSent() - before;
      assertTrue(r.sealed(), r.toString());
      StripeManifest m = sealedManifest(path);
      assertTrue(ArchiveChecks.states(m).stream().allMatch(s -> s == StripeState.TRIMMED), m.toString());
      assertEquals(m.stripes().size(), plans.size());
      long expected = 0;
      for (int i = 0; i < plans.size(); i++) {
        RapidRaidPlan p = plans.get(i);
        ArchivedStripe s = m.stripes().get(i);
        System.out.print(p.describe());
        codewordsMatchAnIndependentEncodeOnTheChain(s, p, data);
        // The plan's streams, then the last position's reports and one CRC32C digest per real piece, to the archiver
        // (whose rack is none of the DataNodes').
        expected += p.crossRackBytes() + EncodeTreeRequest.resultLength(p.code().n()) + 8L * s.sources().size();
        assertEquals(1, p.maxRowStreams(), "one x stream in and out of every position");
      }
      assertEquals(expected, counted, code + ": cross-rack bytes the slice ports sent");
      assertEquals(code.equals(RR8) ? 3 : 2, m.stripes().size());

      Exception stock = org.junit.jupiter.api.Assertions.assertThrows(Exception.class,
          () -> SealedArchiveClusterTest.readAll(fs, path, (int) length));
      assertTrue(String.valueOf(stock.getMessage()).contains("raw erasure decoder"), stock.toString());
      try (FileSystem ours = wideEc()) {
        assertArrayEquals(data, SealedArchiveClusterTest.readAll(ours, path, (int) length));
      }
    }
  }

  /** Codeword i equals an independent encode of the pieces, is the recorded block, and is on chain node i. */
  private void codewordsMatchAnIndependentEncodeOnTheChain(ArchivedStripe s, RapidRaidPlan plan, byte[] file)
      throws Exception {
    LinearCode code = s.code();
    int unit = (int) s.unitLength();
    ByteBuffer[] pieces = new ByteBuffer[code.k()];
    for (int t = 0; t < code.k(); t++) {
      byte[] p = new byte[unit];
      if (t < s.sources().size()) {
        SourcePiece sp = s.sources().get(t);
        System.arraycopy(file, (int) sp.offset(), p, 0, (int) sp.length());
        assertEquals(ArchiveChecks.crc(java.util.Arrays.copyOf(p, (int) sp.length())), sp.crc32c());
      }
      pieces[t] = ByteBuffer.wrap(p);
    }
    ByteBuffer[] words = new ByteBuffer[code.n()];
    for (int i = 0; i < code.n(); i++) {
      words[i] = ByteBuffer.allocate(unit);
    }
    ErasureCoder.java(code).encode(pieces, words);
    for (int i = 0; i < code.n(); i++) {
      String f = CodewordFiles.file(s, i).toString();
      byte[] stored = SealedArchiveClusterTest.readAll(fs, f, unit);
      assertArrayEquals(words[i].array(), stored, "stripe " + s.stripeId() + " codeword " + i);
      assertEquals(ArchiveChecks.crc(stored), s.member(i).crc32c());
      LocatedBlock lb = fs.getClient().getLocatedBlocks(f, 0, unit).get(0);
      assertEquals(s.member(i).blockId(), lb.getBlock().getBlockId());
      assertEquals(1, lb.getLocations().length);
      assertEquals(plan.site(i).node(), lb.getLocations()[0].getXferAddr(), f + " is on chain node " + i);
      assertEquals(plan.site(i).node(), s.member(i).plannedNode(), "the manifest plans it where it was written");
    }
  }

  @Test
  @Order(2)
  void replicasCrowdedOnTwoNodesAreCopiedOntoTheChainFirstKeepingTheirReplication() throws Exception {
    DatanodeInfo[] live = fs.getClient().datanodeReport(HdfsConstants.DatanodeReportType.LIVE);
    // Two nodes in two racks: a placement HDFS's policy accepts for two replicas, so it honours them as favored nodes.
    DatanodeInfo other = java.util.Arrays.stream(live)
        .filter(d -> !d.getNetworkLocation().equals(live[0].getNetworkLocation())).findFirst().orElseThrow();
    InetSocketAddress[] two = {
        org.apache.hadoop.net.NetUtils.createSocketAddr(live[0].getXferAddr()),
        org.apache.hadoop.net.NetUtils.createSocketAddr(other.getXferAddr())};
    String path = "/rr/crowded";
    long length = 4 * BLOCK;
    byte[] data = write(path, length, (short) 2, two);
    List<String> crowded = java.util.stream.Stream.of(live[0].getXferAddr(), other.getXferAddr()).sorted().toList();
    awaitReplicas(path, length, 2);
    for (LocatedBlock lb : fs.getClient().getLocatedBlocks(path, 0, length).getLocatedBlocks()) {
      assertEquals(crowded, java.util.Arrays.stream(lb.getLocations()).map(DatanodeInfo::getXferAddr).sorted().toList(),
          "every block on the two favored nodes");
    }
    List<String> moves;
    List<RapidRaidPlan> plans;
    try (RapidRaidPipelines f = new RapidRaidPipelines(fs)) {
      assertTrue(archive(path, RR8, f).sealed());
      moves = f.moves();
      plans = f.plans();
    }
    moves.forEach(System.out::println);
    // Four pieces on two nodes, eight positions on distinct nodes: two positions are served, six need a copy.
    assertEquals(6, plans.get(0).chain().moves().size(), plans.get(0).describe());
    assertEquals(6, moves.size());
    StripeManifest m = sealedManifest(path);
    codewordsMatchAnIndependentEncodeOnTheChain(m.stripes().get(0), plans.get(0), data);
    try (FileSystem ours = wideEc()) {
      assertArrayEquals(data, SealedArchiveClusterTest.readAll(ours, path, (int) length));
    }
  }

  @Test
  @Order(3)
  void theDryRunPrintsTheChainAndCopiesASealThenMakesAndChangesNothing() throws Exception {
    DatanodeInfo[] live = fs.getClient().datanodeReport(HdfsConstants.DatanodeReportType.LIVE);
    DatanodeInfo other = java.util.Arrays.stream(live)
        .filter(d -> !d.getNetworkLocation().equals(live[1].getNetworkLocation())).skip(2).findFirst().orElseThrow();
    InetSocketAddress[] two = {org.apache.hadoop.net.NetUtils.createSocketAddr(live[1].getXferAddr()),
        org.apache.hadoop.net.NetUtils.createSocketAddr(other.getXferAddr())};
    String path = "/rr/planned";
    long length = 3 * BLOCK + 700; // one stripe of (8,4): three pieces and a short one
    byte[] data = write(path, length, (short) 2, two);
    List<String> crowded = java.util.stream.Stream.of(two).map(a -> a.getAddress().getHostAddress() + ":" + a.getPort())
        .sorted().toList();
    awaitReplicas(path, length, 2);
    for (LocatedBlock lb : fs.getClient().getLocatedBlocks(path, 0, length).getLocatedBlocks()) {
      assertEquals(crowded, java.util.Arrays.stream(lb.getLocations()).map(DatanodeInfo::getXferAddr).sorted().toList());
    }
    String before = ArchiveChecks.namespace(fs);

    ToolRun dry = tool("archive", path, "--code", RR8, "--encoder", "rapidraid", "--dry-run", "--json");
    assertEquals(0, dry.exit(), dry.err());
    ToolRun text = tool("archive", path, "--code", RR8, "--encoder", "rapidraid", "--dry-run");
    assertEquals(0, text.exit(), text.err());
    assertEquals(before, ArchiveChecks.namespace(fs), "a dry run changes nothing: listing, xattrs, ACLs, replicas, manifests");
    assertFalse(fs.exists(store.layout().root()) && store.find(store.inodeOf(new Path(path))) != null);

    com.fasterxml.jackson.databind.JsonNode plan = dry.json();
    assertEquals(1, plan.get("stripes").size());
    com.fasterxml.jackson.databind.JsonNode stripe = plan.get("stripes").get(0);
    assertEquals(8, stripe.get("chain").size());
    assertEquals(4, stripe.get("pieces").size());
    assertEquals(700, stripe.get("pieces").get(3).get("length").asLong());
    // Four pieces on two nodes, eight positions on distinct nodes: six positions need a copy of their piece.
    assertEquals(6, plan.get("blocksMoved").asInt(), dry.out());
    assertEquals(6, stripe.get("moves").size());
    long movedBytes = 0;
    for (com.fasterxml.jackson.databind.JsonNode mv : stripe.get("moves")) {
      movedBytes += mv.get("piece").asInt() == 3 ? 700 : BLOCK;
    }
    assertEquals(movedBytes, plan.get("bytesMoved").asLong());
    assertEquals(8.0 * BLOCK / length, plan.get("redundancyAfter").asDouble(), 1e-9);
    assertFalse(plan.get("changed").asBoolean());
    assertTrue(plan.get("seals").asBoolean(), "the run would seal it");
    assertFalse(plan.has("sealed"), "not to be read as: sealed already");
    for (int i = 0; i < 8; i++) {
      com.fasterxml.jackson.databind.JsonNode pos = stripe.get("chain").get(i);
      assertEquals(pos.get("node").asText(), stripe.get("codewords").get(i).get("node").asText());
      assertTrue(text.out().contains("position " + i + " on " + pos.get("node").asText() + " ("
          + pos.get("rack").asText() + ")"), text.out());
    }
    assertTrue(text.out().contains("6 copies"), text.out());
    assertTrue(text.out().contains("nothing was changed (--dry-run)"), text.out());

    long sentBefore = crossRackSent();
    ToolRun seal = tool("archive", path, "--code", RR8, "--encoder", "rapidraid", "--json");
    assertEquals(0, seal.exit(), seal.err());
    assertEquals(6, seal.json().get("moves").size(), seal.out());
    // The dry run printed exactly the copies the seal made: piece, source, target, in order, and their cost.
    com.fasterxml.jackson.databind.JsonNode made = seal.json().get("copies");
    assertEquals(stripe.get("moves").size(), made.size(), seal.out());
    for (int i = 0; i < made.size(); i++) {
      com.fasterxml.jackson.databind.JsonNode want = stripe.get("moves").get(i);
      com.fasterxml.jackson.databind.JsonNode got = made.get(i);
      for (String field : new String[] {"piece", "from", "fromRack", "to", "toRack", "bytes", "crossRack"}) {
        assertEquals(want.get(field).asText(), got.get(field).asText(), "copy " + i + " " + field + ": dry run "
            + want + ", seal " + got);
      }
    }
    assertEquals(plan.get("crossRackBytesMoved").asLong(), seal.json().get("crossRackBytesMoved").asLong());
    StripeManifest m = sealedManifest(path);
    ArchivedStripe s = m.stripes().get(0);
    for (int i = 0; i < 8; i++) {
      com.fasterxml.jackson.databind.JsonNode planned = stripe.get("codewords").get(i);
      assertEquals(planned.get("node").asText(), s.member(i).plannedNode(), "codeword " + i);
      assertEquals(planned.get("rack").asText(), s.member(i).plannedRack(), "codeword " + i);
      LocatedBlock lb = fs.getClient().getLocatedBlocks(CodewordFiles.file(s, i).toString(), 0, 1).get(0);
      assertEquals(planned.get("rack").asText(), lb.getLocations()[0].getNetworkLocation(), "codeword " + i);
    }
    // The plan's streams, the last position's reports and one CRC32C per piece to the archiver (in no rack of ours).
    assertEquals(plan.get("crossRackBytesEncoding").asLong() + EncodeTreeRequest.resultLength(8) + 8L * 4,
        crossRackSent() - sentBefore, "cross-rack bytes of the encode are the dry run's (copies use HDFS's protocol)");
    try (FileSystem ours = wideEc()) {
      assertArrayEquals(data, SealedArchiveClusterTest.readAll(ours, path, (int) length));
    }
    ToolRun again = tool("archive", path, "--code", RR8, "--encoder", "rapidraid", "--dry-run");
    assertEquals(org.wideec.cli.WideEcTool.EXIT_FAILED, again.exit());
    assertTrue(again.err().contains(path + " is sealed already"), again.err());
  }

  @Test
  @Order(3)
  void aSystematicCodeIsRefusedForRapidraidAndRapidraidForChain() throws Exception {
    write("/rr/refused", BLOCK, (short) 3, null);
    ToolRun sys = tool("archive", "/rr/refused", "--code", CODE, "--encoder", "rapidraid");
    assertEquals(org.wideec.cli.WideEcTool.EXIT_USAGE, sys.exit());
    assertTrue(sys.err().contains(CODE + " is systematic: use --encoder classic or chain"), sys.err());
    ToolRun chain = tool("archive", "/rr/refused", "--code", RR8, "--encoder", "chain");
    assertEquals(org.wideec.cli.WideEcTool.EXIT_USAGE, chain.exit());
    assertTrue(chain.err().contains("archive it with --encoder classic or rapidraid"), chain.err());
    assertFalse(SealedFiles.isSealed(fs.getClient().getFileInfo("/rr/refused")));
  }

  @Test
  @Order(4)
  void aDataNodeRunningItsLastFreePositionRefusesAnotherAtOnceAndTheHeldPipelineStillFinishes() throws Exception {
    String path = "/rr/busy";
    long length = 4 * BLOCK;
    byte[] data = write(path, length, (short) 3, null);
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicReference<String> busy = new AtomicReference<>();
    TransportFaultInjector.set(new TransportFaultInjector() {
      @Override
      public void beforeSend(String node, String toNode, long repairId, int slice, io.netty.buffer.ByteBuf payload) {
        if (slice == 1 && payload.readableBytes() > 0 && !toNode.startsWith("archiver")
            && busy.compareAndSet(null, node)) {
          held.countDown();
          try {
            release.await(60, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      }
    });
    ExecutorService bg = Executors.newSingleThreadExecutor();
    try {
      Future<ToolRun> run = bg.submit(() -> tool("-D" + TransportConf.SLICE_BYTES + "=16384", "archive", path,
          "--code", RR8, "--encoder", "rapidraid", "--json"));
      assertTrue(held.await(60, TimeUnit.SECONDS), "no pipeline started");
      // A second position asked of the busy node, with valid tokens: refused at once, naming the limit.
      LocatedBlock b = fs.getClient().getLocatedBlocks("/rr/refused", 0, BLOCK).get(0);
      DatanodeInfo dn = java.util.Arrays.stream(fs.getClient().datanodeReport(HdfsConstants.DatanodeReportType.LIVE))
          .filter(d -> d.getXferAddr().equals(busy.get())).findFirst().orElseThrow();
      byte[] token = org.wideec.transport.hdfs.TokenBytes.of(b.getBlockToken());
      org.wideec.repair.BlockRef piece = new org.wideec.repair.BlockRef(b.getBlock().getBlockPoolId(),
          b.getBlock().getBlockId(), b.getBlock().getGenerationStamp(), b.getBlock().getNumBytes(), token);
      org.wideec.protocol.RapidRaidStepRequest req = new org.wideec.protocol.RapidRaidStepRequest("busy",
          0, List.of(new org.wideec.protocol.RapidRaidStepRequest.Piece(piece, 1, 1)), BLOCK, 16384, null, true,
          new EncodeTreeRequest.ParityOutput(0, new org.wideec.repair.BlockRef(piece.pool(), 1L << 40, 1, BLOCK,
              writeToken(piece.pool(), 1L << 40)),
              new EncodeTreeRequest.TargetNode(dn.getIpAddr(), dn.getHostName(), dn.getDatanodeUuid(), dn.getXferPort(),
                  dn.getInfoPort(), dn.getInfoSecurePort(), dn.getIpcPort(), "DISK", "DS-x")), 2, 512);
      org.wideec.transport.PeerFailure refused = refusedBy(dn, req, token);
      assertTrue(refused.getMessage().contains(busy.get() + " already runs 1 rapidraid pipeline positions "
          + "(wide-ec.archive.rapidraid.max-positions)"), refused.getMessage());
      release.countDown();
      ToolRun done = run.get(120, TimeUnit.SECONDS);
      assertEquals(0, done.exit(), done.err());
    } finally {
      release.countDown();
      bg.shutdownNow();
    }
    try (FileSystem ours = wideEc()) {
      assertArrayEquals(data, SealedArchiveClusterTest.readAll(ours, path, (int) length));
    }
  }

  @Test
  @Order(5)
  void aChainNodeStoppedMidEncodeFailsTheRunNamingItAndTheRerunFinishes() throws Exception {
    String path = "/rr/killed";
    long length = 4 * BLOCK;
    byte[] data = write(path, length, (short) 3, null);
    CountDownLatch sending = new CountDownLatch(1);
    CountDownLatch stopped = new CountDownLatch(1);
    AtomicReference<String> victim = new AtomicReference<>();
    TransportFaultInjector.set(new TransportFaultInjector() {
      @Override
      public void beforeSend(String node, String toNode, long repairId, int slice, io.netty.buffer.ByteBuf payload)
          throws java.io.IOException {
        // A position's second slice of x to the next one (not the last position's progress to the archiver).
        if (slice == 1 && payload.readableBytes() > 0 && !toNode.startsWith("archiver")
            && victim.compareAndSet(null, node)) {
          sending.countDown();
          try {
            stopped.await(60, TimeUnit.SECONDS); // held until the test has stopped its DataNode
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          throw new java.io.IOException(node + " was stopped");
        }
      }
    });
    ExecutorService bg = Executors.newSingleThreadExecutor();
    try {
      // Slices of 16 KiB: a 64 KiB codeword is four slices, and the victim dies after its first went out.
      Future<ToolRun> run = bg.submit(() -> tool("-D" + TransportConf.SLICE_BYTES + "=16384", "archive", path,
          "--code", RR8, "--encoder", "rapidraid", "--json"));
      assertTrue(sending.await(60, TimeUnit.SECONDS), "no pipeline started");
      DataNode dead = cluster.getDataNodes().stream().filter(d -> d.getDatanodeId().getXferAddr().equals(victim.get()))
          .findFirst().orElseThrow();
      cluster.stopDataNode(victim.get());
      cluster.setDataNodeDead(dead.getDatanodeId());
      stopped.countDown();
      ToolRun failed = run.get(120, TimeUnit.SECONDS);
      assertEquals(org.wideec.cli.WideEcTool.EXIT_FAILED, failed.exit(), failed.out());
      assertTrue(failed.err().contains("stripe 0: rapidraid pipeline failed"), failed.err());
      assertTrue(failed.err().contains(victim.get()), "names " + victim.get() + ": " + failed.err());
    } finally {
      stopped.countDown();
      bg.shutdownNow();
    }
    TransportFaultInjector.set(null);
    // Nothing of the file was touched: still the original, readable by a stock client.
    assertFalse(SealedFiles.isSealed(fs.getClient().getFileInfo(path)));
    assertArrayEquals(data, SealedArchiveClusterTest.readAll(fs, path, (int) length));
    assertEquals(List.of(StripeState.ENCODING), ArchiveChecks.states(manifestOf(path)));

    ToolRun rerun = tool("archive", path, "--code", RR8, "--encoder", "rapidraid", "--json");
    assertEquals(0, rerun.exit(), rerun.err());
    assertTrue(rerun.json().get("sealed").asBoolean());
    assertEquals("rapidraid", rerun.json().get("encoder").asText());
    StripeManifest m = sealedManifest(path);
    assertFalse(m.stripes().get(0).members().stream().anyMatch(x -> x.plannedNode().equals(victim.get())),
        "the rerun's chain avoids the stopped node");
    try (FileSystem ours = wideEc()) {
      assertArrayEquals(data, SealedArchiveClusterTest.readAll(ours, path, (int) length));
    }
  }

  /** Until the NameNode lists every block of the file with {@code replicas} locations (reports follow the close). */
  private void awaitReplicas(String path, long length, int replicas) throws Exception {
    Eventually.await(path + ": every block at " + replicas + " replicas", Duration.ofSeconds(20),
        () -> fs.getClient().getLocatedBlocks(path, 0, length).getLocatedBlocks().stream()
            .noneMatch(lb -> lb.getLocations().length < replicas));
  }

  /** Asks DataNode {@code dn}'s slice port for a pipeline position as an archiver would; the failure it answers. */
  private org.wideec.transport.PeerFailure refusedBy(DatanodeInfo dn,
      org.wideec.protocol.RapidRaidStepRequest req, byte[] credential) throws Exception {
    ExecutorService idle = Executors.newSingleThreadExecutor();
    org.wideec.datanode.JmxEndpointResolver resolver = new org.wideec.datanode.JmxEndpointResolver(conf, 5000);
    org.wideec.transport.SliceTransport client = new org.wideec.transport.SliceTransport(
        TransportConfReader.forClient(conf), "archiver test", org.wideec.transport.TrafficCounters.NONE, idle);
    try {
      org.wideec.topology.Endpoint e = resolver.resolve(
          new org.wideec.repair.UnitLocation(-1, DataNodeSites.of(dn)), dn);
      return org.junit.jupiter.api.Assertions.assertThrows(org.wideec.transport.PeerFailure.class, () -> {
        try (org.wideec.transport.PeerStream st = client.open(e, "archiver test", "/default-rack", 7, req.toBytes(),
            client.credentialFor(credential))) {
          st.next(0).release();
        }
      });
    } finally {
      client.close();
      resolver.close();
      idle.shutdownNow();
    }
  }

  @Test
  @Order(4)
  void aPositionWhoseCodewordTokenIsForgedOrAnotherBlocksIsRefusedBeforeItDialsReadsOrWrites() throws Exception {
    String path = "/rr/tokens";
    byte[] data = write(path, BLOCK, (short) 3, null);
    LocatedBlock b = fs.getClient().getLocatedBlocks(path, 0, BLOCK).get(0);
    DatanodeInfo dn = b.getLocations()[0]; // holds the piece, so only the codeword's token can stop it
    byte[] read = org.wideec.transport.hdfs.TokenBytes.of(b.getBlockToken());
    org.wideec.repair.BlockRef piece = new org.wideec.repair.BlockRef(b.getBlock().getBlockPoolId(),
        b.getBlock().getBlockId(), b.getBlock().getGenerationStamp(), BLOCK, read);
    String pool = piece.pool();
    long target = 1L << 41;
    org.wideec.repair.BlockRef forged = new org.wideec.repair.BlockRef(pool, target, 1, BLOCK,
        forge(writeToken(pool, target)));
    org.wideec.repair.BlockRef another = new org.wideec.repair.BlockRef(pool, target + 1, 1, BLOCK,
        writeToken(pool, target));
    // The piece's own block as the codeword, with its READ token: a write over a replica must need WRITE.
    org.wideec.repair.BlockRef overPiece = new org.wideec.repair.BlockRef(pool, piece.blockId(), piece.genStamp(),
        BLOCK, read);
    WideEcDataNodePlugin plugin = WideEcDataNodePlugin.running(dn.getXferPort());
    try (java.net.ServerSocket upstream = new java.net.ServerSocket(0, 8, java.net.InetAddress.getLoopbackAddress())) {
      upstream.setSoTimeout(300);
      org.wideec.topology.Endpoint up = new org.wideec.topology.Endpoint("127.0.0.1", upstream.getLocalPort(),
          new Site("127.0.0.1:" + upstream.getLocalPort(), dn.getNetworkLocation()));
      org.wideec.protocol.RapidRaidStepRequest first = new org.wideec.protocol.RapidRaidStepRequest(
          "tokens", 0, List.of(new org.wideec.protocol.RapidRaidStepRequest.Piece(piece, 1, 1)), BLOCK, 16384,
          null, true, null, 2, 512);
      for (org.wideec.repair.BlockRef output : List.of(forged, another, overPiece)) {
        long readBefore = plugin.metrics().bytesReadLocally();
        org.wideec.protocol.RapidRaidStepRequest req = new org.wideec.protocol.RapidRaidStepRequest(
            "tokens", 1, List.of(new org.wideec.protocol.RapidRaidStepRequest.Piece(piece, 1, 1)), BLOCK, 16384,
            new org.wideec.protocol.RapidRaidStepRequest.Upstream(up, first), true,
            new EncodeTreeRequest.ParityOutput(1, output, new EncodeTreeRequest.TargetNode(dn.getIpAddr(),
                dn.getHostName(), dn.getDatanodeUuid(), dn.getXferPort(), dn.getInfoPort(), dn.getInfoSecurePort(),
                dn.getIpcPort(), "DISK", "DS-x")), 2, 512);
        org.wideec.transport.PeerFailure refused = refusedBy(dn, req, read);
        assertTrue(refused.getMessage().contains(dn.getXferAddr() + " refused the request: codeword 1: block"
            + " token refused for " + output), output + ": " + refused.getMessage());
        org.junit.jupiter.api.Assertions.assertThrows(java.net.SocketTimeoutException.class, upstream::accept,
            "the upstream was never dialled");
        assertEquals(readBefore, plugin.metrics().bytesReadLocally(), "no piece byte was read");
      }
    }
    DataNode node = cluster.getDataNodes().stream().filter(d -> d.getXferPort() == dn.getXferPort()).findFirst()
        .orElseThrow();
    for (long id : new long[] {target, target + 1}) {
      org.junit.jupiter.api.Assertions.assertThrows(
          org.apache.hadoop.hdfs.server.datanode.ReplicaNotFoundException.class,
          () -> node.getFSDataset().getStoredBlock(pool, id), "no replica of blk_" + id + ", not even a temporary one");
    }
    LocatedBlock after = fs.getClient().getLocatedBlocks(path, 0, BLOCK).get(0);
    assertEquals(b.getBlock().getGenerationStamp(), after.getBlock().getGenerationStamp());
    assertArrayEquals(data, SealedArchiveClusterTest.readAll(fs, path, (int) BLOCK), "the piece is untouched");
  }

  /** The token with one bit of its password flipped: well formed, but not the NameNode's. */
  private static byte[] forge(byte[] token) throws java.io.IOException {
    org.apache.hadoop.security.token.Token<org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier> t =
        new org.apache.hadoop.security.token.Token<>();
    try (java.io.DataInputStream in = new java.io.DataInputStream(new java.io.ByteArrayInputStream(token))) {
      t.readFields(in);
    }
    byte[] password = t.getPassword().clone();
    password[0] ^= 1;
    return org.wideec.transport.hdfs.TokenBytes.of(new org.apache.hadoop.security.token.Token<>(t.getIdentifier(),
        password, t.getKind(), t.getService()));
  }

  /** A WRITE token of the NameNode's for a block it never allocated: valid to the DataNode, so only a limit refuses. */
  private byte[] writeToken(String pool, long blockId) throws java.io.IOException {
    org.apache.hadoop.hdfs.protocol.ExtendedBlock b = new org.apache.hadoop.hdfs.protocol.ExtendedBlock(pool, blockId,
        BLOCK, 1);
    return org.wideec.transport.hdfs.TokenBytes.of(cluster.getNamesystem().getBlockManager().getBlockTokenSecretManager()
        .generateToken(b, java.util.EnumSet.of(
            org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier.AccessMode.WRITE),
            new org.apache.hadoop.fs.StorageType[] {org.apache.hadoop.fs.StorageType.DISK}, new String[] {"DS-x"}));
  }
}
