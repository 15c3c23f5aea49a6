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
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.placement.FlatPlanner;
import org.wideec.placement.PlacementPlan;
import org.wideec.topology.Site;
import org.wideec.transport.TransportFaultInjector;
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
    PlacementPlan plan = new FlatPlanner().plan(code);
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
    return new RepairEngine(cluster.transports.get("req"), cluster.resolver(), counters, 3,
        new RebuildValidation(true, slices));
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
