package org.wideec.analysis;

import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.placement.CombinedLocalityPlanner;
import org.wideec.placement.PlacementPlan;

/**
 * Derives (n, k, r, z) CL from k, f and the redundancy cap gamma (ECWide §3.4): r_min from equation (3)
 * fixes n; every r with the same n costs the same redundancy, and the one whose local groups pack best
 * into racks of f (lowest average cross-rack repair traffic C, then fewest racks) is taken, as the
 * paper's (136,128,27,34) CL is (r = 26..31 all give n = 136; r = 27 makes groups of 28 = 7 racks of 4).
 * The chosen design is then built for real: the Azure-LRC, its CL plan and the plan's measured costs.
 */
public record CombinedLocalityDesign(int k, int f, double gamma, int r, int n, int z, LinearCode code, PlacementPlan plan,
    PlacementCosts costs) {

  public static CombinedLocalityDesign derive(int k, int f, double gamma) {
    int rMin = LocalityTradeoff.rMin(k, f, gamma);
    int n = LocalityTradeoff.lrcLength(k, rMin, f);
    int best = rMin;
    double bestC = Double.MAX_VALUE;
    int bestZ = Integer.MAX_VALUE;
    for (int r = rMin; r <= k && LocalityTradeoff.lrcLength(k, r, f) == n; r++) {
      int[] racks = LocalityTradeoff.layout(k, f, r);
      int z = java.util.Arrays.stream(racks).max().orElse(-1) + 1;
      double c = estimateC(k, f, r, racks, z);
      if (c < bestC - 1e-12 || (Math.abs(c - bestC) < 1e-12 && z < bestZ)) {
        best = r;
        bestC = c;
        bestZ = z;
      }
    }
    LinearCode code = Codes.fromSpec("azure-lrc:k=" + k + ",r=" + best + ",g=" + (f - 1));
    PlacementPlan plan = new CombinedLocalityPlanner().plan(code);
    return new CombinedLocalityDesign(k, f, gamma, best, code.n(), plan.racks(), code, plan, PlacementCosts.of(plan));
  }

  /** ECWide §3.6's C for a layout: a group's chunks cost its racks - 1; a global parity, z - 1. */
  static double estimateC(int k, int f, int r, int[] racks, int z) {
    int l = LocalityTradeoff.ceilDiv(k, r);
    double total = 0;
    int i = 0;
    for (int g = 0; g < l; g++) {
      int size = Math.min(r, k - g * r) + 1;
      java.util.Set<Integer> spanned = new java.util.HashSet<>();
      for (int j = 0; j < size; j++) {
        spanned.add(racks[i + j]);
      }
      total += size * (spanned.size() - 1.0);
      i += size;
    }
    total += (f - 1) * (z - 1.0);
    return total / racks.length;
  }

  public double redundancy() {
    return n / (double) k;
  }
}
