package org.wideec.repair;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.placement.CombinedLocalityPlanner;
import org.wideec.placement.FlatPlanner;
import org.wideec.placement.PlacementPlan;
import org.wideec.topology.Site;
import org.wideec.transport.TransportFaultInjector;
import org.wideec.engine.AttemptPhases;
import org.wideec.engine.RepairEngine;
import org.wideec.engine.RepairCounters;

/**
 * Repair stores only validated bytes: a sample of every rebuilt unit is decoded again from another input set before
 * anything is stored; a first pass that went wrong without any transport check noticing aborts the repair, stores
 * nothing and is counted.
 */
@org.junit.jupiter.api.extension.ExtendWith(org.wideec.transport.NettyLeakCheck.class)
class ValidatedRepairTest {
  static final int LENGTH = 50_001; // 13 slices of 4 KiB, the last one short
  private MemoryCluster cluster;
  private final AtomicInteger validated = new AtomicInteger();
  private final AtomicInteger failed = new AtomicInteger();
  private final RepairCounters counters = new RepairCounters() {
    @Override
    public void validated() {
      validated.incrementAndGet();
    }

    @Override
    public void validationFailed() {
      failed.incrementAndGet();
    }
  };

  @AfterEach
  void tearDown() {
    TransportFaultInjector.set(null);
    if (cluster != null) {
      cluster.close();
    }
  }

  /** RS(6,3), unit 0 lost; {@code survivors} of the other units hold replicas. */
  private StripeRepair start(byte[][] units, int survivors, RepairScheme scheme) throws IOException {
    LinearCode code = Codes.fromSpec("rs:k=6,m=3");
    return start(new FlatPlanner().plan(code), units, survivors, scheme);
  }

  /** Unit 0 of the plan's code lost; units 1..survivors hold replicas, node "n{u}" in the plan's rack of u. */
  private StripeRepair start(PlacementPlan plan, byte[][] units, int survivors, RepairScheme scheme)
      throws IOException {
    LinearCode code = plan.code();
    cluster = new MemoryCluster(RepairExecutionTest.conf(RepairExecutionTest.SECRET, 5000));
    Map<Integer, UnitLocation> where = new HashMap<>();
    for (int u = 1; u <= survivors; u++) {
      cluster.node("n" + u, "r" + plan.rackOf(u), Map.of(u, units[u]));
      where.put(u, new UnitLocation(u, new Site("n" + u, "r" + plan.rackOf(u))));
    }
    cluster.node("req", "r" + plan.rackOf(0), Map.of());
    return StripeRepair.of("validated", code, new int[] {0}, new long[] {LENGTH}, where,
        MemoryCluster.blocks(code.n(), LENGTH), Set.of(), scheme);
  }

  private RepairEngine engine(int slices) {
    return engine(new RebuildValidation(true, slices));
  }

  private RepairEngine engine(RebuildValidation validation) {
    return new RepairEngine(cluster.transports.get("req"), cluster.resolver(), counters, 3, validation);
  }

  private static byte[][] codeword() {
    return RepairPlanningTest.codeword(Codes.fromSpec("rs:k=6,m=3"), LENGTH, new Random(17));
  }

  @Test
  void aValidatedRepairStoresTheRightBytes() throws IOException {
    byte[][] units = codeword();
    for (int survivors : new int[] {8, 6}) { // 6: no other input set, the star checks the chain
      for (RepairScheme scheme : RepairScheme.values()) {
        StripeRepair r = start(units, survivors, scheme);
        MemoryCluster.MemorySink sink = new MemoryCluster.MemorySink(LENGTH);
        engine(RebuildValidation.DEFAULT_SLICES).repair(r, cluster.where("req"), (u, len) -> sink);
        assertTrue(sink.finished, scheme + " with " + survivors);
        assertArrayEquals(units[0], sink.bytes, scheme + " with " + survivors);
        cluster.close();
      }
    }
    assertEquals(2 * RepairScheme.values().length, validated.get());
    assertEquals(0, failed.get());
  }

