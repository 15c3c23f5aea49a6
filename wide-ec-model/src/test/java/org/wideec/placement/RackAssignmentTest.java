package org.wideec.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

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
  void noRoomAnywhereIsAnError() {
    Map<Integer, String> live = placed(1);
    PlacementException e = assertThrows(PlacementException.class,
        () -> RackAssignment.repairRacks(PLAN, live, new int[] {1}, free(0, 1, 1, 0)));
    assertTrue(e.getMessage().contains("already holds 3 units"), e.getMessage());
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
