package org.wideec.update;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.coder.ErasureCoder;
import org.wideec.placement.CombinedLocalityPlanner;
import org.wideec.placement.GroupPerRackPlanner;
import org.wideec.placement.PlacementPlan;

/** Every scheme's plan, run on real bytes, yields the parities a fresh encode of the new data yields. */
class UpdateAlgebraTest {
  private static final int CHUNK = 64;

  @Test
  void rs12_4EveryPlanRenewsParityToAFreshEncodeOfTheNewData() {
    LinearCode code = Codes.pinnedFromSpec("rs:k=12,m=4");
    checkRandomUpdates(RackSeparatedPlacement.plan(code, 2), 40, 1L);
  }

  @Test
  void azureLrc12_2_2OnCombinedLocalityEveryPlanRenewsGlobalAndLocalParities() {
    LinearCode code = Codes.pinnedFromSpec("azure-lrc:k=12,l=2,g=2");
    checkRandomUpdates(new CombinedLocalityPlanner().plan(code), 40, 2L);
  }

  @Test
  void uniLrcGroupPerRackRenewsLocalParitiesFromDataAndGlobalParityDeltasInsideTheRack() {
    LinearCode code = Codes.fromSpec("unilrc:alpha=1,z=3");
    checkRandomUpdates(new GroupPerRackPlanner(1).plan(code), 30, 8L);
  }

  @Test
  void figure3PlansAllRenewParityCorrectly() {
    checkRandomUpdates(UpdateSchemesTest.figure3().placement(), 10, 3L);
  }

  @Test
  void parixSecondUpdateOfAUnitSendsNewDataOnlyAndStillRenewsParity() {
    LinearCode code = Codes.pinnedFromSpec("rs:k=12,m=4");
    UpdatePattern first = UpdatePattern.of(RackSeparatedPlacement.plan(code, 2), 0, 3, 7);
    Random rnd = new Random(4L);
    byte[][] stripe = encode(code, randomData(rnd, code.k()));
    UpdateExecution.ParixLog log = new UpdateExecution.ParixLog();
    UpdateHistory history = UpdateHistory.NONE;
    for (UpdatePattern p : List.of(first, first.withChanged(3, 7, 9))) {
      byte[][] newData = changedData(rnd, p);
      UpdatePlan plan = new ParixUpdate().plan(p, history);
      byte[][] after = UpdateExecution.apply(plan, stripe, newData, log);
      assertStripeEqualsFreshEncode(code, after, plan);
      stripe = after;
      history = history.after(p);
    }
    // Units 3 and 7 were updated before: one chunk per parity each; unit 9 is new to Parix: two.
    assertEquals(2 * 4 + 4 * 2, new ParixUpdate().plan(first.withChanged(3, 7, 9), UpdateHistory.of(0, 3, 7)).crossRackChunks());
  }

  @Test
  void reEncodingAfterDeletesReadsOnlyTheLiveUnitsAndYieldsTheEncodeOfTheZeroedData() {
    LinearCode code = Codes.pinnedFromSpec("rs:k=12,m=4");
    UpdatePattern p = UpdatePattern.of(RackSeparatedPlacement.plan(code, 2), IntStream.range(0, 10).toArray())
        .clearing(IntStream.range(0, 10).toArray());
    Random rnd = new Random(5L);
    byte[][] stripe = encode(code, randomData(rnd, code.k()));
    byte[][] newData = new byte[code.k()][CHUNK];
    UpdatePlan plan = new ReEncoding().plan(p);
    assertStripeEqualsFreshEncode(code, UpdateExecution.apply(plan, stripe, newData, new UpdateExecution.ParixLog()), plan);
    // Live d10, d11 share rack 5: their chain sends the 4 rows once to the collector in a parity rack, which
    // delivers the other parity rack's 2.
    assertEquals(6, plan.crossRackChunks());
  }

  @Test
  void everyPlanThatDropsAnEmptiedGroupsLocalParityRenewsTheRestToAFreshEncode() {
    UpdatePattern p = UpdateSchemesTest.group0Emptied().dropping(UpdateSchemesTest.GROUP_0_LOCAL_PARITY);
    LinearCode code = p.code();
    byte[][] stripe = encode(code, randomData(new Random(9L), code.k()));
    byte[][] newData = new byte[code.k()][];
    for (int u : p.changed()) {
      newData[u] = new byte[CHUNK]; // deleted: all zero, so the dropped parity's fresh encode is zero too
    }
    for (UpdatePlan plan : UpdateSchemesTest.everyPlan(p)) {
      assertStripeEqualsFreshEncode(code, UpdateExecution.apply(plan, stripe, newData, new UpdateExecution.ParixLog()),
          plan);
    }
  }

