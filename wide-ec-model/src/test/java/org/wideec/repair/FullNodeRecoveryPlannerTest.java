package org.wideec.repair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.wideec.analysis.PlanGuarantees;
import org.wideec.placement.PlacementPlan;
import org.wideec.placement.RackAssignment;
import org.wideec.placement.StripedPlacement;

/**
 * Full-node recovery spread over the rack links, on the real plans of the real cluster's shape (6 racks of 4
 * DataNodes, groups placed as the NameNode places them): for every single-node loss, every group keeps its plan's
 * guarantees, and the busiest rack link carries no more than with every unit sent back to its planned rack, and
 * strictly less wherever one valid move of one rebuild would already lower it.
 */
class FullNodeRecoveryPlannerTest {
  static final int RACKS = 6;
  static final int PER_RACK = 4;
  static final long UNIT = 1 << 20;

  /** Groups placed on racks /r0../r5 of nodes /rR-nI: unit to node, per group. */
  record Cluster(PlacementPlan plan, List<Map<Integer, String>> groups) {
    static Cluster of(String codec, int k, int m, int groups, long seed) {
      PlacementPlan plan = StripedPlacement.planFor(codec, k, m, StripedPlacement.AUTO);
      Random random = new Random(seed);
      Map<String, Integer> free = new TreeMap<>();
      for (int r = 0; r < RACKS; r++) {
        free.put("/r" + r, PER_RACK);
      }
      List<Map<Integer, String>> out = new ArrayList<>();
      for (int g = 0; g < groups; g++) {
        Map<Integer, String> racks = RackAssignment.assign(plan, free, random);
        Map<Integer, String> nodes = new HashMap<>();
        for (int p = 0; p < plan.racks(); p++) {
          List<Integer> slots = new ArrayList<>(List.of(0, 1, 2, 3));
          java.util.Collections.shuffle(slots, random);
          int i = 0;
          for (int u : plan.units(p)) {
            nodes.put(u, racks.get(p) + "-n" + slots.get(i++));
          }
        }
        out.add(nodes);
      }
      return new Cluster(plan, out);
    }

    static String rackOf(String node) {
      return node.substring(0, node.indexOf('-'));
    }

    List<String> nodes() {
      List<String> out = new ArrayList<>();
      for (int r = 0; r < RACKS; r++) {
        for (int i = 0; i < PER_RACK; i++) {
          out.add("/r" + r + "-n" + i);
        }
      }
      return out;
    }

    /** What the NameNode knows of each group that held a unit on the dead nodes. */
    List<FullNodeRecoveryPlanner.GroupLoss> lossesOf(Set<String> dead) {
      List<FullNodeRecoveryPlanner.GroupLoss> out = new ArrayList<>();
      for (int g = 0; g < groups.size(); g++) {
        Map<Integer, String> nodes = groups.get(g);
        Map<Integer, String> live = new HashMap<>();
        List<Integer> lost = new ArrayList<>();
        nodes.forEach((u, n) -> {
          if (dead.contains(n)) {
            lost.add(u);
          } else {
            live.put(u, rackOf(n));
          }
        });
        if (lost.isEmpty()) {
          continue;
        }
        Map<String, Integer> free = new HashMap<>();
        for (String n : nodes()) {
          if (!dead.contains(n) && !nodes.containsValue(n)) {
            free.merge(rackOf(n), 1, Integer::sum);
          }
        }
        out.add(new FullNodeRecoveryPlanner.GroupLoss("g" + g, plan, live, lost.stream().mapToInt(Integer::intValue)
            .toArray(), Set.of(), free, UNIT));
      }
      return out;
    }
  }

  static final FullNodeRecoveryPlanner PLANNER =
      new FullNodeRecoveryPlanner(RepairScheme.RACK_AGGREGATED, RackLinkLoad.Links.FULL_DUPLEX);