  /**
   * A helper sends one wrong slice in the first pass only, before the frame is sealed (as a bad disk read past its
   * checksum or a bug in a helper would): every transport check passes, the second decode does not.
   */
  @Test
  void aFirstPassThatWentWrongStoresNothing() throws IOException {
    byte[][] units = codeword();
    for (int wrongSlice : new int[] {12, 5}) {
      StripeRepair r = start(units, 8, RepairScheme.PIPELINED);
      AtomicLong firstPass = new AtomicLong(-1);
      TransportFaultInjector.set(new TransportFaultInjector() {
        @Override
        public void onRepairAttempt(String requestor, long repairId) {
          firstPass.compareAndSet(-1, repairId);
        }

        @Override
        public void beforeSend(String node, String toNode, long repairId, int slice, ByteBuf payload) {
          if (repairId == firstPass.get() && slice == wrongSlice && node.equals("n2")) {
            payload.setByte(payload.readerIndex(), payload.getByte(payload.readerIndex()) ^ 0x40);
          }
        }
      });
      MemoryCluster.MemorySink sink = new MemoryCluster.MemorySink(LENGTH);
      // Slice 12 is the last, in every sample; slice 5 is caught when every slice is checked.
      RepairEngine e = engine(wrongSlice == 12 ? RebuildValidation.DEFAULT_SLICES : 0);
      RepairEngine.RepairFailedException x = assertThrows(RepairEngine.RepairFailedException.class,
          () -> e.repair(r, cluster.where("req"), (u, len) -> sink));
      ValidationFailedAssertion.check(x, wrongSlice);
      assertTrue(sink.aborted, "the rebuilt unit was dropped");
      assertFalse(sink.finished, "nothing was stored");
      assertEquals(1, x.result().attempts(), "not retried: two decodes disagree");
      TransportFaultInjector.set(null);
      cluster.close();
    }
    assertEquals(2, failed.get());
  }

  /**
   * Checks of 1 KiB windows: the second decode's frames carry a window of each sampled slice, not the slice, and it
   * still finds a first pass wrong in the last slice's tail (its window is always checked) or wrong in every byte one
   * helper sent (as a wrong decoding matrix would be), and passes a right one.
   */
  @Test
  void windowsCarryLessAndStillFindATailOrAHelperWrongThroughout() throws IOException {
    byte[][] units = codeword();
    RebuildValidation windows = new RebuildValidation(true, RebuildValidation.DEFAULT_SLICES, 1024);
    for (String wrong : new String[] {"nothing", "tail", "throughout"}) {
      StripeRepair r = start(units, 8, RepairScheme.PIPELINED);
      Map<Long, Integer> largest = new ConcurrentHashMap<>();
      List<Long> streams = new CopyOnWriteArrayList<>();
      TransportFaultInjector.set(new TransportFaultInjector() {
        @Override
        public void onRepairAttempt(String requestor, long repairId) {
          streams.add(repairId);
        }

        @Override
        public void beforeSend(String node, String toNode, long repairId, int slice, ByteBuf payload) {
          largest.merge(repairId, payload.readableBytes(), Math::max);
          boolean firstPass = repairId == streams.get(0) && node.equals("n2");
          if (firstPass && (wrong.equals("throughout") || wrong.equals("tail") && slice == 12)) {
            for (int i = payload.readerIndex(); i < payload.writerIndex(); i++) {
              payload.setByte(i, payload.getByte(i) ^ 0x40);
            }
          }
        }
      });
      MemoryCluster.MemorySink sink = new MemoryCluster.MemorySink(LENGTH);
      if (wrong.equals("nothing")) {
        engine(windows).repair(r, cluster.where("req"), (u, len) -> sink);
        assertArrayEquals(units[0], sink.bytes);
        assertEquals(2, streams.size(), "a first pass and a second decode");
        assertEquals(RepairExecutionTest.SLICE, largest.get(streams.get(0)), "the first pass moves whole slices");
        assertEquals(1024, largest.get(streams.get(1)), "the second decode moves windows");
      } else {
        RepairEngine.RepairFailedException x = assertThrows(RepairEngine.RepairFailedException.class,
            () -> engine(windows).repair(r, cluster.where("req"), (u, len) -> sink));
        assertInstanceOf(RepairEngine.ValidationFailedException.class, x.getCause(), wrong);
        if (wrong.equals("tail")) {
          ValidationFailedAssertion.check(x, 12);
        }
        assertFalse(sink.finished, wrong + ": nothing stored");
      }
      TransportFaultInjector.set(null);
      cluster.close();
    }
    assertEquals(2, failed.get());
  }

