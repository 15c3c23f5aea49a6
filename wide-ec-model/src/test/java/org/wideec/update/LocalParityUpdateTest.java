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
  void uniLrcGroupPerRackRenewsEveryLocalParityInsideItsRackUnderEveryScheme() {
    PlacementPlan plan = new GroupPerRackPlanner(1).plan(Codes.fromSpec("unilrc:alpha=1,z=6"));
    Random rnd = new Random(11L);
    for (int trial = 0; trial < 50; trial++) {
      UpdatePattern p = UpdatePattern.of(plan, randomChanges(rnd, plan.code()));
      assertEquals(6, p.localParities().length);
      for (String name : UpdateScheme.NAMES) {
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
    // global parities. d4's delta went to the collector R1, so R1 sums d0, d1, d4 into one chunk for p2.
    UpdatePattern p = UpdatePattern.of(new CombinedLocalityPlanner().plan(Codes.fromSpec("azure-lrc:k=12,l=2,g=2")), 0, 1, 4);
    UpdatePlan plan = new RackCu().plan(p);
    assertEquals(1, plan.crossRackChunks(Transfer.Phase.LOCAL_PARITY_UPDATE));
    assertEquals(1 + 2 + 1, plan.crossRackChunks());
    assertEquals(2, new BaselineUpdate().plan(p).crossRackChunks(Transfer.Phase.LOCAL_PARITY_UPDATE));
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
