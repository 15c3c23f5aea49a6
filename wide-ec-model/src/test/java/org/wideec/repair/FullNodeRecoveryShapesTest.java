package org.wideec.repair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.wideec.code.LinearCode;
import org.wideec.placement.PlacementPlan;
import org.wideec.placement.StripedPlacement;

/**
 * The shapes a full-node recovery plan gives the rebuilds when its caller runs them as planned (a dead node's units
 * on the NameNode's orders), on Azure-LRC 12+2+2 groups (units 0-5 and 14 form the first local group, 6-11 and 15 the
 * second, 12 and 13 are the global parities) on racks /r0../r5, as the NameNode places them (combined locality:
 * {0,1,2} {3,4,5} {12,13,14} {6,7} {8,9} {10,11,15}) or by hand, with exact byte counts: each chain's racks in the
 * order the plan chose, which the worker's planner follows to the same transfers; and a group's lost units that need
 * a global decode decoded jointly exactly where that sends fewer bytes across racks.
 */
class FullNodeRecoveryShapesTest {
  private static final long U = 1 << 20;
  private static final PlacementPlan PLACED = StripedPlacement.planFor("azure-lrc-l2", 12, 4, StripedPlacement.AUTO);
  private static final LinearCode CODE = PLACED.code();
  /** The NameNode's plan: plan rack i is /ri. */
  private static final int[] CL = rackOf(new int[][] {{0, 1, 2}, {3, 4, 5}, {12, 13, 14}, {6, 7}, {8, 9},
      {10, 11, 15}});
  /** By hand: each global parity beside a local one, so two racks hold a single input of a global decode. */
  private static final int[] A = rackOf(new int[][] {{0, 1, 2}, {3, 4, 5}, {12, 14}, {6, 7, 8}, {9, 10, 11},
      {13, 15}});

  @Test
  void theNameNodesPlanIsTheLayoutTheseCountsAreFor() {
    for (int u = 0; u < 16; u++) {
      assertEquals(CL[u], PLACED.rackOf(u), "unit " + u + " of " + PLACED);
    }
  }

  private static int[] rackOf(int[][] racks) {
    int[] out = new int[16];
    for (int r = 0; r < racks.length; r++) {
      for (int u : racks[r]) {
        out[u] = r;
      }
    }
    return out;
  }

  /** A group of layout {@code rackOf} on /r0../r5 that lost {@code lost}, with free nodes only where they go back. */
  private static FullNodeRecoveryPlanner.GroupLoss loss(String id, int[] rackOf, int... lost) {
    PlacementPlan plan = rackOf == CL ? PLACED : new PlacementPlan("by hand", CODE, rackOf);
    Map<Integer, String> live = new HashMap<>();
    Map<String, Integer> free = new HashMap<>();
    List<Integer> gone = new ArrayList<>();
    for (int u : lost) {
      gone.add(u);
    }
    for (int u = 0; u < 16; u++) {
      if (gone.contains(u)) {
        free.merge("/r" + rackOf[u], 1, Integer::sum);
      } else {
        live.put(u, "/r" + rackOf[u]);
      }
    }
    return new FullNodeRecoveryPlanner.GroupLoss(id, plan, live, lost, Set.of(), free, U);
  }

  private static final FullNodeRecoveryPlanner AS_PLANNED =
      new FullNodeRecoveryPlanner(RepairScheme.RACK_AGGREGATED, RackLinkLoad.Links.FULL_DUPLEX, true);
  private static final FullNodeRecoveryPlanner RACKS_ONLY =
      new FullNodeRecoveryPlanner(RepairScheme.RACK_AGGREGATED, RackLinkLoad.Links.FULL_DUPLEX);

  private static FullNodeRecoveryPlan plan(FullNodeRecoveryPlanner p, FullNodeRecoveryPlanner.GroupLoss... losses) {
    return p.plan(List.of(losses), new RackLinkLoad(RackLinkLoad.Links.FULL_DUPLEX));
  }

