package org.wideec.repair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.topology.Site;

/**
 * The decommission planner's choice per unit between a copy from the leaving node and a rebuild from the other units,
 * on hand-built layouts whose fastest split is known, and against a brute force over every split.
 */
class DecommissionCopyOrRebuildTest {
  /** Units 0-5 data, 6-7 global parities, 8 and 9 the local parities of {0,1,2} and {3,4,5}. */
  private static final LinearCode LRC = Codes.fromSpec("azure-lrc:k=6,l=2,g=2");
  private static final long UNIT = 1000;
  private static final String LEAVING = "a0";

  /**
   * A stripe with unit 0 on the leaving node a0 (rack A), units 1, 2 and 8 (the rest of its local group) on the given
   * nodes, the second local group in rack C and the global parities in rack D.
   */
  private static DecommissionPlanner.LeavingStripe stripe(String name, Site u1, Site u2, Site u8) {
    Map<Integer, UnitLocation> units = new HashMap<>();
    units.put(0, new UnitLocation(0, new Site(LEAVING, "/A")));
    units.put(1, new UnitLocation(1, u1));
    units.put(2, new UnitLocation(2, u2));
    units.put(8, new UnitLocation(8, u8));
    int[] second = {3, 4, 5, 9};
    for (int i = 0; i < second.length; i++) {
      units.put(second[i], new UnitLocation(second[i], new Site("c" + i, "/C")));
    }
    units.put(6, new UnitLocation(6, new Site("d0", "/D")));
    units.put(7, new UnitLocation(7, new Site("d1", "/D")));
    long[] lengths = new long[LRC.n()];
    Arrays.fill(lengths, UNIT);
    return new DecommissionPlanner.LeavingStripe(name, LRC, units, Set.of(), lengths, 4);
  }