  @ParameterizedTest
  @CsvSource({"azure-lrc-l2, 12, 4, true", "unilrc, 6, 6, false"})
  void everySingleNodeLossSpreadsItsRebuildsWithoutBreakingAnyGroupsPlan(String codec, int k, int m,
      boolean spreadLowersSomeBusiestLink) {
    Cluster c = Cluster.of(codec, k, m, 12, 17);
    PlanGuarantees guarantees = PlanGuarantees.of(c.plan());
    int strictlyLower = 0;
    int improvable = 0;
    long busiest = 0;
    long busiestPlanned = 0;
    for (String dead : c.nodes()) {
      List<FullNodeRecoveryPlanner.GroupLoss> losses = c.lossesOf(Set.of(dead));
      FullNodeRecoveryPlan plan = PLANNER.plan(losses, new RackLinkLoad(RackLinkLoad.Links.FULL_DUPLEX));
      assertEquals(losses.size(), plan.rebuilds().size(), "one rebuild per lost unit: " + plan);
      for (FullNodeRecoveryPlanner.GroupLoss g : losses) {
        FullNodeRecoveryPlan.Rebuild r = plan.rebuilds().stream().filter(x -> x.group().equals(g.id())).findFirst()
            .orElseThrow();
        assertTrue(g.freeNodes().getOrDefault(r.rack(), 0) > 0, r + " goes to a rack with a free node");
        String[] after = new String[c.plan().code().n()];
        String[] planned = new String[after.length];
        g.liveRacks().forEach((u, rack) -> {
          after[u] = rack;
          planned[u] = rack;
        });
        after[r.unit()] = r.rack();
        planned[r.unit()] = r.plannedRack();
        assertNull(guarantees.rackFaultBroken(after, Set.of()), dead + ": " + g.id() + " after " + r);
        assertTrue(guarantees.keepsRepairLocality(after, planned, Set.of()), dead + ": " + g.id() + " after " + r);
      }
      assertTrue(plan.load().compareTo(plan.baselineLoad()) <= 0, plan.toString());
      assertTrue(plan.mustCrossBytes() <= plan.crossRackBytes(), plan.toString());
      assertTrue(plan.uplinkBoundSeconds(1e6) <= plan.predictedSeconds(1e6) + 1e-9, plan.toString());
      if (oneMoveLowersTheBusiestLink(plan)) {
        improvable++;
        assertTrue(plan.load().max() < plan.baselineLoad().max(), "a valid move lowers the busiest link, so the plan"
            + " must too: " + plan);
      }
      strictlyLower += plan.load().max() < plan.baselineLoad().max() ? 1 : 0;
      busiest += plan.load().max();
      busiestPlanned += plan.baselineLoad().max();
    }
    System.out.printf("%s: %d of %d single-node losses have a lower busiest rack link than planned racks give"
        + " (%d by one move); busiest link over all losses %.3f of the planned racks'%n", c.plan(), strictlyLower,
        c.nodes().size(), improvable, (double) busiest / busiestPlanned);
    if (spreadLowersSomeBusiestLink) {
      assertTrue(improvable > 0 && strictlyLower > 0, c.plan() + ": " + strictlyLower + " / " + improvable);
    }
  }

  @ParameterizedTest
  @CsvSource({"true", "false"})
  void aWholeRackLostLeavesEachTwelveTwoTwoGroupOneUnitBeyondTheCapMarkedInThePlanAndEveryRackLossStillDecodes(
      boolean plannedShapes) {
    // 6 racks of 4 for a plan of 6 racks with at most 3 units each: with /r0 lost the 5 others have room below the
    // cap for one unit fewer than each group lost there, whatever it lost, so exactly one unit a group goes beyond.
    Cluster c = Cluster.of("azure-lrc-l2", 12, 4, 12, 17);
    Set<String> dead = new java.util.HashSet<>();
    for (int i = 0; i < PER_RACK; i++) {
      dead.add("/r0-n" + i);
    }
    List<FullNodeRecoveryPlanner.GroupLoss> losses = c.lossesOf(dead);
    assertEquals(12, losses.size(), "every group has units in every rack");
    FullNodeRecoveryPlan plan = new FullNodeRecoveryPlanner(RepairScheme.RACK_AGGREGATED,
        RackLinkLoad.Links.FULL_DUPLEX, plannedShapes).plan(losses, new RackLinkLoad(RackLinkLoad.Links.FULL_DUPLEX));
    assertEquals(losses.stream().mapToInt(g -> g.lost().length).sum(), plan.rebuilds().size(), plan.toString());
    assertEquals(12, plan.beyondCap().size(), plan.toString());
    assertTrue(plan.toString().contains("beyond the plan's rack cap: every rack with a free node already holds 3"),
        plan.toString());
    for (FullNodeRecoveryPlanner.GroupLoss g : losses) {
      String[] after = new String[16];
      g.liveRacks().forEach((u, rack) -> after[u] = rack);
      List<FullNodeRecoveryPlan.Rebuild> mine = plan.rebuilds().stream().filter(r -> r.group().equals(g.id())).toList();
      mine.forEach(r -> after[r.unit()] = r.rack());
      assertEquals(1, mine.stream().filter(r -> r.beyondCap() != null).count(), g.id() + ": " + mine);
      Map<String, List<Integer>> byRack = new TreeMap<>();
      for (int u = 0; u < after.length; u++) {
        byRack.computeIfAbsent(after[u], x -> new ArrayList<>()).add(u);
      }
      assertEquals(5, byRack.size(), g.id() + " " + byRack);
      for (Map.Entry<String, List<Integer>> e : byRack.entrySet()) {
        int[] erased = e.getValue().stream().mapToInt(Integer::intValue).toArray();
        boolean marked = mine.stream().anyMatch(r -> r.beyondCap() != null && r.rack().equals(e.getKey()));
        assertEquals(erased.length > 3, marked, g.id() + ": only the rack the plan marks holds more than 3 units "
            + byRack);
        assertTrue(c.plan().code().isDecodable(erased), g.id() + ": the loss of " + e.getKey() + " " + e.getValue()
            + " still decodes");
        // Where some rack with a free node keeps it so (here always), a stock client reads through the marked one.
        assertTrue(!marked || org.wideec.code.StockStripedReader.canReadEveryStripe(c.plan().code(), 12, erased),
            g.id() + ": the loss of " + e.getKey() + " " + e.getValue() + " reads through a stock client");
      }
    }
  }

