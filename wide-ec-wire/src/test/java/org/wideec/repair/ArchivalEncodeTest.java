package org.wideec.repair;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.wideec.engine.EncodeExecutor;
import org.wideec.archive.encode.EncodeLayouts;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.archive.encode.EncodePlanner;
import org.wideec.archive.encode.EncodeStripe;
import org.wideec.archive.encode.ParitySinks;
import org.wideec.topology.Site;
import org.wideec.transport.PeerFailure;
import org.wideec.transport.TransportFaultInjector;

/**
 * Archival encoders run over real slice transports on loopback: classic (one collector pulls every
 * data unit and encodes) and chain (ECWide §4.2: holders forward partial sums of every parity row), in both shapes.
 * Every parity must equal the Java coder's byte for byte, and the bytes the transports count across racks must equal
 * what the plan predicts, exactly.
 */
@org.junit.jupiter.api.extension.ExtendWith(org.wideec.transport.NettyLeakCheck.class)
class ArchivalEncodeTest {
  static final int SLICE = RepairExecutionTest.SLICE;
  static final int FRAME = 1 << 20; // RepairExecutionTest.conf's bound
  /** Not a multiple of the slice; unit 1 is short and the last unit is padding. */
  static final long LENGTH = 3L * SLICE + 1000;

  private MemoryCluster cluster;

  @AfterEach
  void tearDown() {
    TransportFaultInjector.set(null);
    if (cluster != null) {
      cluster.close();
    }
  }

  /** The parity sinks of one encode: memory, counting what a collector sends to a target on another node. */
  static final class Targets implements ParitySinks {
    final Map<Integer, MemoryCluster.MemorySink> sinks = new ConcurrentHashMap<>();
    final AtomicLong crossRack = new AtomicLong();
    final AtomicLong inRack = new AtomicLong();
    /** A parity whose target cannot store it (its finish fails), or -1. */
    volatile int unstorable = -1;

    @Override
    public SliceSink open(int parity, long length, Site collector, Site target) {
      boolean delivered = !collector.node().equals(target.node());
      MemoryCluster.MemorySink s = new MemoryCluster.MemorySink(length);
      if (sinks.put(parity, s) != null) {
        throw new IllegalStateException("parity " + parity + " opened twice");
      }
      return new SliceSink() {
        @Override
        public void write(long offset, byte[] data, int off, int len) {
          s.write(offset, data, off, len);
          if (delivered) {
            (collector.sameRack(target) ? inRack : crossRack).addAndGet(len);
          }
        }

        @Override
        public void finish() throws IOException {
          if (parity == unstorable) {
            throw new IOException("the disk of " + target.node() + " is full");
          }
          s.finish();
        }

        @Override
        public void abort() {
          s.abort();
        }
      };
    }

    boolean noneFinished() {
      return sinks.values().stream().noneMatch(s -> s.finished);
    }

    boolean allAborted() {
      return sinks.values().stream().allMatch(s -> s.aborted);
    }
  }

  /** Starts node n{u} for every unit of the stripe (holders with their unit) and returns the data. */
  private byte[][] start(EncodeStripe s, long seed) throws IOException {
    cluster = new MemoryCluster(RepairExecutionTest.conf(RepairExecutionTest.SECRET, 5000));
    byte[][] data = EncodeLayouts.data(s, seed);
    for (int u = 0; u < s.code().n(); u++) {
      Site site = u < s.code().k() ? s.holders().get(u) : s.targets().get(u);
      if (site != null) {
        cluster.node(site.node(), site.rack(), u < s.code().k() ? Map.of(u, data[u]) : Map.of());
      }
    }
    return data;
  }

  private Map<Integer, BlockRef> blocks(EncodeStripe s) {
    Map<Integer, BlockRef> b = new HashMap<>();
    for (int u : s.nonEmptyDataUnits()) {
      b.put(u, new BlockRef(MemoryCluster.POOL, u, 1, s.dataLength(u)));
    }
    return b;
  }

  private EncodeExecutor.Result encode(EncodePlan plan, Targets targets) throws IOException, InterruptedException {
    EncodeExecutor e = new EncodeExecutor(site -> cluster.transports.get(site.node()), cluster.resolver());
    return e.run(plan, blocks(plan.stripe()), targets);
  }

  /** The classic plan, or a chain of the named shape. */
  private static EncodePlan plan(EncodeStripe s, String encoderOrShape) {
    return encoderOrShape.equals("CLASSIC") ? EncodePlanner.classic(s, SLICE, FRAME)
        : EncodePlanner.chain(s, EncodePlan.Shape.valueOf(encoderOrShape), SLICE, FRAME);
  }

