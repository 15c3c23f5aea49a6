package org.wideec.repair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.topology.Site;

class DecommissionPlannerTest {
  /** Units 0-5 data, 6-7 global parities, 8 and 9 the local parities of {0,1,2} and {3,4,5}. */
  private static final LinearCode LRC = Codes.fromSpec("azure-lrc:k=6,l=2,g=2");
  private static final long UNIT = 1000;

  /** Racks A, B, C with nodes a0..a6, b0..b6, c0..c6. */
  private static List<Site> cluster() {
    List<Site> all = new ArrayList<>();
    for (String r : new String[] {"A", "B", "C"}) {
      for (int i = 0; i < 7; i++) {
        all.add(new Site(r.toLowerCase() + i, "/" + r));
      }
    }
    return all;
  }

  /**
   * One local group per rack: {0,1,2,8} in A, {3,4,5,9} in B, the global parities in C; unit u of the stripe on
   * node (rack letter)(position + shift).
   */
  private static DecommissionPlanner.LeavingStripe stripe(String name, int shift, Set<Integer> absent) {
    Map<Integer, UnitLocation> units = new HashMap<>();
    int[][] racks = {{0, 1, 2, 8}, {3, 4, 5, 9}, {6, 7}};
    String[] letters = {"a", "b", "c"};
    for (int r = 0; r < racks.length; r++) {
      for (int i = 0; i < racks[r].length; i++) {
        int u = racks[r][i];
        if (!absent.contains(u)) {
          String node = letters[r] + ((i + shift) % 7);
          units.put(u, new UnitLocation(u, new Site(node, "/" + letters[r].toUpperCase())));
        }
      }
    }
    long[] lengths = new long[LRC.n()];
    java.util.Arrays.fill(lengths, UNIT);
    return new DecommissionPlanner.LeavingStripe(name, LRC, units, Set.of(), lengths, 4);
  }

  @Test
  void aLeavingDataUnitIsRebuiltFromItsLocalGroupInItsOwnRackWithNothingAcrossRacks() {
    DecommissionPlan plan = new DecommissionPlanner(RepairScheme.PIPELINED)
        .plan(Set.of("a0"), List.of(stripe("s1", 0, Set.of())), cluster());
    assertEquals(1, plan.rebuilds().size());
    DecommissionPlan.Rebuild r = plan.rebuilds().get(0);
    assertEquals(0, r.unit());
    assertEquals("/A", r.target().rack());
    assertFalse(Set.of("a0", "a1", "a2", "a3").contains(r.target().node()), "a node holding no unit: " + r.target());
    assertEquals(Set.of(1, 2, 8), units(r.helpers()));
    assertFalse(r.fromLeavingNode());
    assertEquals(0, r.crossRackBytes());
    assertEquals(0, plan.fromLeavingNode());
    assertEquals(UNIT, plan.bytes());
  }

  @Test
  void aGlobalParityIsRebuiltWithoutReadingTheLeavingNodeAndIsCostedAcrossRacks() {
    DecommissionPlan plan = new DecommissionPlanner(RepairScheme.PIPELINED)
        .plan(Set.of("c0"), List.of(stripe("s1", 0, Set.of())), cluster());
    DecommissionPlan.Rebuild r = plan.rebuilds().get(0);
    assertEquals(6, r.unit());
    assertEquals("/C", r.target().rack());
    assertFalse(r.helpers().stream().anyMatch(h -> h.node().equals("c0")), "the leaving node is no helper");
    assertTrue(r.crossRackBytes() >= UNIT, "a global parity reads data units in other racks: " + r);
    assertEquals(r.crossRackBytes(), plan.crossRackBytes());
  }

  @Test
  void manyStripesOnOneLeavingNodeSpreadTheirTargetsAndHelpersLeastRecentlySelected() {
    // Three stripes with unit 0 on a0; the others of rack A shifted so each stripe's spare nodes differ in part.
    List<DecommissionPlanner.LeavingStripe> stripes = List.of(stripe("s1", 0, Set.of()), stripe("s2", 0, Set.of()),
        stripe("s3", 0, Set.of()));
    DecommissionPlan plan = new DecommissionPlanner(RepairScheme.PIPELINED).plan(Set.of("a0"), stripes, cluster());
    assertEquals(3, plan.rebuilds().size());
    Set<String> targets = new HashSet<>();
    plan.rebuilds().forEach(r -> targets.add(r.target().node()));
    assertEquals(3, targets.size(), "three requestors at once, not one: " + plan.describe());
    assertTrue(targets.stream().allMatch(t -> Set.of("a4", "a5", "a6").contains(t)), plan.describe());
  }

  @Test
  void aUnitTheOthersCannotRebuildIsCopiedFromTheLeavingNodeAndThePlanSaysSo() {
    // Units 1, 2 and 8 are gone: unit 0's local group is empty and two global parities cannot solve three unknowns.
    DecommissionPlan plan = new DecommissionPlanner(RepairScheme.PIPELINED)
        .plan(Set.of("a0"), List.of(stripe("s1", 0, Set.of(1, 2, 8))), cluster());
    DecommissionPlan.Rebuild r = plan.rebuilds().get(0);
    assertTrue(r.fromLeavingNode());
    assertEquals(List.of("a0"), r.helpers().stream().map(UnitLocation::node).toList());
    assertEquals(0, r.crossRackBytes(), "copied within rack A");
    assertEquals(1, plan.fromLeavingNode());
    assertTrue(plan.describe().contains("copied from the leaving node"), plan.describe());
  }

