package org.wideec.update;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.placement.CombinedLocalityPlanner;
import org.wideec.placement.GroupPerRackPlanner;
import org.wideec.placement.PlacementPlan;

class LocalParityUpdateTest {
  @Test
  void uniLrcGroupPerRackRenewsEveryLocalParityInsideItsRackUnderEveryDeltaScheme() {
    PlacementPlan plan = new GroupPerRackPlanner(1).plan(Codes.fromSpec("unilrc:alpha=1,z=6"));
    Random rnd = new Random(11L);
    for (int trial = 0; trial < 50; trial++) {
      UpdatePattern p = UpdatePattern.of(plan, randomChanges(rnd, plan.code()));
      assertEquals(6, p.localParities().length);
      for (String name : UpdateScheme.NAMES) {
        if (name.equals("reencode")) {
          continue; // the re-encoding chain computes UniLRC's local rows in its global tree (they span the data)
        }
        UpdatePlan up = UpdateScheme.byName(name).plan(p);
        assertEquals(0, up.crossRackChunks(Transfer.Phase.LOCAL_PARITY_UPDATE), name + " on " + p);
        assertTrue(up.transfers().stream().anyMatch(t -> t.phase() == Transfer.Phase.LOCAL_PARITY_UPDATE), name);
      }
    }
  }

  @Test
  void azureLrcOnCombinedLocalityWithoutCollectorPaysOneChunkPerOtherRackWithChangedGroupMembers() {
    PlacementPlan plan = new CombinedLocalityPlanner().plan(Codes.fromSpec("azure-lrc:k=12,l=2,g=2"));
    Random rnd = new Random(12L);
    for (int trial = 0; trial < 50; trial++) {
      UpdatePattern p = UpdatePattern.of(plan, randomChanges(rnd, plan.code()));
      int expected = 0;
      for (int lp : p.localParities()) {
        int[] members = p.inputsOf(lp);
        expected += (int) Arrays.stream(p.changed()).filter(d -> Arrays.binarySearch(members, d) >= 0)
            .map(p::rackOf).filter(r -> r != p.rackOf(lp)).distinct().count();
      }
      assertEquals(expected, new BaselineUpdate().plan(p).crossRackChunks(Transfer.Phase.LOCAL_PARITY_UPDATE), "on " + p);
      assertTrue(new RackCu().plan(p).crossRackChunks(Transfer.Phase.LOCAL_PARITY_UPDATE) <= expected, "on " + p);
    }
  }

  @Test
  void rackCuRenewsALocalParityFromTheDeltasItsCollectorAlreadyHolds() {
    // CL places Azure-LRC(12,2,2) as R1[d0-d2] R2[d3-d5] R3[p0,p1,p2] ...: the group's local parity p2 sits with the
    // global parities. Algorithm 1 collects in R1 (d4's delta 1, two parity deltas, R1's sum of d0, d1, d4 for p2:
    // 4 chunks); collecting in R3 renews p0, p1 and p2 there from the three data deltas: 3.
    UpdatePattern p = UpdatePattern.of(new CombinedLocalityPlanner().plan(Codes.fromSpec("azure-lrc:k=12,l=2,g=2")), 0, 1, 4);
    UpdatePlan plan = new RackCu().plan(p);
    assertEquals("[2]", Arrays.toString(plan.collectorRacks()), plan.describe());
    assertEquals(0, plan.crossRackChunks(Transfer.Phase.LOCAL_PARITY_UPDATE));
    assertEquals(3, plan.crossRackChunks());
    assertEquals(4, SelectiveParityUpdate.plan("rackcu", p, p.changed(), RackCu.soleCollector(p, p.changed()))
        .crossRackChunks(), "Algorithm 1's own collector");
    assertEquals(2, new BaselineUpdate().plan(p).crossRackChunks(Transfer.Phase.LOCAL_PARITY_UPDATE));
  }

  @Test
  void rackCuCollectsInTheRackWhereGlobalAndLocalParitiesMeetWhenThatIsCheaper() {
    // A placement HDFS chose, not ours: d0 in R4, d1 and d3 in R5, both global parities and d0's group's local
    // parity in R6, the other local parity in R1. Algorithm 1 picks R5 (2 changed units >= 2 global parities):
    // 1 to collect, 2 parity deltas and 1 local one to R6, 1 to R1 = 5. Collecting in
    // R6 renews all three parities there from the same 3 data deltas: 3 + 1 to R1 = 4 (the baseline's 9).
    LinearCode code = Codes.fromSpec("azure-lrc:k=6,l=2,g=2");
    UpdatePattern probe = UpdatePattern.of(new PlacementPlan("probe", code, new int[code.n()]), 0);
    int[] g = probe.globalParities();
    int[] l = probe.localParities();
    int[] rackOf = {3, 4, 0, 4, 1, 2, 0, 0, 0, 0};
    rackOf[g[0]] = 5;
    rackOf[g[1]] = 5;
    rackOf[l[0]] = 5;
    rackOf[l[1]] = 0;
    UpdatePattern p = UpdatePattern.of(new PlacementPlan("hdfs", code, rackOf), 0, 1, 3);
    UpdatePlan plan = new RackCu().plan(p);
    assertEquals(4, plan.crossRackChunks(), plan.describe());
    assertEquals("[5]", Arrays.toString(plan.collectorRacks()), plan.describe());
    assertEquals(9, new BaselineUpdate().plan(p).crossRackChunks());
  }

  @Test
  void azureLrcGlobalParitiesAloneGoThroughTheScheme() {
    UpdatePattern p = UpdatePattern.of(new CombinedLocalityPlanner().plan(Codes.fromSpec("azure-lrc:k=12,l=2,g=2")), 0);
    assertEquals(2, p.globalParities().length);
    assertEquals(2, p.localParities().length);
    // d0 changed: one parity delta per global parity, none sent to the local parities by the scheme itself.
    assertTrue(new BaselineUpdate().plan(p).transfers().stream().filter(t -> t.phase() == Transfer.Phase.PARITY_UPDATE)
        .allMatch(t -> Arrays.stream(t.parities()).allMatch(q -> Arrays.binarySearch(p.globalParities(), q) >= 0)));
  }

  private static int[] randomChanges(Random rnd, LinearCode code) {
    int[] c = IntStream.range(0, code.k()).filter(d -> rnd.nextInt(4) == 0).toArray();
    return c.length > 0 ? c : new int[] {rnd.nextInt(code.k())};
  }
}
