package org.wideec.repair;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.code.RepairPlan;
import org.wideec.placement.CombinedLocalityPlanner;
import org.wideec.placement.PlacementPlan;

/** A degraded read rebuilds only the range asked for: every helper reads that range, the requestor gets its bytes. */
@org.junit.jupiter.api.extension.ExtendWith(org.wideec.transport.NettyLeakCheck.class)
class RangeRepairTest {
  @ParameterizedTest
  @EnumSource(RepairScheme.class)
  void aRangeOfALostUnitIsRebuiltFromTheSameRangeOfEveryHelper(RepairScheme scheme) throws IOException {
    LinearCode code = Codes.fromSpec("azure-lrc:k=12,l=2,g=2");
    PlacementPlan plan = new CombinedLocalityPlanner().plan(code);
    int length = 100_000;
    byte[][] units = RepairPlanningTest.codeword(code, length, new Random(4));
    units[5] = Arrays.copyOf(units[5], 30_000); // a short unit: the range runs past its end, which reads as zeros
    int lost = 0;
    try (MemoryCluster cluster = new MemoryCluster(RepairExecutionTest.conf(RepairExecutionTest.SECRET, 5000))) {
      for (int u = 1; u < code.n(); u++) {
        cluster.node("n" + u, "r" + plan.rackOf(u), Map.of(u, units[u]));
      }
      cluster.node("req", "r" + plan.rackOf(lost), Map.of());
      Map<Integer, BlockRef> blocks = MemoryCluster.blocks(code.n(), length);
      blocks.put(5, new BlockRef(MemoryCluster.POOL, 5, 1, 30_000));
      // Unit 0 as the code sees it: unit 5 past its end is zeros.
      byte[][] padded = units.clone();
      padded[5] = Arrays.copyOf(units[5], length);
      byte[] expected = decodeWithShortUnit(code, padded, lost);
      StripeRepair r = StripeRepair.of("range", code, new int[] {lost}, new long[] {length},
          RepairPlanningTest.locations(plan, lost), blocks, Set.of(), scheme);
      long from = 3 * 4096;
      int bytes = 40_000;
      MemoryCluster.MemorySink sink = new MemoryCluster.MemorySink(bytes);
      long[] opened = new long[1];
      cluster.engine("req", 1).repair(r, cluster.where("req"), (u, len) -> {
        opened[0] = len;
        return sink;
      }, RepairExecutionTest.SLICE, from, bytes);
      assertEquals(bytes, opened[0]);
      assertArrayEquals(Arrays.copyOfRange(expected, (int) from, (int) from + bytes), sink.bytes, scheme.toString());
      assertEquals(bytes * (long) code.repairPlan(lost).cost(),
          cluster.counters.values().stream().mapToLong(c -> c.localReads.get()).sum(),
          "each helper read exactly the range");
    }
  }

  /** Unit {@code lost} rebuilt from its repair plan over the given units (one of them zero-padded). */
  private static byte[] decodeWithShortUnit(LinearCode code, byte[][] units, int lost) {
    RepairPlan p = code.repairPlan(lost);
    byte[] out = new byte[units[0].length];
    for (int i = 0; i < p.helpers().length; i++) {
      org.wideec.gf.RegionKernels.mulAdd(p.coefficients()[i], java.nio.ByteBuffer.wrap(units[p.helpers()[i]]), 0,
          java.nio.ByteBuffer.wrap(out), 0, out.length);
    }
    return out;
  }
}
