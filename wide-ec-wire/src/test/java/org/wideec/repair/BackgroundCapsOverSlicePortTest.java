package org.wideec.repair;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.placement.CombinedLocalityPlanner;
import org.wideec.placement.PlacementPlan;
import org.wideec.transport.CappedBackground;

/**
 * Which slices a helper sends under its background caps: every slice of a repair its requestor runs as background
 * work, at every hop of the plan (a relay passes the mark on), and none of a user's degraded read. The caps' own
 * account and the transport's count of slices sent agree exactly.
 */
@org.junit.jupiter.api.extension.ExtendWith(org.wideec.transport.NettyLeakCheck.class)
class BackgroundCapsOverSlicePortTest {
  @ParameterizedTest
  @EnumSource(RepairScheme.class)
  void backgroundRepairsGoThroughEveryHopsCapsAndUsersReadsThroughNone(RepairScheme scheme) throws Exception {
    LinearCode code = Codes.fromSpec("azure-lrc:k=12,l=2,g=2");
    PlacementPlan plan = new CombinedLocalityPlanner().plan(code);
    int length = 64 * RepairExecutionTest.SLICE;
    byte[][] units = RepairPlanningTest.codeword(code, length, new Random(9));
    int lost = 0;
    Map<String, CappedBackground> caps = new HashMap<>();
    try (MemoryCluster cluster = new MemoryCluster(RepairExecutionTest.conf(RepairExecutionTest.SECRET, 5000))) {
      for (int u = 1; u < code.n(); u++) {
        cluster.node("n" + u, "r" + plan.rackOf(u), Map.of(u, units[u]));
      }
      cluster.node("req", "r" + plan.rackOf(lost), Map.of());
      cluster.transports.forEach((node, t) -> {
        CappedBackground c = new CappedBackground(1L << 30, 1L << 30); // generous: this test counts, it does not wait
        caps.put(node, c);
        t.capBackground(c);
      });
      StripeRepair r = StripeRepair.of("caps", code, new int[] {lost}, new long[] {length},
          RepairPlanningTest.locations(plan, lost), MemoryCluster.blocks(code.n(), length), Set.of(), scheme);

      MemoryCluster.MemorySink read = new MemoryCluster.MemorySink(length);
      cluster.engine("req", 1).repair(r, cluster.where("req"), (u, len) -> read, RepairExecutionTest.SLICE);
      assertArrayEquals(units[lost], read.bytes, "a user's read");
      long sentForTheRead = cluster.inRackBytes() + cluster.crossRackBytes();
      assertTrue(sentForTheRead > 0);
      assertEquals(0, caps.values().stream().mapToLong(CappedBackground::bytes).sum(),
          "no slice of a user's read went through a cap, at any hop");

      Map<String, long[]> afterRead = new HashMap<>();
      cluster.counters.forEach((node, c) -> afterRead.put(node, new long[] {c.inRack.get(), c.crossRack.get()}));
      MemoryCluster.MemorySink repaired = new MemoryCluster.MemorySink(length);
      cluster.engine("req", 1).asBackground().repair(r, cluster.where("req"), (u, len) -> repaired,
          RepairExecutionTest.SLICE);
      assertArrayEquals(units[lost], repaired.bytes, "a repair");
      long sentForTheRepair = 0;
      for (Map.Entry<String, CappedBackground> e : caps.entrySet()) {
        MemoryCluster.Counters c = cluster.counters.get(e.getKey());
        long[] before = afterRead.get(e.getKey());
        long crossRack = c.crossRack.get() - before[1];
        long sent = c.inRack.get() - before[0] + crossRack;
        assertEquals(sent, e.getValue().bytes(), e.getKey() + ": every slice it sent for the repair went through its"
            + " cap");
        assertEquals(sent, e.getValue().node().takenBytes(), e.getKey());
        assertEquals(crossRack, e.getValue().crossRackBytes(), e.getKey() + ": and each cross-rack one through its"
            + " rack share");
        assertEquals(crossRack, e.getValue().rackShare().takenBytes(), e.getKey());
        sentForTheRepair += sent;
      }
      assertEquals(sentForTheRead, sentForTheRepair, "the same plan moves the same bytes, at every hop");
    }
  }
}
