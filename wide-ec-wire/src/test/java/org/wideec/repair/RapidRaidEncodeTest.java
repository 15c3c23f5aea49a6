package org.wideec.repair;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.wideec.engine.CodewordSinks;
import org.wideec.engine.RapidRaidExecutor;
import org.wideec.protocol.EncodeTreeRequest;
import org.wideec.archive.encode.RapidRaidChain;
import org.wideec.archive.encode.RapidRaidPipeline;
import org.wideec.archive.encode.RapidRaidPlan;
import org.wideec.protocol.RapidRaidStepRequest;
import org.wideec.topology.Site;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.coder.ErasureCoder;
import org.wideec.topology.Endpoint;
import org.wideec.transport.PeerFailure;
import org.wideec.transport.PeerStream;

/**
 * RapidRAID's pipeline (RapidRAID §IV) and its classic baseline over real slice transports on loopback: every
 * codeword each node stores equals the Java coder's encode of the pieces over the pinned code, byte for byte, with
 * slices that do not divide the pieces; the reported CRC32Cs match; the bytes counted across racks equal the plan's;
 * a dead node fails the encode naming it.
 */
@org.junit.jupiter.api.extension.ExtendWith(org.wideec.transport.NettyLeakCheck.class)
class RapidRaidEncodeTest {
  static final int SLICE = RepairExecutionTest.SLICE;
  static final int FRAME = 1 << 20;
  /** Not a multiple of the slice. */
  static final long LENGTH = 3L * SLICE + 1000;

  private MemoryCluster cluster;
  private final Map<Integer, MemoryCluster.MemorySink> stored = new ConcurrentHashMap<>();

  @AfterEach
  void tearDown() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** Chain position i on node "p{i}", racks of four consecutive positions; pieces where the paper puts them. */
  private RapidRaidChain start(LinearCode code, byte[][] pieces) throws IOException {
    cluster = new MemoryCluster(RepairExecutionTest.conf(RepairExecutionTest.SECRET, 3000));
    CodewordSinks sinks = step -> {
      MemoryCluster.MemorySink s = new MemoryCluster.MemorySink(step.length());
      stored.put(step.position(), s);
      return s;
    };
    List<Site> sites = new ArrayList<>();
    for (int i = 0; i < code.n(); i++) {
      Site site = new Site("p" + i, "r" + (i / 4));
      sites.add(site);
      Map<Integer, byte[]> mine = new HashMap<>();
      for (int j : RapidRaidPipeline.piecesAt(code.n(), code.k(), i)) {
        mine.put(j, pieces[j]);
      }
      cluster.rapidRaidNode(site.node(), site.rack(), mine, sinks);
    }
    return new RapidRaidChain(sites, List.of(), false, (code.n() - 1) / 4);
  }

  private static byte[][] pieces(int k, long length, long seed) {
    Random r = new Random(seed);
    byte[][] out = new byte[k][(int) length];
    for (byte[] b : out) {
      r.nextBytes(b);
    }
    return out;
  }

  private static byte[][] expected(LinearCode code, byte[][] pieces) {
    ByteBuffer[] in = new ByteBuffer[code.k()];
    for (int j = 0; j < in.length; j++) {
      in[j] = ByteBuffer.wrap(pieces[j]);
    }
    ByteBuffer[] out = new ByteBuffer[code.n()];
    for (int i = 0; i < out.length; i++) {
      out[i] = ByteBuffer.allocate(pieces[0].length);
    }
    ErasureCoder.java(code).encode(in, out);
    byte[][] words = new byte[code.n()][];
    for (int i = 0; i < words.length; i++) {
      words[i] = out[i].array();
    }
    return words;
  }

  private static Map<Integer, BlockRef> blocks(int k, long length) {
    Map<Integer, BlockRef> b = new HashMap<>();
    for (int j = 0; j < k; j++) {
      b.put(j, new BlockRef(MemoryCluster.POOL, j, 1, length));
    }
    return b;
  }

  private RapidRaidExecutor executor() {
    return new RapidRaidExecutor(site -> cluster.transports.get(site.node()), cluster.resolver());
  }

