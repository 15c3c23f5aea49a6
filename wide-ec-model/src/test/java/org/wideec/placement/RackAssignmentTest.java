package org.wideec.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.wideec.code.StockStripedReader;

/** Plan racks onto real racks, for new groups and for rebuilt units. */
class RackAssignmentTest {
  // Azure-LRC 6+2+2 under plain combined locality (ECWide's packing): units 0-2 | 6-8 | 3-5 | 9.
  static final PlacementPlan PLAN = new CombinedLocalityPlanner().plan(org.wideec.coder.StripedCodec.AZURE_LRC_L2.codeFor(6, 4));

  static Map<String, Integer> free(int... perRack) {
    Map<String, Integer> m = new HashMap<>();
    for (int r = 0; r < perRack.length; r++) {
      m.put("/r" + r, perRack[r]);
    }
    return m;
  }

  static String[] racksAfter(Map<Integer, String> live, Map<Integer, String> rebuilt) {
    String[] racks = new String[PLAN.code().n()];
    live.forEach((u, r) -> racks[u] = r);
    rebuilt.forEach((u, r) -> racks[u] = r);
    return racks;
  }

  /** The group as placed: plan rack p in real rack /r(p). */
  static Map<Integer, String> placed(int... lost) {
    Map<Integer, String> live = new HashMap<>();
    for (int u = 0; u < PLAN.code().n(); u++) {
      live.put(u, "/r" + PLAN.rackOf(u));
    }
    for (int u : lost) {
      live.remove(u);
    }
    return live;
  }

  @Test
  void newGroupGetsOneDistinctRackWithRoomPerPlanRack() {
    Map<Integer, String> racks = RackAssignment.assign(PLAN, free(3, 1, 3, 3, 0), new Random(7));
    assertEquals(4, new HashSet<>(racks.values()).size());
    assertEquals("/r1", racks.get(3), "the only rack left with one free node takes the one-unit plan rack");
    PlacementException e = assertThrows(PlacementException.class,
        () -> RackAssignment.assign(PLAN, free(3, 3, 2, 1, 0), new Random(7)));
    assertTrue(e.getMessage().contains("3 free nodes"), e.getMessage());
  }

  @Test
  void aRebuiltUnitGoesBackToItsPlanRack() {
    Map<Integer, String> live = placed(1);
    Map<Integer, String> out = RackAssignment.repairRacks(PLAN, live, new int[] {1}, free(1, 4, 1, 4, 4));
    assertEquals(Map.of(1, "/r0"), out);
    assertTrue(StripedPlacement.holds(PLAN, racksAfter(live, out)));
  }

  @Test
  void aShortGroupsLostDataUnitTakesAnEmptyRackNotTheFullestOne() {
    // A group of one data unit holds units 0, 6, 7, 8, 9 (racks /r0, /r1 x3, /r3); /r2 stays empty (units 3-5
    // never existed). Losing unit 0 leaves /r3 the fullest rack below the limit: the index-blind rule would
    // put unit 0 next to unit 9 and break the plan.
    Map<Integer, String> live = new HashMap<>(Map.of(6, "/r1", 7, "/r1", 8, "/r1", 9, "/r3"));
    assertEquals("/r3", RackAssignment.repairRack(Map.of("/r1", 3, "/r3", 1), free(2, 1, 4, 3, 2), 3));
    Map<Integer, String> out = RackAssignment.repairRacks(PLAN, live, new int[] {0}, free(2, 1, 4, 3, 2));
    assertEquals(Map.of(0, "/r2"), out, "the empty rack with the most free nodes");
    assertTrue(StripedPlacement.holds(PLAN, racksAfter(live, out)));
  }

  @Test
  void lostUnitsOfOnePlanRackStayTogether() {
    Map<Integer, String> live = placed(3, 4, 5);
    Map<Integer, String> out = RackAssignment.repairRacks(PLAN, live, new int[] {3, 4, 5}, free(1, 1, 0, 1, 3, 3));
    assertEquals(1, new HashSet<>(out.values()).size(), out.toString());
    assertEquals("/r4", out.get(3));
    assertTrue(StripedPlacement.holds(PLAN, racksAfter(live, out)));
  }

  @Test
  void aFullPlanRackFallsBackToAnyRackBelowTheLimit() {
    Map<Integer, String> live = placed(1);
    Map<Integer, String> out = RackAssignment.repairRacks(PLAN, live, new int[] {1}, free(0, 2, 1, 2, 2));
    assertNotEquals("/r0", out.get(1));
    Map<String, Integer> perRack = new HashMap<>();
    for (String r : racksAfter(live, out)) {
      perRack.merge(r, 1, Integer::sum);
    }
    assertTrue(perRack.values().stream().allMatch(c -> c <= PLAN.maxUnitsPerRack()), perRack.toString());
    assertEquals("/r3", out.get(1), "the fullest rack below the limit of 3 units");
  }