  private static final String LRC = "azure-lrc:k=12,l=2,g=2";

  /**
   * Azure-LRC(12,2,2), 3 units a rack, unit 0 lost: the first pass is a local repair from its 6-unit group as one
   * rack-aggregated chain. Leaving any of those out leaves only a global decode from 12 units, which the second
   * decode runs as a star: every helper sends straight to the requestor, asked once for both sampled slices.
   */
  private StripeRepair startLocalRepair(byte[][] units) throws IOException {
    PlacementPlan plan = new CombinedLocalityPlanner().plan(Codes.fromSpec(LRC));
    return start(plan, units, plan.code().n() - 1, RepairScheme.RACK_AGGREGATED);
  }

  /** Who sent which slice to whom, per stream the requestor opened (in the order it opened them). */
  private static class Sends extends TransportFaultInjector {
    final List<Long> streams = new CopyOnWriteArrayList<>();
    final Map<Long, Map<String, Set<String>>> to = new ConcurrentHashMap<>(); // stream -> sender -> receivers
    final Map<Long, Map<String, Set<Integer>>> slices = new ConcurrentHashMap<>(); // stream -> sender -> slices
    final String corrupt;

    /** @param corrupt a node whose slice 12 (the last, in every sample) is wrong in every stream, or null */
    Sends(String corrupt) {
      this.corrupt = corrupt;
    }

    @Override
    public void onRepairAttempt(String requestor, long repairId) {
      streams.add(repairId);
    }

    @Override
    public void beforeSend(String node, String toNode, long repairId, int slice, ByteBuf payload) {
      to.computeIfAbsent(repairId, x -> new ConcurrentHashMap<>())
          .computeIfAbsent(node, x -> ConcurrentHashMap.newKeySet()).add(toNode);
      slices.computeIfAbsent(repairId, x -> new ConcurrentHashMap<>())
          .computeIfAbsent(node, x -> ConcurrentHashMap.newKeySet()).add(slice);
      if (node.equals(corrupt) && slice == 12) {
        payload.setByte(payload.readerIndex(), payload.getByte(payload.readerIndex()) ^ 0x40);
      }
    }

    Set<String> senders(int stream) {
      return to.get(streams.get(stream)).keySet();
    }
  }

  /** Repairs unit 0 of {@code units} locally on a fresh cluster, {@code sends} watching, into {@code sink}. */
  private RepairEngine.Result repairLocally(byte[][] units, Sends sends, MemoryCluster.MemorySink sink)
      throws IOException {
    if (cluster != null) {
      cluster.close();
    }
    StripeRepair r = startLocalRepair(units);
    TransportFaultInjector.set(sends);
    return engine(RebuildValidation.DEFAULT_SLICES).repair(r, cluster.where("req"), (u, len) -> sink);
  }

  @Test
  void theSecondDecodeOfALocalRepairIsOneStarFromAnInputSetWithoutAFirstPassHelper() throws IOException {
    byte[][] units = RepairPlanningTest.codeword(Codes.fromSpec(LRC), LENGTH, new Random(23));
    Sends sends = new Sends(null);
    MemoryCluster.MemorySink sink = new MemoryCluster.MemorySink(LENGTH);
    RepairEngine.Result res = repairLocally(units, sends, sink);
    assertArrayEquals(units[0], sink.bytes);
    assertEquals(1, validated.get());
    assertEquals(6, res.helpers(), "the first pass is the local repair");
    assertEquals(2, sends.streams.size(), "the first pass, then one stream for both sampled slices");
    Set<String> first = sends.senders(0);
    Set<String> second = sends.senders(1);
    assertEquals(6, first.size());
    assertTrue(sends.to.get(sends.streams.get(0)).values().stream().anyMatch(t -> !t.contains("req")),
        "the first pass is a chain");
    assertEquals(12, second.size(), "without a helper of the local group, a global decode from 12 units");
    Set<String> leftOut = new TreeSet<>(first);
    leftOut.removeAll(second);
    assertFalse(leftOut.isEmpty(), "another input set: some first-pass helper is not asked again " + first + second);
    sends.to.get(sends.streams.get(1)).forEach((node, t) -> assertEquals(Set.of("req"), t, node + " sends to"));
    sends.slices.get(sends.streams.get(1)).forEach((node, s) -> {
      assertEquals(2, s.size(), node + " sends the sample only: " + s);
      assertTrue(s.contains(12), node + " sends the last slice");
    });
    // Exact bytes across racks. The first pass's chain visits the racks of the local group, the requestor's last: one
    // whole unit (LENGTH bytes) crosses per other rack. The star sends both sampled slices (one of 4096 bytes, and the
    // last, 50_001 - 12 x 4096 = 849 bytes) from each of its helpers outside the requestor's rack.
    String home = cluster.racks.get("req");
    long firstRacks = first.stream().map(cluster.racks::get).filter(k -> !k.equals(home)).distinct().count();
    long starOutside = second.stream().filter(n -> !cluster.racks.get(n).equals(home)).count();
    assertEquals(firstRacks * LENGTH + starOutside * (4096 + 849), cluster.crossRackBytes());
  }