  @Test
  void withNoNodeKeepingThePlacementTheUnitIsLeftToHdfs() {
    // Every candidate holds a unit of the stripe already.
    List<Site> only = List.of(new Site("a0", "/A"), new Site("a1", "/A"), new Site("b0", "/B"));
    DecommissionPlan plan = new DecommissionPlanner(RepairScheme.PIPELINED)
        .plan(Set.of("a0"), List.of(stripe("s1", 0, Set.of())), only);
    assertEquals(0, plan.rebuilds().size());
    assertEquals(1, plan.unplaced().size());
    assertEquals(0, plan.unplaced().get(0).unit());
    assertTrue(plan.describe().contains("left to HDFS"), plan.describe());
  }

  @Test
  void twoLeavingUnitsOfOneStripeGoToTwoNodesAndNeitherReadsTheOther() {
    DecommissionPlan plan = new DecommissionPlanner(RepairScheme.RACK_AGGREGATED)
        .plan(Set.of("a0", "a1"), List.of(stripe("s1", 0, Set.of())), cluster());
    assertEquals(2, plan.rebuilds().size());
    assertFalse(plan.rebuilds().get(0).target().equals(plan.rebuilds().get(1).target()));
    for (DecommissionPlan.Rebuild r : plan.rebuilds()) {
      assertFalse(r.helpers().stream().anyMatch(h -> Set.of("a0", "a1").contains(h.node())), r.toString());
      assertFalse(r.fromLeavingNode());
    }
  }

  /**
   * A plan that a stock client reads through the loss of any rack: A {0,1,8}, B {3,4,9}, C {2,5}, D {6,7} (each
   * rack loses at most two data units, which the two global parities cover). Rack C has no spare node; D has room
   * below the limit of 3, but D holding {5,6,7} would not be stock-readable: with data unit 5 gone the stock reader
   * takes the lowest surviving parity, L1 (unit 8), which does not cover unit 5, and never tries another.
   */
  private static DecommissionPlanner.LeavingStripe stockReadablyPlaced() {
    int[] rackOf = {0, 0, 2, 1, 1, 2, 3, 3, 0, 1};
    String[] racks = {"/A", "/B", "/C", "/D"};
    Map<Integer, UnitLocation> units = new HashMap<>();
    Map<String, Integer> used = new HashMap<>();
    for (int u = 0; u < rackOf.length; u++) {
      String rack = racks[rackOf[u]];
      int i = used.merge(rack, 1, Integer::sum) - 1;
      units.put(u, new UnitLocation(u, new Site(rack.substring(1).toLowerCase() + i, rack)));
    }
    long[] lengths = new long[LRC.n()];
    java.util.Arrays.fill(lengths, UNIT);
    org.wideec.placement.PlacementPlan plan = new org.wideec.placement.PlacementPlan("test", LRC, rackOf);
    assertEquals(List.of(), org.wideec.placement.StockReadablePlacement.unreadableRacks(plan), "the plan is readable");
    return new DecommissionPlanner.LeavingStripe("s1", LRC, units, Set.of(), lengths, plan.maxUnitsPerRack(), plan);
  }

  @Test
  void aFallbackRackWhoseLossAStockClientCouldNotReadThroughIsNeverChosenAndThePlanSaysWhy() {
    // Unit 5 leaves with c1; c0 holds unit 2; every other rack has one spare node.
    List<Site> nodes = List.of(new Site("a0", "/A"), new Site("a1", "/A"), new Site("a2", "/A"), new Site("a3", "/A"),
        new Site("b0", "/B"), new Site("b1", "/B"), new Site("b2", "/B"), new Site("b3", "/B"), new Site("c0", "/C"),
        new Site("c1", "/C"), new Site("d0", "/D"), new Site("d1", "/D"), new Site("d2", "/D"));
    DecommissionPlan plan = new DecommissionPlanner(RepairScheme.PIPELINED)
        .plan(Set.of("c1"), List.of(stockReadablyPlaced()), nodes);
    assertEquals(List.of(), plan.rebuilds(), plan.describe());
    assertEquals(1, plan.unplaced().size(), plan.describe());
    assertEquals(5, plan.unplaced().get(0).unit());
    assertTrue(plan.unplaced().get(0).why().contains(
        "a stock client could not read through the loss of /D (units [5, 6, 7])"), plan.describe());
  }

  @Test
  void aFallbackRackThatKeepsThePlansGuaranteesIsStillChosen() {
    // Rack E, holding no unit, takes unit 5 and a stock client reads through the loss of {5}.
    List<Site> nodes = List.of(new Site("c0", "/C"), new Site("c1", "/C"), new Site("d2", "/D"), new Site("e0", "/E"));
    DecommissionPlan plan = new DecommissionPlanner(RepairScheme.PIPELINED)
        .plan(Set.of("c1"), List.of(stockReadablyPlaced()), nodes);
    assertEquals(List.of(), plan.unplaced(), plan.describe());
    assertEquals(new Site("e0", "/E"), plan.rebuilds().get(0).target());
  }

  private static Set<Integer> units(List<UnitLocation> helpers) {
    Set<Integer> s = new HashSet<>();
    helpers.forEach(h -> s.add(h.unit()));
    return s;
  }
}