  /** Nodes t0.. in rack A that hold nothing: the only targets offered. */
  private static List<Site> targets(int n) {
    List<Site> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(new Site("t" + i, "/A"));
    }
    return out;
  }

  private static DecommissionPlan plan(List<DecommissionPlanner.LeavingStripe> stripes, LinkRates rates) {
    return new DecommissionPlanner(RepairScheme.PIPELINED, RackLinkLoad.Links.FULL_DUPLEX, rates)
        .plan(Set.of(LEAVING), stripes, targets(stripes.size()));
  }

  /** The shortest time over every split of copies and rebuilds, from each unit's two ways as the plan priced them. */
  private static double bruteForceSeconds(DecommissionPlan plan, LinkRates rates) {
    List<DecommissionPlan.Rebuild> r = plan.rebuilds();
    double best = Double.MAX_VALUE;
    for (int mask = 0; mask < 1 << r.size(); mask++) {
      RackLinkLoad load = new RackLinkLoad(RackLinkLoad.Links.FULL_DUPLEX);
      boolean possible = true;
      for (int i = 0; i < r.size(); i++) {
        boolean other = (mask >> i & 1) == 1;
        possible &= !other || r.get(i).otherWay() != null;
        load.add(other && r.get(i).otherWay() != null ? r.get(i).otherWay() : r.get(i).flows(), 1);
      }
      if (possible) {
        best = Math.min(best, load.seconds(rates));
      }
    }
    return best;
  }

  private static String ways(DecommissionPlan plan) {
    StringBuilder b = new StringBuilder();
    plan.rebuilds().forEach(r -> b.append(r.fromLeavingNode() ? 'C' : 'R'));
    return b.toString();
  }

  @Test
  void aNodeWithFewUnitsOnAFastLinkCopiesEachWhereTheRebuildsWouldCrossASlowRackLink() {
    // Each unit's local group is in rack B, its target in its own rack A: a rebuild sends one unit over B's uplink and
    // A's downlink (10 s each at 100 bytes/s), a copy one unit over a0's NIC (1 s at 1000 bytes/s).
    List<DecommissionPlanner.LeavingStripe> stripes = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      stripes.add(stripe("s" + i, new Site("b" + (3 * i), "/B"), new Site("b" + (3 * i + 1), "/B"),
          new Site("b" + (3 * i + 2), "/B")));
    }
    LinkRates rates = new LinkRates(1000, 100);
    DecommissionPlan plan = plan(stripes, rates);

    assertEquals("CCC", ways(plan), plan.describe());
    for (DecommissionPlan.Rebuild r : plan.rebuilds()) {
      assertEquals(List.of(new UnitLocation(0, new Site(LEAVING, "/A"))), r.helpers(), "read from a0 only");
      assertEquals("/A", r.target().rack());
      assertEquals(0, r.crossRackBytes());
    }
    assertEquals(3.0, plan.predictedSeconds(), "a0's NIC sends 3 units at 1000 bytes/s");
    assertEquals(bruteForceSeconds(plan, rates), plan.predictedSeconds());
    assertTrue(plan.describe().contains("0 rebuilt, 3 copied from the leaving node") && plan.describe()
        .contains("predicted 3.0 s"), plan.describe());
  }

  @Test
  void aNodeWithManyUnitsHasItsLocalGroupsRebuildAllButOneWhileItsNicCopiesThatOne() {
    // Ten units whose local groups sit on thirty distinct nodes of rack A: every rebuild puts one unit on each of its
    // own NICs, so rebuilding all takes one unit's time, as does one copy; a second copy doubles a0's time.
    List<DecommissionPlanner.LeavingStripe> stripes = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      stripes.add(stripe("s" + i, new Site("h" + (3 * i), "/A"), new Site("h" + (3 * i + 1), "/A"),
          new Site("h" + (3 * i + 2), "/A")));
    }
    LinkRates rates = new LinkRates(100, 100);
    DecommissionPlan plan = plan(stripes, rates);

    assertEquals(1, plan.fromLeavingNode(), plan.describe());
    assertEquals(9, plan.rebuilds().size() - plan.fromLeavingNode(), plan.describe());
    assertEquals(10.0, plan.predictedSeconds(), "one unit per link at 100 bytes/s");
    assertEquals(bruteForceSeconds(plan, rates), plan.predictedSeconds());
    for (DecommissionPlan.Rebuild r : plan.rebuilds()) {
      if (!r.fromLeavingNode()) {
        assertEquals(Set.of(1, 2, 8), Set.copyOf(Arrays.stream(r.helpers().stream().mapToInt(UnitLocation::unit)
            .toArray()).boxed().toList()), "rebuilt from its local group: " + r);
      }
    }
  }

  @Test
  void aMixedSplitIsTheBruteForceOptimumWithItsCopiesSpreadAmongTheRebuilds() {
    // Six units whose local groups rotate over the six helpers a1..a6: rebuilding all sends three units from every
    // helper; copying two units with disjoint helpers leaves two per helper and two on a0, and a third copy puts
    // three on a0. So the fastest split copies exactly two.
    List<DecommissionPlanner.LeavingStripe> stripes = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      stripes.add(stripe("s" + i, new Site("a" + (i % 6 + 1), "/A"), new Site("a" + ((i + 1) % 6 + 1), "/A"),
          new Site("a" + ((i + 2) % 6 + 1), "/A")));
    }
    LinkRates rates = new LinkRates(100, 100);
    DecommissionPlan plan = plan(stripes, rates);

    assertEquals(bruteForceSeconds(plan, rates), plan.predictedSeconds(), plan.describe());
    assertEquals(20.0, plan.predictedSeconds(), plan.describe());
    assertEquals("RCRRCR", ways(plan), "two copies, spread among the four rebuilds: " + plan.describe());
    List<Integer> copied = plan.rebuilds().stream().filter(DecommissionPlan.Rebuild::fromLeavingNode)
        .map(r -> Integer.parseInt(r.stripe().substring(1))).sorted().toList();
    assertEquals(3, copied.get(1) - copied.get(0), "the copied units' local groups share no helper: " + copied);
    assertEquals(2 * UNIT, plan.load().nodeBytes().get("out " + LEAVING).longValue());
  }

  @Test
  void withoutLinkRatesEveryUnitTheOthersCanRebuildIsRebuilt() {
    List<DecommissionPlanner.LeavingStripe> stripes = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      stripes.add(stripe("s" + i, new Site("b" + (3 * i), "/B"), new Site("b" + (3 * i + 1), "/B"),
          new Site("b" + (3 * i + 2), "/B")));
    }
    DecommissionPlan plan = new DecommissionPlanner(RepairScheme.PIPELINED).plan(Set.of(LEAVING), stripes, targets(3));
    assertEquals("RRR", ways(plan));
    assertTrue(Double.isNaN(plan.predictedSeconds()));
  }

  @Test
  void theWorkInFlightTurnsALoneUnitFromTheCopyItWouldTakeAloneToARebuild() {
    // Alone, one unit of the many-units layout is copied (a tie on time, and fewer busy links); with a copy of the
    // same size already leaving a0, copying it too would double a0's time, so it is rebuilt.
    DecommissionPlanner.LeavingStripe s = stripe("s0", new Site("h0", "/A"), new Site("h1", "/A"),
        new Site("h2", "/A"));
    LinkRates rates = new LinkRates(100, 100);
    assertEquals("C", ways(plan(List.of(s), rates)));
    RackLinkLoad inFlight = new RackLinkLoad(RackLinkLoad.Links.FULL_DUPLEX);
    inFlight.addNodeTransfer(LEAVING, "t9", UNIT);
    DecommissionPlan plan = new DecommissionPlanner(RepairScheme.PIPELINED, RackLinkLoad.Links.FULL_DUPLEX, rates)
        .plan(Set.of(LEAVING), List.of(s), targets(1), inFlight);
    assertEquals("R", ways(plan), plan.describe());
    assertEquals(10.0, plan.predictedSeconds());
  }

  @Test
  void aRepairWhoseOnlyInputIsTheLostUnitsOwnReplicaIsACopyOfIt() {
    UnitLocation from = new UnitLocation(4, new Site(LEAVING, "/A"));
    StripeRepair copy = StripeRepair.copy("g", LRC, 4, UNIT, from, new BlockRef("bp", 7, 1, UNIT, new byte[0]),
        RepairScheme.RACK_AGGREGATED);
    assertTrue(copy.copies());
    RepairGraph g = SingleUnitRepairPlanner.plan(copy.scheme(), LRC, 4, copy.survivors(), "t0", "/A",
        LinkWeights.UNIFORM, copy.preference());
    assertEquals(List.of(new RepairStep(from, 1, RepairStep.REQUESTOR)), g.steps());
    assertTrue(!StripeRepair.of("g", LRC, new int[] {4}, new long[] {UNIT}, Map.of(3, from), Map.of(), Set.of(),
        RepairScheme.PIPELINED).copies());
  }

  @Test
  void anArchivedUnitIsPricedAtTheTargetItsStripesPlanChoseWithExactBytesPerLink() {
    // The stripe's plan puts unit 0 in rack B, where its local group lives: both ways land on b3 there, not on t0 in
    // the leaving rack the planner would pick. The copy crosses A's uplink and B's downlink (10 s at 100 bytes/s), the
    // rebuild stays in rack B (1 s per NIC at 1000 bytes/s): rebuilt.
    DecommissionPlanner.LeavingStripe s = stripe("archived", new Site("b0", "/B"), new Site("b1", "/B"),
        new Site("b2", "/B")).withTargets(Map.of(0, new Site("b3", "/B")));
    LinkRates rates = new LinkRates(1000, 100);
    DecommissionPlan plan = new DecommissionPlanner(RepairScheme.PIPELINED, RackLinkLoad.Links.FULL_DUPLEX, rates)
        .plan(Set.of(LEAVING), List.of(s), List.of(new Site("t0", "/A"), new Site("b3", "/B")));

    assertEquals("R", ways(plan), plan.describe());
    DecommissionPlan.Rebuild r = plan.rebuilds().get(0);
    assertEquals(new Site("b3", "/B"), r.target());
    List<String> chain = r.helpers().stream().map(UnitLocation::node).toList();
    assertEquals(Set.of("b0", "b1", "b2"), Set.copyOf(chain));
    Map<String, Long> expected = new java.util.TreeMap<>();
    for (int i = 0; i < chain.size(); i++) {
      expected.put("out " + chain.get(i), UNIT);
      expected.put("in " + (i + 1 < chain.size() ? chain.get(i + 1) : "b3"), UNIT);
    }
    assertEquals(expected, plan.load().nodeBytes());
    assertEquals(Map.of(), plan.load().bytes(), "the rebuild crosses no rack link");
    assertEquals(0, r.crossRackBytes());
    assertEquals(Map.of("up /A", UNIT, "down /B", UNIT), r.otherWay().bytes(), "the copy's rack links");
    assertEquals(Map.of("out " + LEAVING, UNIT, "in b3", UNIT), r.otherWay().nodeBytes(), "the copy's NICs");
    assertEquals(1.0, plan.predictedSeconds());

    // With the rack links as fast as the NICs the copy, loading four links where the rebuild loads six, is taken.
    DecommissionPlan fast = new DecommissionPlanner(RepairScheme.PIPELINED, RackLinkLoad.Links.FULL_DUPLEX,
        new LinkRates(1000, 1000)).plan(Set.of(LEAVING), List.of(s), List.of(new Site("b3", "/B")));
    assertEquals("C", ways(fast), fast.describe());
    assertEquals(Map.of("up /A", UNIT, "down /B", UNIT), fast.load().bytes());
    assertEquals(Map.of("out " + LEAVING, UNIT, "in b3", UNIT), fast.load().nodeBytes());
  }

  @Test
  void aUnitWhoseChosenTargetIsLeavingTooIsLeftUnplacedSayingSo() {
    DecommissionPlanner.LeavingStripe s = stripe("archived", new Site("b0", "/B"), new Site("b1", "/B"),
        new Site("b2", "/B")).withTargets(Map.of(0, new Site("b3", "/B")));
    DecommissionPlan plan = new DecommissionPlanner(RepairScheme.PIPELINED, RackLinkLoad.Links.FULL_DUPLEX,
        new LinkRates(1000, 100)).plan(Set.of(LEAVING, "b3"), List.of(s), List.of(new Site("b3", "/B")));
    assertEquals(0, plan.rebuilds().size());
    assertEquals(1, plan.unplaced().size());
    assertEquals("its target b3 is leaving too", plan.unplaced().get(0).why());
  }
}