  /**
   * The result says where the attempt's time went: a second decode held up for 300 ms ends 300 ms or more after the
   * streams were accepted (it starts then, beside the first pass), a target whose first write is held 200 ms shows it as the first
   * pass's time writing the targets, and the phases end in order within the repair's time.
   */
  @Test
  void aRepairsPhasesShowWhereItsTimeWent() throws IOException {
    byte[][] units = RepairPlanningTest.codeword(Codes.fromSpec(LRC), LENGTH, new Random(23));
    long holdMs = 300;
    Sends held = new Sends(null) {
      private final AtomicInteger heldOnce = new AtomicInteger();

      @Override
      public void beforeSend(String node, String toNode, long repairId, int slice, ByteBuf payload) {
        super.beforeSend(node, toNode, repairId, slice, payload);
        if (streams.size() == 2 && repairId == streams.get(1) && heldOnce.getAndIncrement() == 0) {
          java.util.concurrent.locks.LockSupport.parkNanos(holdMs * 1_000_000); // the delay under test
        }
      }
    };
    long writeHoldMs = 200;
    MemoryCluster.MemorySink sink = new MemoryCluster.MemorySink(LENGTH) {
      @Override
      public void write(long offset, byte[] data, int off, int len) {
        if (offsets.isEmpty()) {
          java.util.concurrent.locks.LockSupport.parkNanos(writeHoldMs * 1_000_000); // the slow target under test
        }
        super.write(offset, data, off, len);
      }
    };
    RepairEngine.Result res = repairLocally(units, held, sink);
    assertArrayEquals(units[0], sink.bytes);
    assertEquals(2, held.streams.size(), "the first pass, then the second decode");
    AttemptPhases p = res.phases();
    long[] ends = {p.acceptedMs(), p.firstSliceMs(), p.firstPassMs(), p.secondDecodeMs(), p.storedMs(), res.millis()};
    for (int i = 1; i < ends.length; i++) {
      assertTrue(ends[i - 1] <= ends[i], "phases in order, within the repair's time: " + p + " in " + res.millis());
    }
    assertTrue(p.secondDecodeMs() - p.acceptedMs() >= holdMs, "the held second decode: " + p);
    assertTrue(p.targetWritesMs() >= writeHoldMs && p.targetWritesMs() <= p.firstPassMs() - p.acceptedMs(),
        "the held target write, within the first pass: " + p);
    assertTrue(p.beganMs() <= res.millis(), "the attempt began within the repair: " + p + " in " + res.millis());
    assertTrue(p.describe().startsWith("began " + p.beganMs() + " ms into the repair (planning, earlier attempts);"
        + " streams accepted at " + p.acceptedMs() + " ms, first slice "), p.describe());
  }