  @Test
  void aPlanThatStillRenewsADroppedParityOrMissesARenewedOneIsRejectedNamingIt() {
    UpdatePattern renewing = UpdateSchemesTest.group0Emptied();
    UpdatePattern dropping = renewing.dropping(UpdateSchemesTest.GROUP_0_LOCAL_PARITY);
    LinearCode code = renewing.code();
    byte[][] stripe = encode(code, randomData(new Random(10L), code.k()));
    byte[][] newData = changedData(new Random(11L), renewing);
    UpdatePlan stale = new UpdatePlan("stale", dropping, new int[0], new BaselineUpdate().plan(renewing).transfers(),
        false);
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> UpdateExecution.apply(stale, stripe, newData, new UpdateExecution.ParixLog()));
    assertTrue(e.getMessage().endsWith("renews parity p2, which the update drops"), e.getMessage());
    List<Transfer> ts = new BaselineUpdate().plan(dropping).transfers();
    UpdatePlan partial = new UpdatePlan("broken", dropping, new int[0], ts.subList(0, ts.size() - 1), false);
    IllegalStateException missed = assertThrows(IllegalStateException.class,
        () -> UpdateExecution.apply(partial, stripe, newData, new UpdateExecution.ParixLog()));
    assertTrue(missed.getMessage().startsWith("broken: parity p1 received coefficients"), missed.getMessage());
  }

  @Test
  void aPlanThatForgetsAParityIsRejectedNamingIt() {
    LinearCode code = Codes.pinnedFromSpec("rs:k=12,m=4");
    UpdatePattern p = UpdatePattern.of(RackSeparatedPlacement.plan(code, 2), 0);
    UpdatePlan full = new BaselineUpdate().plan(p);
    UpdatePlan partial = new UpdatePlan("broken", p, new int[0], full.transfers().subList(0, 3), false);
    byte[][] stripe = encode(code, randomData(new Random(6L), code.k()));
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> UpdateExecution.apply(partial, stripe, changedData(new Random(7L), p), new UpdateExecution.ParixLog()));
    assertTrue(e.getMessage().startsWith("broken: parity p3 received coefficients [0, 0,"), e.getMessage());
  }

  private static void checkRandomUpdates(PlacementPlan placement, int trials, long seed) {
    LinearCode code = placement.code();
    Random rnd = new Random(seed);
    for (int trial = 0; trial < trials; trial++) {
      int[] changed = IntStream.range(0, code.k()).filter(d -> rnd.nextInt(3) == 0).toArray();
      if (changed.length == 0) {
        changed = new int[] {rnd.nextInt(code.k())};
      }
      UpdatePattern p = UpdatePattern.of(placement, changed);
      byte[][] stripe = encode(code, randomData(rnd, code.k()));
      byte[][] newData = changedData(rnd, p);
      List<UpdatePlan> plans = new ArrayList<>();
      for (String name : UpdateScheme.NAMES) {
        plans.add(UpdateScheme.byName(name).plan(p));
      }
      int[] cau = IntStream.range(0, p.racks()).toArray();
      plans.add(new RackCoordinatedUpdate(cau).plan(p));
      for (UpdatePlan plan : plans) {
        byte[][] after = UpdateExecution.apply(plan, stripe, newData, new UpdateExecution.ParixLog());
        assertStripeEqualsFreshEncode(code, after, plan);
      }
    }
  }

  private static void assertStripeEqualsFreshEncode(LinearCode code, byte[][] after, UpdatePlan plan) {
    byte[][] data = new byte[code.k()][];
    System.arraycopy(after, 0, data, 0, code.k());
    byte[][] fresh = encode(code, data);
    for (int u = code.k(); u < code.n(); u++) {
      assertArrayEquals(fresh[u], after[u], plan.scheme() + " parity " + plan.pattern().unitName(u) + " on " + plan.pattern());
    }
  }

  static byte[][] encode(LinearCode code, byte[][] data) {
    ByteBuffer[] in = new ByteBuffer[code.k()];
    for (int d = 0; d < code.k(); d++) {
      in[d] = ByteBuffer.wrap(data[d]);
    }
    ByteBuffer[] out = new ByteBuffer[code.m()];
    for (int p = 0; p < code.m(); p++) {
      out[p] = ByteBuffer.allocate(data[0].length);
    }
    ErasureCoder.java(code).encode(in, out);
    byte[][] stripe = new byte[code.n()][];
    for (int d = 0; d < code.k(); d++) {
      stripe[d] = data[d].clone();
    }
    for (int p = 0; p < code.m(); p++) {
      stripe[code.k() + p] = out[p].array();
    }
    return stripe;
  }

  private static byte[][] randomData(Random rnd, int k) {
    byte[][] d = new byte[k][CHUNK];
    for (byte[] b : d) {
      rnd.nextBytes(b);
    }
    return d;
  }

  private static byte[][] changedData(Random rnd, UpdatePattern p) {
    byte[][] d = new byte[p.code().k()][];
    for (int u : p.changed()) {
      d[u] = new byte[CHUNK];
      rnd.nextBytes(d[u]);
    }
    return d;
  }
}