  @Test
  void aUnitWithNoRackBelowTheCapTakesTheRackWhoseLossStaysDecodableNotTheFirstByName() {
    // Unit 1's rack /r0 has no free node; /r1 {6,7,8} and /r2 {3,4,5} are at the cap of 3. With unit 1, /r1's loss
    // would erase G1, G2 and L1 with a data unit of the first local group: only L2 is left, which does not reach it.
    // /r2's loss erases {1,3,4,5}: L1 rebuilds unit 1, G1, G2 and L2 the other three.
    Map<Integer, String> live = placed(1);
    RackAssignment.RepairPlacement out = RackAssignment.repairPlacement(PLAN, live, new int[] {1}, free(0, 1, 1, 0));
    assertEquals(Map.of(1, "/r2"), out.racks());
    assertTrue(PLAN.code().isDecodable(1, 3, 4, 5) && !PLAN.code().isDecodable(1, 6, 7, 8));
    assertEquals(Set.of(1), out.beyondCap().keySet());
    assertTrue(out.beyondCap().get(1).contains("/r2 takes unit 1 and holds 4, units [1, 3, 4, 5]: its loss stays"
        + " decodable"), out.beyondCap().get(1));
    // The index-blind rule (the group unknown) cannot judge decodability: it still refuses.
    PlacementException e = assertThrows(PlacementException.class,
        () -> RackAssignment.repairRack(Map.of("/r1", 3, "/r2", 3), free(0, 1, 1, 0), 3));
    assertTrue(e.getMessage().contains("already holds 3 units"), e.getMessage());
  }

  @Test
  void noFreeNodeAnywhereIsAnErrorNamingTheUnits() {
    Map<Integer, String> live = placed(1, 2);
    PlacementException e = assertThrows(PlacementException.class,
        () -> RackAssignment.repairRacks(PLAN, live, new int[] {1, 2}, free(0, 0, 0, 0)));
    assertEquals("no rack has a free node for lost unit 1 (the group lost units [1, 2])", e.getMessage());
  }

  /** Azure-LRC 12+2+2 on its stock-readable plan, plan rack p in real rack /r(p): the racks of the cluster bench. */
  static final PlacementPlan WIDE = StripedPlacement.planFor("azure-lrc-l2", 12, 4, StripedPlacement.AUTO);

  static String rackOf(int unit) {
    return "/r" + WIDE.rackOf(unit);
  }

  /** Free nodes per rack of 4 nodes, for the racks named, after the group's live units. */
  static Map<String, Integer> freeOfFour(Map<Integer, String> live, String... racks) {
    Map<String, Integer> m = new HashMap<>();
    for (String r : racks) {
      m.put(r, 4 - (int) live.values().stream().filter(r::equals).count());
    }
    return m;
  }

  @Test
  void aWholeRackOfTwelveTwoTwoLostLeavesOneUnitBeyondTheCapInARackWhoseLossStaysReadable() {
    // Plan racks: {0,1,2} {3,4,5} {G1,G2,L1} {6,7} {8,9} {10,11,L2}, 6 racks of 4 nodes. The rack of {0,1,2} is
    // lost: the 5 others hold 13 units with room for 2 below the cap of 3, so one of the 3 lost units must go beyond.
    assertEquals("[[0, 1, 2], [3, 4, 5], [12, 13, 14], [6, 7], [8, 9], [10, 11, 15]]", unitsByPlanRack(WIDE));
    Map<Integer, String> live = new HashMap<>();
    for (int u = 3; u < 16; u++) {
      live.put(u, rackOf(u));
    }
    Map<String, Integer> free = freeOfFour(live, "/r1", "/r2", "/r3", "/r4", "/r5");
    RackAssignment.RepairPlacement out = RackAssignment.repairPlacement(WIDE, live, new int[] {0, 1, 2}, free);
    // Units 0 and 1 fill the two racks below the cap (stock-readable with them); unit 2 goes beyond the cap. {3,4,5}
    // and {G1,G2,L1} would not decode without it; the three others would, and stock-readably: the first by name.
    assertEquals(Map.of(0, "/r3", 1, "/r4", 2, "/r3"), out.racks());
    assertEquals(Set.of(2), out.beyondCap().keySet());
    assertTrue(out.beyondCap().get(2).endsWith("/r3 takes unit 2 and holds 4, units [0, 2, 6, 7]: its loss stays"
        + " decodable and readable by a stock client"), out.beyondCap().get(2));
    assertTrue(!WIDE.code().isDecodable(2, 3, 4, 5) && !WIDE.code().isDecodable(2, 12, 13, 14));
    // After the rebuild every rack's loss still decodes and reads through a stock client.
    Map<String, List<Integer>> byRack = new TreeMap<>();
    live.forEach((u, r) -> byRack.computeIfAbsent(r, x -> new ArrayList<>()).add(u));
    out.racks().forEach((u, r) -> byRack.computeIfAbsent(r, x -> new ArrayList<>()).add(u));
    for (List<Integer> units : byRack.values()) {
      int[] erased = units.stream().mapToInt(Integer::intValue).toArray();
      assertTrue(StockStripedReader.canReadEveryStripe(WIDE.code(), 12, erased), units.toString());
    }
  }