  /**
   * The second decode streams while the first pass does: the first pass's last slice is held until the second decode
   * has asked its helpers, which a second decode run after the first pass never would. Both decodes still agree.
   */
  @Test
  void theSecondDecodeStreamsWhileTheFirstPassDoes() throws Exception {
    byte[][] units = RepairPlanningTest.codeword(Codes.fromSpec(LRC), LENGTH, new Random(31));
    java.util.concurrent.CountDownLatch secondAsked = new java.util.concurrent.CountDownLatch(1);
    AtomicInteger lastSliceHeldUntilAsked = new AtomicInteger();
    Sends sends = new Sends(null) {
      @Override
      public void onRepairAttempt(String requestor, long repairId) {
        super.onRepairAttempt(requestor, repairId);
        if (streams.size() == 2) {
          secondAsked.countDown();
        }
      }

      @Override
      public void beforeSend(String node, String toNode, long repairId, int slice, ByteBuf payload) {
        super.beforeSend(node, toNode, repairId, slice, payload);
        if (repairId == streams.get(0) && slice == 12) {
          try {
            if (secondAsked.await(10, java.util.concurrent.TimeUnit.SECONDS)) {
              lastSliceHeldUntilAsked.incrementAndGet();
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      }
    };
    MemoryCluster.MemorySink sink = new MemoryCluster.MemorySink(LENGTH);
    repairLocally(units, sends, sink);
    assertArrayEquals(units[0], sink.bytes);
    assertTrue(sink.finished, "stored after the second decode agreed");
    assertEquals(2, sends.streams.size(), "the first pass and the second decode");
    assertTrue(lastSliceHeldUntilAsked.get() > 0,
        "the second decode asked its helpers before the first pass's last slice left a helper");
  }

  /**
   * A helper whose slice is wrong in every stream (a disk that reads wrong past its checksum, a bug in it): a second
   * decode from the same inputs would agree with the first and store wrong bytes; the star without it does not.
   */
  @Test
  void aWrongInputTheSecondDecodeLeavesOutIsCaught() throws IOException {
    byte[][] units = RepairPlanningTest.codeword(Codes.fromSpec(LRC), LENGTH, new Random(29));
    Sends clean = new Sends(null);
    repairLocally(units, clean, new MemoryCluster.MemorySink(LENGTH));
    Set<String> leftOut = new TreeSet<>(clean.senders(0));
    leftOut.removeAll(clean.senders(1));
    assertFalse(leftOut.isEmpty(), "the second decode leaves a first-pass helper out");
    String wrong = leftOut.iterator().next();

    MemoryCluster.MemorySink sink = new MemoryCluster.MemorySink(LENGTH);
    RepairEngine.RepairFailedException x = assertThrows(RepairEngine.RepairFailedException.class,
        () -> repairLocally(units, new Sends(wrong), sink));
    ValidationFailedAssertion.check(x, 12);
    String m = x.getMessage();
    assertTrue(m.contains(" as a star from ["), m);
    String star = m.substring(m.indexOf(" as a star from [") + " as a star from [".length());
    assertFalse(List.of(star.substring(0, star.indexOf(']')).split(", ")).contains(wrong), "the star asked " + wrong);
    assertTrue(sink.aborted && !sink.finished, "nothing stored");
    assertEquals(1, failed.get());
  }

  /** What a validation failure says. */
  private static final class ValidationFailedAssertion {
    static void check(RepairEngine.RepairFailedException x, int slice) {
      assertInstanceOf(RepairEngine.ValidationFailedException.class, x.getCause());
      String m = x.getMessage();
      assertTrue(m.contains("validation failed, nothing stored") && m.contains("unit 0") && m.contains("(slice " + slice
          + ")") && m.contains("first decode from [") && m.contains("second decode without "), m);
    }
  }

  @Test
  void theSampleAlwaysHoldsTheLastSlice() {
    RebuildValidation v = new RebuildValidation(true, 3);
    for (int seed = 0; seed < 50; seed++) {
      int[] s = v.sample(100, new Random(seed));
      assertEquals(3, s.length);
      assertEquals(99, s[2]);
      assertTrue(s[0] < s[1] && s[1] < 99);
    }
    assertArrayEquals(new int[] {0, 1, 2}, v.sample(3, new Random(1)), "a unit of few slices is checked whole");
    assertArrayEquals(new int[] {0, 1, 2, 3}, new RebuildValidation(true, 0).sample(4, new Random(1)));
    assertArrayEquals(new int[0], RebuildValidation.OFF.sample(100, new Random(1)));
  }
}
