package org.wideec.update;

import org.wideec.code.LinearCode;
import org.wideec.placement.PlacementPlan;

/**
 * The layout the seed simulates and tests on (RackCU §III-B assumptions, §V-C: RS(12,4) over eight racks of two
 * nodes): units in order, a fixed number per rack but never more than the m losses a rack may take (rack-level
 * fault tolerance), and data and parity never share a rack.
 */
public final class RackSeparatedPlacement {
  private RackSeparatedPlacement() {}

  /** @param unitsPerRack nodes per rack, each holding one unit of the stripe */
  public static PlacementPlan plan(LinearCode code, int unitsPerRack) {
    if (unitsPerRack < 1) {
      throw new IllegalArgumentException("units per rack must be at least 1, got " + unitsPerRack);
    }
    int perRack = Math.min(unitsPerRack, code.m());
    int dataRacks = (code.k() + perRack - 1) / perRack;
    int[] rackOf = new int[code.n()];
    for (int u = 0; u < code.n(); u++) {
      rackOf[u] = u < code.k() ? u / perRack : dataRacks + (u - code.k()) / perRack;
    }
    return new PlacementPlan("rack-separated", code, rackOf);
  }
}
