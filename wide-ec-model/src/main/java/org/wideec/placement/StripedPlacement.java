package org.wideec.placement;

import org.wideec.code.LinearCode;
import org.wideec.coder.StripedCodec;

/**
 * Which planner places a block group of one of our HDFS codecs: UniLRC one local group per rack, the
 * other LRCs combined locality, Reed-Solomon topology locality; {@code scheme} (configuration key
 * {@code wide-ec.placement.scheme}) overrides with flat, tl, cl or unilrc.
 */
public final class StripedPlacement {
  public static final String SCHEME_KEY = "wide-ec.placement.scheme";
  public static final String AUTO = "auto";

  private StripedPlacement() {}

  public static PlacementPlanner plannerFor(StripedCodec codec, String scheme) {
    if (scheme != null && !scheme.equals(AUTO)) {
      return PlacementPlanner.byName(scheme, 1);
    }
    return switch (codec) {
      case UNILRC -> new GroupPerRackPlanner(1);
      case WIDE_RS -> new TopologyLocalityPlanner();
      default -> new CombinedLocalityPlanner();
    };
  }

  /** Plans by codec, k, m and scheme: the NameNode asks for them on every block allocation and check. */
  private static final java.util.concurrent.ConcurrentHashMap<String, Object> PLANS =
      new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * The plan of a group of the codec with HDFS's k and m, or null when the codec is not ours. HDFS's own client
   * reads these groups, so the plan keeps every single-rack loss readable by its parity choice
   * ({@link StockReadablePlacement}), not only decodable in principle.
   */
  public static PlacementPlan planFor(String codecName, int k, int m, String scheme) {
    if (!StripedCodec.names().contains(codecName)) {
      return null;
    }
    // Failures are cached too: the NameNode asks on every placement check, under its lock, and a shape with no
    // plan must not be searched again each time.
    Object planned = PLANS.computeIfAbsent(codecName + "/" + k + "/" + m + "/" + scheme, key -> {
      try {
        StripedCodec codec = StripedCodec.byName(codecName);
        LinearCode code = codec.codeFor(k, m);
        return StockReadablePlacement.of(plannerFor(codec, scheme).plan(code));
      } catch (RuntimeException e) {
        return e;
      }
    });
    if (planned instanceof org.wideec.code.InvalidCodeSpecException e) {
      throw new org.wideec.code.InvalidCodeSpecException(e.getMessage());
    }
    if (planned instanceof PlacementException e) {
      throw new PlacementException(e.getMessage());
    }
    if (planned instanceof RuntimeException e) {
      throw new PlacementException(codecName + " k=" + k + " m=" + m + ": no plan (" + e + ")");
    }
    return (PlacementPlan) planned;
  }

  /** True when units grouped by their actual racks form the same partition as the plan's racks. */
  public static boolean holds(PlacementPlan plan, String[] rackOfUnit) {
    java.util.Map<String, Integer> planRackOfReal = new java.util.HashMap<>();
    java.util.Map<Integer, String> realOfPlanRack = new java.util.HashMap<>();
    for (int u = 0; u < rackOfUnit.length; u++) {
      if (rackOfUnit[u] == null) {
        continue;
      }
      Integer pr = planRackOfReal.putIfAbsent(rackOfUnit[u], plan.rackOf(u));
      String real = realOfPlanRack.putIfAbsent(plan.rackOf(u), rackOfUnit[u]);
      if ((pr != null && pr != plan.rackOf(u)) || (real != null && !real.equals(rackOfUnit[u]))) {
        return false;
      }
    }
    return true;
  }
}