  @Test
  void twoUnitsOfOneLocalGroupLostTogetherAreDecodedJointlyWhereThatSendsFewerBytesAcrossRacks() {
    // Units 0 and 1 go back to /r0. Each alone needs a global decode from units 2..13 (its local group misses the
    // other), a chain through /r1, /r2, /r3, /r4, /r5 into /r0: 5 units across racks and 12 read, each. Jointly /r0's
    // unit 2 is local, and each other rack sends one partial sum per lost unit (/r1, /r3, /r4: 2 each, each summing
    // chain reading the rack's 3 units: 18 read) or its one input raw (2, 12, 13: 3 read): 8 across racks, 21 read.
    FullNodeRecoveryPlan p = plan(AS_PLANNED, loss("g", A, 0, 1));
    assertEquals(List.of(new FullNodeRecoveryPlan.JointChoice("g", List.of(0, 1), 21 * U, 8 * U, 24 * U, 10 * U,
        true)), p.jointChoices());
    assertEquals(8 * U, p.crossRackBytes());
    FullNodeRecoveryPlan.Rebuild first = p.rebuilds().get(0);
    FullNodeRecoveryPlan.Rebuild second = p.rebuilds().get(1);
    assertEquals(List.of(0, 1), first.decodedWith());
    assertEquals(List.of(0, 1), second.decodedWith());
    assertEquals(21 * U, first.helperBytes(), "one decode's reads");
    assertEquals(0, second.helperBytes());
    assertEquals(List.of(), second.transfers(), "both go back to /r0: nothing sent on across racks");
    assertEquals(Map.of("up /r1", 2 * U, "up /r2", U, "up /r3", 2 * U, "up /r4", 2 * U, "up /r5", U, "down /r0",
        8 * U), p.load().bytes());
  }

  @Test
  void twoLostUnitsEachDecodedAloneWhereTheJointDecodeWouldSendMoreAcrossRacks() {
    // Units 0 (back to /r0) and 3 (back to /r1) both need a global decode from 1, 2, 4..13. Alone, each chain passes
    // the five other racks once: 5 + 5 across racks, 24 units read. Jointly the 12 units are read once, but every
    // other rack holds two inputs (2 streams each from /r1../r5) and unit 3 is sent on from /r0 to /r1: 11.
    FullNodeRecoveryPlan p = plan(AS_PLANNED, loss("g", CL, 0, 3));
    assertEquals(List.of(new FullNodeRecoveryPlan.JointChoice("g", List.of(0, 3), 12 * U, 11 * U, 24 * U, 10 * U,
        false)), p.jointChoices());
    assertEquals(10 * U, p.crossRackBytes());
    for (FullNodeRecoveryPlan.Rebuild r : p.rebuilds()) {
      assertEquals(List.of(), r.decodedWith(), r.toString());
      assertEquals(12 * U, r.helperBytes(), r.toString());
      assertEquals(5, r.transfers().size(), r.toString());
    }
  }

  @Test
  void aJointDecodeThatSendsNoFewerBytesAcrossRacksIsNotTaken() {
    // Units 0 and 1 back to /r0 on the NameNode's layout: /r1 sends two partial sums jointly as alone (each reading
    // its three units), and every other rack its two inputs: 10 across racks either way, so each is rebuilt alone.
    FullNodeRecoveryPlan p = plan(AS_PLANNED, loss("g", CL, 0, 1));
    assertEquals(List.of(new FullNodeRecoveryPlan.JointChoice("g", List.of(0, 1), 15 * U, 10 * U, 24 * U, 10 * U,
        false)), p.jointChoices());
  }

  @Test
  void aRacksLossDecodesTheUnitsOfALocalGroupJointlyAndAUnitWhoseLocalGroupIsWholeAlone() {
    // /r0 dies: 0, 1 and 2 go back to it (it holds none of the group now), all three needing a global decode. Alone
    // each reads 3..14 through the five other racks: 15 across racks, 36 read. Jointly 3..14 are read once and each
    // rack sends its two or three inputs raw (no more than there are outputs): 12 across racks. A second group's
    // unit 6 has its local group whole: rebuilt alone from 7..11 and 15.
    FullNodeRecoveryPlan p = plan(AS_PLANNED, loss("g", CL, 0, 1, 2), loss("h", CL, 6));
    assertEquals(List.of(new FullNodeRecoveryPlan.JointChoice("g", List.of(0, 1, 2), 12 * U, 12 * U, 36 * U, 15 * U,
        true)), p.jointChoices());
    Map<Integer, FullNodeRecoveryPlan.Rebuild> g = new HashMap<>();
    p.rebuilds().stream().filter(r -> r.group().equals("g")).forEach(r -> g.put(r.unit(), r));
    assertEquals(List.of(0, 1, 2), g.get(0).decodedWith());
    assertEquals(12 * U, g.get(0).helperBytes() + g.get(1).helperBytes() + g.get(2).helperBytes());
    assertEquals(Map.of("up /r1", 3 * U, "up /r2", 3 * U, "up /r3", 2 * U, "up /r4", 2 * U, "up /r5", 2 * U,
        "down /r0", 12 * U), plan(AS_PLANNED, loss("g", CL, 0, 1, 2)).load().bytes());
    FullNodeRecoveryPlan.Rebuild six = p.rebuilds().stream().filter(r -> r.group().equals("h")).findFirst()
        .orElseThrow();
    assertEquals(List.of(), six.decodedWith());
    assertEquals(6 * U, six.helperBytes());
  }

