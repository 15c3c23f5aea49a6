package org.wideec.placement;

import org.wideec.code.LinearCode;

/**
 * Topology locality TL (ECWide §2.3): the units in order, f per rack, f the losses the code always
 * survives, so a rack loss is a tolerated loss and repairs sum partial results inside each rack.
 */
public final class TopologyLocalityPlanner implements PlacementPlanner {
  @Override
  public String name() {
    return "tl";
  }

  @Override
  public PlacementPlan plan(LinearCode code) {
    int f = PlacementPlanner.tolerance(code);
    if (f < 1) {
      throw new PlacementException(code.spec() + " tolerates no loss; it cannot be placed with topology locality");
    }
    int[] rack = new int[code.n()];
    for (int u = 0; u < rack.length; u++) {
      rack[u] = u / f;
    }
    return PlacementPlanner.requireRackTolerant(new PlacementPlan(name(), code, rack));
  }
}