  @Test
  void aGroupWithNoFreeNodeLeftForALostUnitIsAnErrorNamingTheGroup() {
    Cluster c = Cluster.of("azure-lrc-l2", 12, 4, 1, 17);
    FullNodeRecoveryPlanner.GroupLoss g = c.lossesOf(Set.of(c.groups().get(0).get(0))).get(0);
    FullNodeRecoveryPlanner.GroupLoss full = new FullNodeRecoveryPlanner.GroupLoss(g.id(), g.plan(), g.liveRacks(),
        g.lost(), g.zeros(), Map.of(), g.unitBytes());
    org.wideec.placement.PlacementException e = org.junit.jupiter.api.Assertions.assertThrows(
        org.wideec.placement.PlacementException.class,
        () -> PLANNER.plan(List.of(full), new RackLinkLoad(RackLinkLoad.Links.FULL_DUPLEX)));
    assertEquals("group g0: no rack has a free node for lost unit 0 (the group lost units [0])", e.getMessage());
  }

  /** True when moving one rebuild to another of its valid racks lowers the busiest link of the planned racks. */
  private static boolean oneMoveLowersTheBusiestLink(FullNodeRecoveryPlan plan) {
    for (FullNodeRecoveryPlan.Rebuild r : plan.rebuilds()) {
      for (Map.Entry<String, List<FullNodeRecoveryPlan.Transfer>> o : r.options().entrySet()) {
        RackLinkLoad trial = plan.baselineLoad().copy();
        r.options().get(r.plannedRack()).forEach(t -> trial.addTransfer(t.fromRack(), t.toRack(), -t.bytes()));
        o.getValue().forEach(t -> trial.addTransfer(t.fromRack(), t.toRack(), t.bytes()));
        if (trial.max() < plan.baselineLoad().max()) {
          return true;
        }
      }
    }
    return false;
  }

  @Test
  void groupsPlacedOneAtATimeSpreadAroundTheRepairsAlreadyInFlightInEitherOrder() {
    Cluster c = Cluster.of("azure-lrc-l2", 12, 4, 12, 17);
    int lower = 0;
    int withTwoMovable = 0;
    for (String dead : c.nodes()) {
      List<FullNodeRecoveryPlanner.GroupLoss> losses = c.lossesOf(Set.of(dead));
      for (boolean reversed : new boolean[] {false, true}) {
        List<FullNodeRecoveryPlanner.GroupLoss> order = new ArrayList<>(losses);
        if (reversed) {
          java.util.Collections.reverse(order);
        }
        RecentRepairFlows flows = new RecentRepairFlows(RackLinkLoad.Links.FULL_DUPLEX, 30_000, 64);
        RackLinkLoad placed = new RackLinkLoad(RackLinkLoad.Links.FULL_DUPLEX);
        RackLinkLoad baseline = new RackLinkLoad(RackLinkLoad.Links.FULL_DUPLEX);
        RepairTargetSpread spread = new RepairTargetSpread(PLANNER, flows);
        long now = 1_000;
        int movable = 0;
        int moved = 0;
        // As the RedundancyMonitor asks: one group at a time, each told of the ones placed before it.
        for (FullNodeRecoveryPlanner.GroupLoss g : order) {
          FullNodeRecoveryPlan p = spread.place(g, now++);
          placed.add(p.load(), 1);
          baseline.add(p.baselineLoad(), 1);
          movable += p.rebuilds().get(0).options().size() > 1 ? 1 : 0;
          moved += p.rebuilds().get(0).moved() ? 1 : 0;
        }
        assertEquals(placed.bytes(), flows.load(now, "none").bytes(), "the record holds every group placed");
        assertTrue(placed.compareTo(baseline) <= 0, dead + ": " + placed + " against " + baseline);
        if (movable >= 2) {
          withTwoMovable++;
          assertTrue(moved >= 1, dead + (reversed ? " (reversed)" : "") + ": of " + movable + " rebuilds that may move,"
              + " the later ones move away from the planned rack's downlink");
        }
        lower += placed.max() < baseline.max() ? 1 : 0;
      }
    }
    assertTrue(withTwoMovable > 0 && lower > 0, "some node's loss has rebuilds to spread: " + withTwoMovable + ", "
        + lower);
  }