  private static List<EncodePlan> plans(EncodeStripe s) {
    return List.of(EncodePlanner.classic(s, SLICE, FRAME), EncodePlanner.chain(s, EncodePlan.Shape.CHAIN, SLICE, FRAME),
        EncodePlanner.chain(s, EncodePlan.Shape.RACK_TREE, SLICE, FRAME));
  }

  @ParameterizedTest
  @ValueSource(strings = {"rs:k=64,m=4", "azure-lrc:k=64,l=4,g=4", "unilrc:alpha=1,z=6", "rs:k=6,m=3"})
  void everyEncoderWritesTheCodersParitiesAndCrossesRacksExactlyAsPlanned(String spec) throws Exception {
    EncodeStripe s = EncodeLayouts.stripe("stripe-" + spec, spec, EncodeLayouts.lengths(
        org.wideec.code.Codes.pinnedFromSpec(spec).k(), LENGTH, 5000));
    for (EncodePlan plan : plans(s)) {
      String what = spec + " " + plan.encoder() + "/" + plan.shape();
      byte[][] data = start(s, spec.hashCode());
      byte[][] expected = EncodeLayouts.expectedParities(s, data);
      Targets targets = new Targets();
      EncodeExecutor.Result res = encode(plan, targets);
      assertEquals(plan.trees().size(), res.trees());
      for (int p = s.code().k(); p < s.code().n(); p++) {
        MemoryCluster.MemorySink sink = targets.sinks.get(p);
        assertTrue(sink.finished && !sink.aborted, what + ": parity " + p + " stored");
        assertArrayEquals(expected[p - s.code().k()], sink.bytes, what + ": parity " + p);
      }
      assertEquals(plan.crossRackStreamBytes(), cluster.crossRackBytes(), what + ": stream bytes across racks");
      assertEquals(plan.inRackStreamBytes(), cluster.inRackBytes(), what + ": stream bytes inside racks");
      assertEquals(plan.crossRackDeliveryBytes(), targets.crossRack.get(), what + ": deliveries across racks");
      assertEquals(plan.deliveryBytes(), targets.crossRack.get() + targets.inRack.get(), what + ": deliveries");
      assertEquals(plan.crossRackBytes(), cluster.crossRackBytes() + targets.crossRack.get(), what);
      long reads = cluster.counters.values().stream().mapToLong(c -> c.localReads.get()).sum();
      long stepsRead = plan.trees().stream().mapToLong(t -> t.steps().size()).sum() * plan.unitBytes();
      assertEquals(stepsRead, reads, what + ": every step reads its unit once, zero padded to the parity length");
      cluster.close();
    }
  }

  /**
   * Each rack sends one partial stream across (ECWide §4.2). RS(12,4) read from two racks of six holders, parities
   * written in a third rack: the classic collector receives all 12 units across racks; the chain crosses twice (rA to
   * rB, rB to rC) with the 4 parity rows: 8 units, measured.
   */
  @Test
  void eachRackSendsOnePartialStreamAcross() throws Exception {
    org.wideec.code.LinearCode code = org.wideec.code.Codes.pinnedFromSpec("rs:k=12,m=4");
    Map<Integer, Site> holders = new HashMap<>();
    Map<Integer, Site> parities = new HashMap<>();
    for (int u = 0; u < 16; u++) {
      (u < 12 ? holders : parities).put(u, new Site("n" + u, u < 6 ? "rA" : u < 12 ? "rB" : "rC"));
    }
    long[] lengths = new long[12];
    java.util.Arrays.fill(lengths, LENGTH);
    EncodeStripe s = new EncodeStripe("two-racks", code, holders, lengths, parities);
    long[] expected = {12 * LENGTH, 2 * 4 * LENGTH, 2 * 4 * LENGTH};
    List<EncodePlan> plans = plans(s);
    for (int i = 0; i < plans.size(); i++) {
      EncodePlan plan = plans.get(i);
      byte[][] data = start(s, 13);
      Targets targets = new Targets();
      encode(plan, targets);
      assertEquals(expected[i], plan.crossRackBytes(), plan.toString());
      assertEquals(expected[i], cluster.crossRackBytes() + targets.crossRack.get(), plan.toString());
      assertArrayEquals(EncodeLayouts.expectedParities(s, data)[3], targets.sinks.get(15).bytes);
      cluster.close();
    }
  }

  /** RS(6, 3): data units on nodes n0, n1, ... of rack rA, {@code perNode} each; parities on p6-p8 in rack rB. */
  private static EncodeStripe rs63InRackA(String name, int perNode) {
    Map<Integer, Site> holders = new HashMap<>();
    Map<Integer, Site> parities = new HashMap<>();
    for (int u = 0; u < 9; u++) {
      (u < 6 ? holders : parities).put(u, u < 6 ? new Site("n" + u / perNode, "rA") : new Site("p" + u, "rB"));
    }
    long[] lengths = new long[6];
    java.util.Arrays.fill(lengths, LENGTH);
    return new EncodeStripe(name, org.wideec.code.Codes.pinnedFromSpec("rs:k=6,m=3"), holders, lengths, parities);
  }

