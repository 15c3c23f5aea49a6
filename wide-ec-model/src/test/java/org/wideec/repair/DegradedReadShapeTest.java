package org.wideec.repair;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.topology.Site;

class DegradedReadShapeTest {
  /** Azure-LRC(4,2,2): data 0..3, global parities 4 and 5, local parities 6 (group 0, 1) and 7 (group 2, 3). */
  private final LinearCode lrc = Codes.fromSpec("azure-lrc:k=4,l=2,g=2");

  @Test
  void aChainIsAskedWhileTheLostUnitsLocalGroupIsWholeAndNotOnceItLostAnotherMember() {
    assertArrayEquals(new int[] {1, 6}, lrc.repairPlan(0).helpers(), "unit 0's local group");
    assertTrue(DegradedReadShape.chainWorthAsking(lrc, 0, u -> u != 0), "only unit 0 lost");
    assertTrue(DegradedReadShape.chainWorthAsking(lrc, 0, u -> u != 0 && u != 2 && u != 3),
        "the other group's data lost: unit 0 still repairs from 1 and L1");
    assertFalse(DegradedReadShape.chainWorthAsking(lrc, 0, u -> u != 0 && u != 1),
        "unit 1 lost with it (a rack holding the group): only a global decode rebuilds unit 0");
    assertFalse(DegradedReadShape.chainWorthAsking(lrc, 0, u -> u != 0 && u != 6), "its local parity lost with it");
  }

  @Test
  void aCodeWithoutLocalGroupsAlwaysAsksAChain() {
    LinearCode rs = Codes.fromSpec("rs:k=6,m=3");
    assertTrue(rs.groupsOf(0).isEmpty());
    assertTrue(DegradedReadShape.chainWorthAsking(rs, 0, u -> u > 2), "units 0, 1, 2 lost: ECPipe's chain of k");
  }

  @Test
  void theIdleTimeOfARangeIsItsBusiestLinksBytesOverThePlanTheChainRuns() {
    // Unit 0 lost; its helpers 1 in rack A and L1 (6) in rack B; the client alone in rack C; every other unit in D.
    Map<Integer, UnitLocation> at = new HashMap<>();
    for (int u = 1; u < lrc.n(); u++) {
      at.put(u, new UnitLocation(u, new Site("n" + u, u == 1 ? "A" : u == 6 ? "B" : "D")));
    }
    StripeRepair chain = StripeRepair.of("s", lrc, new int[] {0}, new long[] {1_000_000}, at, Map.of(), Set.of(),
        RepairScheme.RACK_AGGREGATED);
    LinkRates rates = new LinkRates(10_000_000, 1_000_000);
    // One chain A -> B -> C: every rack link it crosses carries the range once, 1 MB at 1 MB/s.
    assertEquals(1.0, DegradedReadShape.idleSeconds(chain, "client", "C", 1_000_000, rates), 1e-12);
    // A rack star: A and B each send their partial sum to C, whose downlink carries two ranges.
    StripeRepair star = chain.withScheme(RepairScheme.RACK_STAR);
    assertEquals(2.0, DegradedReadShape.idleSeconds(star, "client", "C", 1_000_000, rates), 1e-12);
    // A client in rack A: the chain goes B -> A, one range across B's uplink and A's downlink.
    assertEquals(1.0, DegradedReadShape.idleSeconds(chain, "client", "A", 1_000_000, rates), 1e-12);
    // With fast racks the client's NIC bounds it: one range at 10 MB/s.
    assertEquals(0.1, DegradedReadShape.idleSeconds(chain, "client", "C", 1_000_000,
        new LinkRates(10_000_000, 1e12)), 1e-12);
  }
}
