package org.wideec.repair;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.placement.FlatPlanner;
import org.wideec.placement.PlacementPlan;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;
import org.wideec.transport.TamperingRelay;
import org.wideec.engine.RepairEngine;

/**
 * A relay on the wire between two helpers rewrites one bit of every slice and fixes its CRC32C. The frame MAC catches
 * it: the attempt fails, the relayed helper is blamed, and nothing it altered is ever stored.
 */
@org.junit.jupiter.api.extension.ExtendWith(org.wideec.transport.NettyLeakCheck.class)
class TamperedSliceTest {
  private MemoryCluster cluster;
  private TamperingRelay relay;

  @AfterEach
  void tearDown() throws IOException {
    if (relay != null) {
      relay.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  /** RS(6,3) with unit 0 lost, every helper on its own node; connections to n1 go through the relay. */
  private StripeRepair start(byte[] secret, byte[][] units) throws IOException {
    LinearCode code = Codes.fromSpec("rs:k=6,m=3");
    PlacementPlan plan = new FlatPlanner().plan(code);
    cluster = new MemoryCluster(RepairExecutionTest.conf(secret, 3000));
    for (int u = 1; u < code.n(); u++) {
      cluster.node("n" + u, "r" + plan.rackOf(u), Map.of(u, units[u]));
    }
    cluster.node("req", "r" + plan.rackOf(0), Map.of());
    relay = new TamperingRelay(cluster.transports.get("n1").port(), secret != null);
    return StripeRepair.of("tampered", code, new int[] {0}, new long[] {units[0].length},
        RepairPlanningTest.locations(plan, 0), MemoryCluster.blocks(code.n(), units[0].length), Set.of(),
        RepairScheme.PIPELINED);
  }

  private RepairEngine engine(int attempts) {
    EndpointResolver direct = cluster.resolver();
    EndpointResolver viaRelay = loc -> loc.node().equals("n1")
        ? new Endpoint("127.0.0.1", relay.port(), new Site("n1", loc.rack())) : direct.resolve(loc);
    return new RepairEngine(cluster.transports.get("req"), viaRelay, cluster.counters.get("req"), attempts);
  }

  private static byte[][] codeword() {
    return RepairPlanningTest.codeword(Codes.fromSpec("rs:k=6,m=3"), 40_000, new Random(8));
  }

  @Test
  void aRewrittenSliceFailsTheRepairAndNothingIsStored() throws IOException {
    byte[][] units = codeword();
    StripeRepair r = start(RepairExecutionTest.SECRET, units);
    MemoryCluster.MemorySink sink = new MemoryCluster.MemorySink(units[0].length);
    RepairEngine.RepairFailedException e = assertThrows(RepairEngine.RepairFailedException.class,
        () -> engine(1).repair(r, cluster.where("req"), (u, len) -> sink));
    assertTrue(e.getCause().getMessage().contains("failed authentication"), e.getCause().getMessage());
    assertTrue(relay.tampered() > 0, "the relay altered slices");
    assertTrue(sink.aborted, "the partial unit was dropped");
    assertFalse(sink.finished, "nothing was stored");
  }

  @Test
  void theNextAttemptLeavesTheRelayedHelperOutAndStoresTheRightBytes() throws IOException {
    byte[][] units = codeword();
    StripeRepair r = start(RepairExecutionTest.SECRET, units);
    MemoryCluster.MemorySink[] last = new MemoryCluster.MemorySink[1];
    RepairEngine.Result res = engine(3).repair(r, cluster.where("req"),
        (u, len) -> last[0] = new MemoryCluster.MemorySink(len));
    assertEquals(List.of("n1"), res.excludedNodes());
    assertEquals(2, res.attempts());
    assertTrue(last[0].finished);
    assertArrayEquals(units[0], last[0].bytes);
  }

  /** The contrast that shows the relay really tampers: without authentication the CRC32C alone is fooled. */
  @Test
  void withoutAuthenticationTheSameRelayGoesUnnoticed() throws IOException {
    byte[][] units = codeword();
    StripeRepair r = start(null, units);
    MemoryCluster.MemorySink sink = new MemoryCluster.MemorySink(units[0].length);
    engine(1).repair(r, cluster.where("req"), (u, len) -> sink);
    assertTrue(relay.tampered() > 0);
    assertTrue(sink.finished);
    assertFalse(Arrays.equals(units[0], sink.bytes), "auth=none stores what the relay made of it");
  }
}