  @Test
  void beyondTheCapARackWhoseLossStaysDecodableWinsOverOneFirstByNameWhoseLossWouldNot() {
    // Unit 2 is lost on its own; its rack and the racks below the cap have no free node. /r1 {3,4,5} comes first by
    // name and holds as many units as /r5 {10,11,L2}, but with unit 2 it would hold four data units of the first
    // local group, three more than L1 rebuilds and G1, G2 cannot make up: /r5.
    Map<Integer, String> live = new HashMap<>();
    for (int u = 0; u < 16; u++) {
      if (u != 2) {
        live.put(u, rackOf(u));
      }
    }
    Map<String, Integer> free = Map.of("/r0", 0, "/r1", 1, "/r2", 0, "/r3", 0, "/r4", 0, "/r5", 1);
    RackAssignment.RepairPlacement out = RackAssignment.repairPlacement(WIDE, live, new int[] {2}, free);
    assertEquals(Map.of(2, "/r5"), out.racks());
    assertTrue(out.beyondCap().get(2).contains("units [2, 10, 11, 15]: its loss stays decodable"),
        out.beyondCap().get(2));
    // Only /r1 with a free node: placed there all the same (HDFS would too), and the plan says what that costs.
    out = RackAssignment.repairPlacement(WIDE, live, new int[] {2}, Map.of("/r1", 1));
    assertEquals(Map.of(2, "/r1"), out.racks());
    assertTrue(out.beyondCap().get(2).contains("its loss would NOT be decodable"), out.beyondCap().get(2));
  }

  @Test
  void beyondTheCapARackWhoseLossAStockClientReadsThroughWinsOverOneOnlyTheCodeDecodes() {
    // 12+2+2 two units a rack: {0,1} {2,3} {4,5} {6,7} {8,9} {10,11} {G1,G2} {L1,L2}; the rack of {8,9} is lost and
    // only /r3 {6,7} and /r7 {L1,L2} have free nodes, both at the cap. {6,7,8} decodes (by G1, G2, L2) but a stock
    // client reads it with G1, G2, L1 and fails; {8,L1,L2} it reads with G1: unit 8 goes to /r7 though /r3 comes
    // first by name. Unit 9 then has /r3 left only: decodable there, not by the stock reader, and the plan says so.
    PlacementPlan pairs = new PlacementPlan("pairs", WIDE.code(), new int[] {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
        7, 7});
    Map<Integer, String> live = new HashMap<>();
    for (int u = 0; u < 16; u++) {
      if (u != 8 && u != 9) {
        live.put(u, "/r" + pairs.rackOf(u));
      }
    }
    RackAssignment.RepairPlacement out = RackAssignment.repairPlacement(pairs, live, new int[] {8, 9},
        Map.of("/r3", 2, "/r7", 1));
    assertEquals(Map.of(8, "/r7", 9, "/r3"), out.racks());
    assertTrue(out.beyondCap().get(8).endsWith("units [8, 14, 15]: its loss stays decodable and readable by a stock"
        + " client"), out.beyondCap().get(8));
    assertTrue(out.beyondCap().get(9).endsWith("units [6, 7, 9]: its loss stays decodable, though not by a stock"
        + " client's parity choice"), out.beyondCap().get(9));
  }

  static String unitsByPlanRack(PlacementPlan plan) {
    List<String> racks = new ArrayList<>();
    for (int p = 0; p < plan.racks(); p++) {
      racks.add(Arrays.toString(plan.units(p)));
    }
    return racks.toString();
  }

  @Test
  void offPlanARebuiltUnitAvoidsARackWhoseLossTheStockReaderCouldNotReadThrough() {
    // Azure-LRC 12+2+2, stock-readable plan: {0,1,2} {3,4,5} {G1,G2,L1} {6,7} {8,9} {10,11,L2}. Unit 8 is lost and
    // its rack has no free node: {6,7} has room, but {6,7,8} would be read with G1, G2, L1 and fail.
    PlacementPlan plan = StripedPlacement.planFor("azure-lrc-l2", 12, 4, StripedPlacement.AUTO);
    Map<Integer, String> live = new HashMap<>();
    for (int u = 0; u < 16; u++) {
      if (u != 8) {
        live.put(u, "/r" + plan.rackOf(u));
      }
    }
    Map<Integer, String> out = RackAssignment.repairRacks(plan, live, new int[] {8}, free(1, 1, 1, 1, 0, 1, 1));
    assertEquals("/r6", out.get(8));
  }
}
