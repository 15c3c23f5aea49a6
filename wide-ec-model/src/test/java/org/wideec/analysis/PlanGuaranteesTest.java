package org.wideec.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.wideec.placement.PlacementPlan;
import org.wideec.placement.StripedPlacement;

/** Which single moves of a unit keep what its group's plan guarantees. */
class PlanGuaranteesTest {
  @Test
  void underAzureLrc12Plan2Plus2OnlyALocalParityMayMoveAndOnlyIntoARackOfTwoUnitsOfTheOtherGroup() {
    // {0,1,2} {3,4,5} {g12,g13,l14} {6,7} {8,9} {10,11,l15}
    PlacementPlan plan = StripedPlacement.planFor("azure-lrc-l2", 12, 4, StripedPlacement.AUTO);
    PlanGuarantees g = PlanGuarantees.of(plan);
    int n = plan.code().n();
    String[] planned = new String[n];
    for (int u = 0; u < n; u++) {
      planned[u] = "rack " + plan.rackOf(u);
    }
    assertNull(g.rackFaultBroken(planned, Set.of()), "the plan keeps its own guarantees");
    Set<String> allowed = new TreeSet<>();
    for (int u = 0; u < n; u++) {
      for (int r = 0; r < plan.racks(); r++) {
        if (r == plan.rackOf(u)) {
          continue;
        }
        String[] after = planned.clone();
        after[u] = "rack " + r;
        if (g.rackFaultBroken(after, Set.of()) == null && g.keepsRepairLocality(after, planned, Set.of())) {
          allowed.add(u + " to " + java.util.Arrays.toString(plan.units(r)));
        }
      }
    }
    assertEquals(Set.of("14 to [6, 7]", "14 to [8, 9]", "15 to [6, 7]", "15 to [8, 9]"), allowed);
  }
}
