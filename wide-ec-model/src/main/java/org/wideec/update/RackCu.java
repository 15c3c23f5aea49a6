package org.wideec.update;

import java.util.Arrays;

/**
 * RackCU (Algorithm 1): the sole collector rack L-bar is the rack with the most changed data units when that count
 * is no smaller than the most global parities any rack holds, else that parity rack (lines 1-8; the first such rack
 * on ties); every rack sends its data deltas there (lines 9-12) and L-bar renews each parity rack selectively
 * (lines 13-21). Under the seed's assumptions (racks hold data or parity, at most m units per rack) no
 * rack-coordinated solution crosses racks less (Theorems 1-2, Corollary 2).
 */
public final class RackCu implements UpdateScheme {
  @Override
  public String name() {
    return "rackcu";
  }

  @Override
  public UpdatePlan plan(UpdatePattern pattern, UpdateHistory history) {
    int[] units = pattern.changed();
    int[] algorithm1 = soleCollector(pattern, units);
    UpdatePlan best = SelectiveParityUpdate.plan(name(), pattern, units, algorithm1);
    if (pattern.localParities().length == 0 || pattern.globalParities().length == 0) {
      return best;
    }
    // With local parities (the seed's §III-D extension) a local parity that shares a rack with global ones can be
    // renewed from the data deltas that rack collected, so Algorithm 1's choice, which counts global parities only,
    // is no longer always the cheapest sole collector: price every rack, keeping Algorithm 1's on ties.
    for (int r = 0; r < pattern.racks(); r++) {
      if (r == algorithm1[0]) {
        continue; // priced above
      }
      int[] collectorOf = new int[pattern.racks()];
      Arrays.fill(collectorOf, r);
      UpdatePlan p = SelectiveParityUpdate.plan(name(), pattern, units, collectorOf);
      if (p.crossRackChunks() < best.crossRackChunks()) {
        best = p;
      }
    }
    return best;
  }

  /** Every rack mapped to L-bar for the given sending units (Algorithm 1, lines 1-8). */
  static int[] soleCollector(UpdatePattern pattern, int[] units) {
    int racks = pattern.racks();
    int[] u = new int[racks];
    for (int d : units) {
      u[pattern.rackOf(d)]++;
    }
    int dStar = 0;
    int pStar = 0;
    for (int r = 0; r < racks; r++) {
      if (u[r] > u[dStar]) {
        dStar = r;
      }
      if (pattern.globalParitiesIn(r).length > pattern.globalParitiesIn(pStar).length) {
        pStar = r;
      }
    }
    int collector = u[dStar] >= pattern.globalParitiesIn(pStar).length ? dStar : pStar;
    int[] collectorOf = new int[racks];
    Arrays.fill(collectorOf, collector);
    return collectorOf;
  }
}