  /**
   * A node holding several of a stripe's units (replicated data read where it lies, ECWide §4.2) reads them all in one
   * step and sends one stream: RS(6, 3) with units 0-2 on n0 and 3-5 on n1 in rack rA, parities on three nodes of rB.
   * The chain's one tree (three rows) runs n0 to n1 inside the rack and n1 to its collector across, where five streams
   * of one unit each would have run before (four of them from a node to itself).
   */
  @Test
  void aNodeHoldingSeveralUnitsOfAChainSendsOneStream() throws Exception {
    EncodeStripe s = rs63InRackA("shared-holders", 3);
    EncodePlan plan = EncodePlanner.chain(s, EncodePlan.Shape.CHAIN, SLICE, FRAME);
    assertEquals(1, plan.trees().size(), plan.toString());
    cluster = new MemoryCluster(RepairExecutionTest.conf(RepairExecutionTest.SECRET, 5000));
    byte[][] data = EncodeLayouts.data(s, 17);
    for (int node = 0; node < 2; node++) {
      Map<Integer, byte[]> held = new HashMap<>();
      for (int u = 3 * node; u < 3 * node + 3; u++) {
        held.put(u, data[u]);
      }
      cluster.node("n" + node, "rA", held);
    }
    for (int p = 6; p < 9; p++) {
      cluster.node("p" + p, "rB", Map.of());
    }
    Targets targets = new Targets();
    encode(plan, targets);
    byte[][] expected = EncodeLayouts.expectedParities(s, data);
    for (int p = 6; p < 9; p++) {
      assertArrayEquals(expected[p - 6], targets.sinks.get(p).bytes, "parity " + p);
    }
    assertEquals(3 * LENGTH, plan.inRackStreamBytes(), "n0 to n1, three rows: " + plan);
    assertEquals(3 * LENGTH, plan.crossRackStreamBytes(), "n1 to the collector, three rows: " + plan);
    assertEquals(plan.inRackStreamBytes(), cluster.inRackBytes(), "measured inside the rack");
    assertEquals(plan.crossRackStreamBytes(), cluster.crossRackBytes(), "measured across racks");
    long reads = cluster.counters.values().stream().mapToLong(c -> c.localReads.get()).sum();
    assertEquals(6 * LENGTH, reads, "every unit read once, by its holder");
  }

  /** A unit its holder folds into its step is authorized as its own request would be: without authority, no encode. */
  @Test
  void aFoldedUnitIsReadOnlyWithItsOwnAuthority() throws Exception {
    EncodeStripe s = rs63InRackA("one-holder", 6);
    cluster = new MemoryCluster(RepairExecutionTest.conf(RepairExecutionTest.SECRET, 5000));
    byte[][] data = EncodeLayouts.data(s, 19);
    Map<Integer, byte[]> held = new HashMap<>();
    for (int u = 0; u < 6; u++) {
      held.put(u, data[u]);
    }
    cluster.node("n0", "rA", held, unit -> {
      if (unit.blockId() == 4) {
        throw new ReplicaAccess.DeniedException("no token for unit 4");
      }
    });
    for (int p = 6; p < 9; p++) {
      cluster.node("p" + p, "rB", Map.of());
    }
    Targets targets = new Targets();
    IOException e = assertThrows(IOException.class,
        () -> encode(EncodePlanner.chain(s, EncodePlan.Shape.CHAIN, SLICE, FRAME), targets));
    assertTrue(e.getMessage().contains("no token for unit 4"), e.getMessage());
    assertTrue(targets.noneFinished(), "nothing stored");
  }

  /** A killed holder in the middle of every plan: nothing is opened, let alone stored, and the holder is named. */
  @ParameterizedTest
  @ValueSource(strings = {"CLASSIC", "CHAIN", "RACK_TREE"})
  void aDeadHolderFailsTheEncodeBeforeAnySinkOpens(String shape) throws Exception {
    EncodeStripe s = EncodeLayouts.stripe("dead", "azure-lrc:k=12,l=2,g=2", EncodeLayouts.lengths(12, LENGTH, 5000));
    EncodePlan plan = plan(s, shape);
    start(s, 9);
    cluster.kill("n3");
    Targets targets = new Targets();
    PeerFailure f = assertThrows(PeerFailure.class, () -> encode(plan, targets));
    assertEquals("n3", f.culprit(), f.getMessage());
    assertTrue(f.getMessage().startsWith("dead: " + plan.encoder().name().toLowerCase() + " encode failed, blaming n3, "
        + "holder of data units [3]: "), f.getMessage());
    assertEquals(Map.of(), targets.sinks, shape + ": no sink was opened");
  }