  @Test
  void aCallerThatOnlyChoosesRacksGetsEveryLostUnitOfAGroupInOneDecodeAsHdfsRunsIt() {
    FullNodeRecoveryPlan p = plan(RACKS_ONLY, loss("g", CL, 0, 3));
    assertEquals(List.of(), p.jointChoices(), "nothing to choose: HDFS's task decodes every lost unit at once");
    assertEquals(List.of(0, 3), p.rebuilds().get(0).decodedWith());
    assertEquals(11 * U, p.crossRackBytes());
  }

  @Test
  void chainsOrderedToShareTheRackLinksAreTheChainsTheWorkersPlannerRuns() {
    // Two groups lose a global parity each (12 and 13 of two groups, both back to /r2): each is rebuilt from the 12
    // data units in /r0, /r1, /r3, /r4 and /r5. In name order both chains run /r0 -> /r1 -> /r3 -> /r4 -> /r5, so
    // every link they use carries two units. Each rack sends once per chain whatever the order, and each chain enters
    // every rack but its first: started from /r1, the first chain leaves /r1's downlink to the second alone and takes
    // /r0's, so two links carry one unit each.
    FullNodeRecoveryPlan stock = plan(RACKS_ONLY, loss("g", CL, 12), loss("h", CL, 13));
    FullNodeRecoveryPlan ordered = plan(AS_PLANNED, loss("g", CL, 12), loss("h", CL, 13));
    assertEquals(Map.of("up /r0", 2 * U, "down /r1", 2 * U, "up /r1", 2 * U, "down /r3", 2 * U, "up /r3", 2 * U,
        "down /r4", 2 * U, "up /r4", 2 * U, "down /r5", 2 * U, "up /r5", 2 * U, "down /r2", 2 * U), stock.load().bytes());
    Map<String, Long> sharing = new HashMap<>(Map.of("up /r0", 2 * U, "up /r1", 2 * U, "up /r3", 2 * U, "up /r4",
        2 * U, "up /r5", 2 * U, "down /r3", 2 * U, "down /r4", 2 * U, "down /r5", 2 * U, "down /r2", 2 * U));
    sharing.putAll(Map.of("down /r0", U, "down /r1", U));
    assertEquals(sharing, ordered.load().bytes());
    assertEquals(10 * U, ordered.crossRackBytes(), "the same bytes across racks as in name order");
    assertEquals(List.of("/r1", "/r0", "/r3", "/r4", "/r5"), ordered.rebuilds().get(0).chain());
    assertEquals(List.of("/r0", "/r1", "/r3", "/r4", "/r5"), ordered.rebuilds().get(1).chain());
    // The worker plans each repair from the order's rack chain: the same transfers, unit for unit.
    for (FullNodeRecoveryPlan.Rebuild r : ordered.rebuilds()) {
      Map<Integer, UnitLocation> live = new HashMap<>();
      for (int u = 0; u < 16; u++) {
        if (u != r.unit()) {
          live.put(u, new UnitLocation(u, new org.wideec.topology.Site("n" + u, "/r" + CL[u])));
        }
      }
      RepairGraph g = SingleUnitRepairPlanner.plan(RepairScheme.RACK_AGGREGATED, CODE, r.unit(), live, "target",
          r.rack(), LinkWeights.UNIFORM, java.util.Comparator.naturalOrder(), r.chain());
      List<FullNodeRecoveryPlan.Transfer> run = new ArrayList<>();
      for (RepairStep s : g.steps()) {
        String to = s.next() == RepairStep.REQUESTOR ? r.rack() : g.steps().get(s.next()).helper().rack();
        if (!to.equals(s.helper().rack())) {
          run.add(new FullNodeRecoveryPlan.Transfer(s.helper().rack(), to, U));
        }
      }
      assertEquals(r.transfers(), run, r.toString());
      assertEquals(12 * U, r.helperBytes());
      assertFalse(r.moved(), "no free node elsewhere");
    }
  }
}
