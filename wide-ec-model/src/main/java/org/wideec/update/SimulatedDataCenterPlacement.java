package org.wideec.update;

import java.util.Arrays;
import java.util.Random;
import org.wideec.code.LinearCode;
import org.wideec.placement.PlacementPlan;

/**
 * The layout of the seed's large-scale simulation (RackCU §V-B): a data center of {@code racks} racks of {@code
 * nodesPerRack} nodes, each stripe's units on distinct nodes drawn at random, data and parity never in one rack
 * (Experiment A.3: "we separate the storage of data chunks and parity chunks across different racks") and at most m
 * units in a rack, so a stripe survives the loss of any rack (§V-B spreads a stripe for rack-level fault tolerance).
 * The seed does not say how the 16 chunks of RS(12,4) share its 10 racks; it does say its figures are the mean of
 * ten runs with error bars and that with more racks "each rack is more likely to store fewer chunks of a stripe",
 * which only a drawn layout makes true: a fixed layout gives every run the same count. So each stripe gets its own
 * draw, seeded by the run and the stripe, and the same run and stripe always get the same layout.
 */
public final class SimulatedDataCenterPlacement {
  private final LinearCode code;
  private final int racks;
  private final int nodesPerRack;
  private final long run;

  /** @param run the simulation run (the seed's ten runs differ only in it) */
  public SimulatedDataCenterPlacement(LinearCode code, int racks, int nodesPerRack, long run) {
    int m = code.n() - code.k();
    if (nodesPerRack < 1 || racks < 2) {
      throw new IllegalArgumentException("a data center of " + racks + " racks of " + nodesPerRack + " nodes cannot"
          + " keep data and parity racks apart");
    }
    int perRack = Math.min(m, nodesPerRack);
    int dataRacks = (code.k() + perRack - 1) / perRack;
    int parityRacks = (m + perRack - 1) / perRack;
    if (dataRacks + parityRacks > racks) {
      throw new IllegalArgumentException(code.spec() + " needs " + (dataRacks + parityRacks) + " racks of at most "
          + perRack + " units with data and parity apart, the data center has " + racks);
    }
    this.code = code;
    this.racks = racks;
    this.nodesPerRack = nodesPerRack;
    this.run = run;
  }

  /** The RS(12,4) data center of §V-B: 200 nodes in 10 racks of 20. */
  public static SimulatedDataCenterPlacement seedSimulation(LinearCode code, long run) {
    return new SimulatedDataCenterPlacement(code, 10, 20, run);
  }

  /**
   * Stripe {@code stripe}'s layout, racks numbered in the order the units reach them (only the grouping matters to
   * the update schemes): n distinct nodes drawn uniformly, drawn again until data and parity share no rack and no rack
   * holds more than m units, so every such layout is equally likely.
   */
  public PlacementPlan plan(long stripe) {
    Random rnd = new Random(run * 0x9E3779B97F4A7C15L ^ stripe);
    for (int attempt = 0; attempt < DRAWS; attempt++) {
      int[] rackOf = draw(rnd);
      if (rackOf != null) {
        return new PlacementPlan("simulated-data-center", code, compact(rackOf));
      }
    }
    throw new IllegalArgumentException("no layout of " + code.spec() + " with data and parity apart in " + DRAWS
        + " draws over " + racks + " racks of " + nodesPerRack + " nodes (stripe " + stripe + ")");
  }

  /** Most draws of one stripe (RS(12,4) on 10 racks of 20 keeps about one draw in 150). */
  private static final int DRAWS = 1_000_000;

  /** One draw of n distinct nodes (a partial shuffle), or null when it breaks a rule. */
  private int[] draw(Random rnd) {
    int m = code.n() - code.k();
    int[] nodes = new int[racks * nodesPerRack];
    for (int i = 0; i < nodes.length; i++) {
      nodes[i] = i;
    }
    int[] units = new int[racks];
    int[] kind = new int[racks]; // 0 empty, 1 data, 2 parity
    int[] rackOf = new int[code.n()];
    for (int u = 0; u < code.n(); u++) {
      int j = u + rnd.nextInt(nodes.length - u);
      int node = nodes[j];
      nodes[j] = nodes[u];
      nodes[u] = node;
      int r = node / nodesPerRack;
      int k = u < code.k() ? 1 : 2;
      if (kind[r] != 0 && kind[r] != k || ++units[r] > m) {
        return null;
      }
      kind[r] = k;
      rackOf[u] = r;
    }
    return rackOf;
  }

  /** Rack numbers 0.. in the order units reach them (a plan has no empty rack). */
  private static int[] compact(int[] rackOf) {
    int[] map = new int[Arrays.stream(rackOf).max().orElse(0) + 1];
    Arrays.fill(map, -1);
    int next = 0;
    int[] out = new int[rackOf.length];
    for (int u = 0; u < rackOf.length; u++) {
      if (map[rackOf[u]] < 0) {
        map[rackOf[u]] = next++;
      }
      out[u] = map[rackOf[u]];
    }
    return out;
  }
}