  /**
   * A holder dies once the sinks are open (its first send after they opened; 64 slices leave it that many to go): every
   * sink opened is aborted, none finished, and the holder is named.
   */
  @ParameterizedTest
  @ValueSource(strings = {"CLASSIC", "CHAIN", "RACK_TREE"})
  void aHolderThatDiesMidStreamAbortsEverySink(String shape) throws Exception {
    EncodeStripe s = EncodeLayouts.stripe("dies", "azure-lrc:k=12,l=2,g=2", EncodeLayouts.lengths(12, 64L * SLICE, 5000));
    EncodePlan plan = plan(s, shape);
    start(s, 10);
    AtomicReference<String> killedAt = new AtomicReference<>();
    MemoryCluster c = cluster;
    Targets targets = new Targets();
    TransportFaultInjector.set(new TransportFaultInjector() {
      @Override
      public void beforeSend(String node, String to, long repairId, int slice, ByteBuf payload) throws IOException {
        if (node.equals("n4") && !targets.sinks.isEmpty() && killedAt.compareAndSet(null, "slice " + slice)) {
          c.kill("n4");
          throw new IOException("n4 died");
        }
      }
    });
    PeerFailure f = assertThrows(PeerFailure.class, () -> encode(plan, targets));
    assertTrue(killedAt.get() != null, "n4 died with sinks open");
    assertEquals("n4", f.culprit(), f.getMessage());
    assertTrue(f.getMessage().contains("blaming n4, holder of data units [4]"), f.getMessage());
    assertTrue(targets.noneFinished() && targets.allAborted(), shape + ": every sink aborted, none finished");
  }

  /** A slice altered on the wire fails its frame's checks at the receiver, which blames the sender. */
  @ParameterizedTest
  @ValueSource(strings = {"CLASSIC", "CHAIN", "RACK_TREE"})
  void aCorruptSliceFailsTheEncodeNamingItsSender(String shape) throws Exception {
    EncodeStripe s = EncodeLayouts.stripe("corrupt", "rs:k=6,m=3", EncodeLayouts.lengths(6, 8L * SLICE, 5000));
    EncodePlan plan = plan(s, shape);
    start(s, 11);
    AtomicBoolean done = new AtomicBoolean();
    TransportFaultInjector.set(RepairExecutionTest.corruptOnce("n2", 3, done));
    Targets targets = new Targets();
    PeerFailure f = assertThrows(PeerFailure.class, () -> encode(plan, targets));
    assertTrue(done.get());
    assertEquals("n2", f.culprit(), f.getMessage());
    assertTrue(targets.noneFinished() && targets.allAborted(), shape + ": every sink aborted, none finished");
  }

  /** The encode streams reuse the repair engine's helpers: a one-row request is still the repair's version 1. */
  @Test
  void aClassicEncodeAsksForOneRowStepsAChainForItsTreesRows() throws Exception {
    EncodeStripe s = EncodeLayouts.stripe("rows", "rs:k=6,m=3", EncodeLayouts.lengths(6, LENGTH, 5000));
    List<Integer> frameSizes = new ArrayList<>();
    for (EncodePlan plan : List.of(EncodePlanner.classic(s, SLICE, FRAME),
        EncodePlanner.chain(s, EncodePlan.Shape.CHAIN, SLICE, FRAME))) {
      start(s, 12);
      TransportFaultInjector.set(new TransportFaultInjector() {
        @Override
        public void beforeSend(String node, String to, long repairId, int slice, ByteBuf payload) {
          if (node.equals("n0") && slice == 0) {
            synchronized (frameSizes) {
              frameSizes.add(payload.readableBytes());
            }
          }
        }
      });
      encode(plan, new Targets());
      TransportFaultInjector.set(null);
      cluster.close();
    }
    assertEquals(List.of(SLICE, 3 * SLICE), frameSizes, "classic: the raw slice; chain: 3 parity rows of it");
  }

  /** A target that cannot store its parity: the encode fails naming what was stored; the rest is aborted. */
  @Test
  void aParityThatCannotBeStoredFailsTheEncodeSayingWhatWasStored() throws Exception {
    EncodeStripe s = EncodeLayouts.stripe("full-disk", "rs:k=6,m=3", EncodeLayouts.lengths(6, LENGTH, 5000));
    start(s, 14);
    Targets targets = new Targets();
    targets.unstorable = 7;
    IOException e = assertThrows(IOException.class,
        () -> encode(EncodePlanner.chain(s, EncodePlan.Shape.CHAIN, SLICE, FRAME), targets));
    assertEquals("full-disk: storing the parities failed; parities [6] were stored before, the others aborted: the "
        + "disk of n7 is full", e.getMessage());
    assertTrue(targets.sinks.get(6).finished && !targets.sinks.get(6).aborted);
    assertTrue(!targets.sinks.get(8).finished && targets.sinks.get(8).aborted);
  }
}