  private static long crc(byte[] b) {
    CRC32C c = new CRC32C();
    c.update(b);
    return c.getValue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"rapidraid:n=16,k=11", "rapidraid:n=8,k=4", "rapidraid:n=12,k=8"})
  void everyNodeOfThePipelineStoresTheCodersCodeword(String spec) throws Exception {
    LinearCode code = Codes.pinnedFromSpec(spec);
    byte[][] pieces = pieces(code.k(), LENGTH, spec.hashCode());
    RapidRaidChain chain = start(code, pieces);
    RapidRaidPlan plan = RapidRaidPlan.pipeline("object " + spec, code, chain, lengths(code.k()), SLICE, FRAME);
    assertEquals(4, plan.slices());
    RapidRaidExecutor.Result r = executor().run(plan, blocks(code.k(), LENGTH), null);
    byte[][] want = expected(code, pieces);
    assertEquals(code.n(), r.codewords().size());
    for (int i = 0; i < code.n(); i++) {
      MemoryCluster.MemorySink s = stored.get(i);
      assertTrue(s.finished && !s.aborted, "c_" + i + " finished");
      assertArrayEquals(want[i], s.bytes, spec + ": c_" + i);
      assertEquals(new EncodeTreeRequest.Stored(i, LENGTH, crc(want[i])), r.codewords().get(i));
    }
    assertEquals(plan.crossRackBytes(), cluster.crossRackBytes(), plan.describe());
    assertEquals((code.n() - 1) / 4 * LENGTH + crossRackReports(plan), plan.crossRackBytes());
    assertEquals(1, plan.maxRowStreams());
  }

  private static long crossRackReports(RapidRaidPlan plan) {
    long b = 0;
    for (int i = 0; i + 1 < plan.code().n(); i++) {
      b += plan.site(i).sameRack(plan.site(i + 1)) ? 0 : EncodeTreeRequest.resultLength(i + 1);
    }
    return b;
  }

  private static long[] lengths(int k) {
    long[] l = new long[k];
    java.util.Arrays.fill(l, LENGTH);
    return l;
  }

  @Test
  void theClassicCollectorEncodesTheSameCodewordsAndDeliversTheOthers() throws Exception {
    LinearCode code = Codes.pinnedFromSpec("rapidraid:n=8,k=4");
    byte[][] pieces = pieces(code.k(), LENGTH, 5);
    RapidRaidChain chain = start(code, pieces);
    RapidRaidPlan plan = RapidRaidPlan.classic("object", code, chain, lengths(code.k()), SLICE, FRAME);
    ArchivalEncodeTest.Targets targets = new ArchivalEncodeTest.Targets();
    RapidRaidExecutor.Result r = executor().run(plan, blocks(code.k(), LENGTH), targets);
    byte[][] want = expected(code, pieces);
    for (int i = 0; i < code.n(); i++) {
      assertArrayEquals(want[i], targets.sinks.get(i).bytes, "c_" + i);
      assertTrue(targets.sinks.get(i).finished);
      assertEquals(crc(want[i]), r.codewords().get(i).crc32c());
    }
    assertEquals(plan.crossRackBytes(), cluster.crossRackBytes() + targets.crossRack.get(), plan.describe());
    // The collector's link sends the n-1 codewords it does not keep: the classic encode's busiest link.
    assertEquals(code.n() - 1, plan.transfers().stream().filter(x -> x.delivery()).count());
    assertEquals(code.n() - 1, plan.maxRowStreams());
  }

  @Test
  void aDeadNodeFailsThePipelineNamingItAndItsPosition() throws Exception {
    LinearCode code = Codes.pinnedFromSpec("rapidraid:n=8,k=4");
    RapidRaidChain chain = start(code, pieces(code.k(), LENGTH, 9));
    cluster.kill("p3");
    RapidRaidPlan plan = RapidRaidPlan.pipeline("/cold/x", code, chain, lengths(code.k()), SLICE, FRAME);
    PeerFailure f = assertThrows(PeerFailure.class, () -> executor().run(plan, blocks(code.k(), LENGTH), null));
    assertEquals("p3", f.culprit());
    assertTrue(f.getMessage().startsWith("/cold/x: rapidraid pipeline encode failed, blaming p3, position 3 (pieces "
        + "[3])"), f.getMessage());
    for (int i = 4; i < code.n(); i++) {
      MemoryCluster.MemorySink s = stored.get(i);
      assertTrue(s == null || (s.aborted && !s.finished), "c_" + i + " never finished");
    }
  }

  @Test
  void aNodeMissingItsPieceFailsNamingIt() throws Exception {
    LinearCode code = Codes.pinnedFromSpec("rapidraid:n=8,k=4");
    RapidRaidChain chain = start(code, pieces(code.k(), LENGTH, 9));
    cluster.stored.get("p5").clear();
    RapidRaidPlan plan = RapidRaidPlan.pipeline("/cold/y", code, chain, lengths(code.k()), SLICE, FRAME);
    PeerFailure f = assertThrows(PeerFailure.class, () -> executor().run(plan, blocks(code.k(), LENGTH), null));
    assertEquals("p5", f.culprit());
    assertTrue(f.getMessage().contains("p5 holds no"), f.getMessage());
    assertTrue(stored.values().stream().noneMatch(s -> s.finished && stored.get(7) == s));
  }

  @Test
  void aPositionNamingAnUpstreamOnAnotherHostThanItsDataNodeIsRefusedBeforeItDials() throws Exception {
    LinearCode code = Codes.pinnedFromSpec("rapidraid:n=8,k=4");
    start(code, pieces(code.k(), LENGTH, 9));
    RapidRaidStepRequest first = new RapidRaidStepRequest("o", 0, List.of(new RapidRaidStepRequest.Piece(
        new BlockRef(MemoryCluster.POOL, 0, 1, LENGTH), 1, 1)), LENGTH, SLICE, null, true, null, 2, 512);
    // p0's real port, but named as a DataNode on another host: a request must not make a node dial an address that
    // is not the slice port of the DataNode it names.
    Endpoint foreign = new Endpoint("127.0.0.1", cluster.transports.get("p0").port(), new Site("10.9.9.9:9866", "r0"));
    RapidRaidStepRequest second = new RapidRaidStepRequest("o", 1, List.of(new RapidRaidStepRequest.Piece(
        new BlockRef(MemoryCluster.POOL, 1, 1, LENGTH), 1, 1)), LENGTH, SLICE,
        new RapidRaidStepRequest.Upstream(foreign, first), false, null, 2, 512);
    Endpoint p1 = cluster.resolver().resolve(new UnitLocation(1, new Site("p1", "r0")));
    try (PeerStream in = cluster.transports.get("p2").open(p1, "p2", "r0", 41, second.toBytes())) {
      PeerFailure f = assertThrows(PeerFailure.class, () -> in.next(0));
      assertTrue(f.getMessage().contains("on another host than DataNode 10.9.9.9:9866"), f.getMessage());
    }
    assertEquals(null, stored.get(0), "position 0 was never asked");
  }

  @Test
  void aStepRequestSurvivesTheWireAndMalformedOnesAreRefused() throws Exception {
    RapidRaidStepRequest first = new RapidRaidStepRequest("o", 0, List.of(new RapidRaidStepRequest.Piece(
        new BlockRef("BP", 1, 2, 3000, new byte[] {7}), 5, 6)), 3000, 1024, null, true, null, 2, 512);
    RapidRaidStepRequest second = new RapidRaidStepRequest("o", 1, List.of(new RapidRaidStepRequest.Piece(
        new BlockRef("BP", 2, 2, 3000), 0, 9)), 3000, 1024,
        new RapidRaidStepRequest.Upstream(new Endpoint("127.0.0.1", 9, new Site("a", "r1")), first), false,
        new EncodeTreeRequest.ParityOutput(1, new BlockRef("BP", 77, 3, 3000, new byte[] {1, 2}),
            new EncodeTreeRequest.TargetNode("10.0.0.1", "h", "u", 1, 2, 3, 4, "DISK", "DS-1")), 2, 512);
    byte[] wire = second.toBytes();
    assertTrue(RapidRaidStepRequest.isOne(wire));
    RapidRaidStepRequest back = RapidRaidStepRequest.parse(wire);
    assertArrayEquals(wire, back.toBytes());
    assertEquals(second.upstream().request().pieces(), back.upstream().request().pieces());
    assertEquals(0, back.frameBytes(0));
    IOException e = assertThrows(IOException.class,
        () -> RapidRaidStepRequest.parse(java.util.Arrays.copyOf(wire, wire.length - 1)));
    assertEquals("rapidraid step request is truncated", e.getMessage());
    IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> new RapidRaidStepRequest("o", 2,
        second.pieces(), 3000, 1024, new RapidRaidStepRequest.Upstream(new Endpoint("h", 1, new Site("a", "r")), first),
        true, null, 2, 512));
    assertEquals("bad rapidraid step for o at position 2: its upstream is position 0 with length 3000, slices of 1024",
        bad.getMessage());
  }
}