  @Test
  void uniLrcUnitsWhosePlannedRackIsFullSpreadTheirDownlinksButShareTheLostRacksUplink() {
    // A UniLRC 6+6 local group fills a rack of four: a lost unit's rack has no free node, so it must leave it, for one
    // of the three racks holding none of its stripe (the planned choice: the first of them in name order). Its
    // helpers are all in the lost node's rack, so every rebuild leaves through that rack's uplink either way.
    Cluster c = Cluster.of("unilrc", 6, 6, 12, 17);
    int spreadWider = 0;
    for (String dead : c.nodes()) {
      FullNodeRecoveryPlan plan = PLANNER.plan(c.lossesOf(Set.of(dead)), new RackLinkLoad(RackLinkLoad.Links.FULL_DUPLEX));
      long racks = plan.rebuilds().stream().map(FullNodeRecoveryPlan.Rebuild::rack).distinct().count();
      long planned = plan.rebuilds().stream().map(FullNodeRecoveryPlan.Rebuild::plannedRack).distinct().count();
      assertTrue(racks >= planned, plan.toString());
      assertEquals(plan.baselineLoad().max(), plan.load().max(), "the lost node's rack's uplink carries them all");
      assertEquals(plan.rebuilds().size() * UNIT, plan.load().max(), plan.toString());
      spreadWider += racks > planned ? 1 : 0;
    }
    assertTrue(spreadWider > 0, "some node's rebuilds land in more racks than their planned ones");
  }

  @Test
  void theRecordForgetsRepairsPastItsWindowAndKeepsOnlyTheNewestGroups() {
    RecentRepairFlows flows = new RecentRepairFlows(RackLinkLoad.Links.FULL_DUPLEX, 1_000, 2);
    RackLinkLoad one = new RackLinkLoad(RackLinkLoad.Links.FULL_DUPLEX);
    one.addTransfer("/r0", "/r1", 5);
    flows.record("a", one, 0);
    flows.record("b", one, 500);
    assertEquals(Map.of("up /r0", 10L, "down /r1", 10L), flows.load(900, "none").bytes());
    assertEquals(Map.of("up /r0", 5L, "down /r1", 5L), flows.load(900, "a").bytes(), "a group re-placed is not counted");
    flows.record("c", one, 600);
    assertEquals(2, flows.size(), "the oldest group makes room");
    assertEquals(Map.of("up /r0", 5L, "down /r1", 5L), flows.load(1_550, "none").bytes(), "b expired, c remains");
    assertEquals(Map.of(), flows.load(1_601, "none").bytes());
  }

  @Test
  void aSharedGatewayCarriesEachCrossRackByteTwiceAndTheBoundSaysSo() {
    RackLinkLoad shared = new RackLinkLoad(RackLinkLoad.Links.SHARED_GATEWAY);
    shared.addTransfer("/r0", "/r1", 7);
    shared.addTransfer("/r1", "/r1", 9);
    assertEquals(Map.of("/r0", 7L, "/r1", 7L), shared.bytes());
    FullNodeRecoveryPlan p =
        new FullNodeRecoveryPlan(List.of(), shared, shared, new RackLinkLoad(shared.links()), 7, 2, 7);
    assertEquals(7.0, p.uplinkBoundSeconds(1), 1e-9, "2 x 7 bytes over 2 gateways of 1 byte/s");
    assertEquals(7.0, p.predictedSeconds(1), 1e-9);
  }
}
