package org.wideec.placement;

import org.wideec.code.LinearCode;
import org.wideec.topology.Topology;

/** Decides which rack each unit of a stripe goes to. Pure: no HDFS. */
public interface PlacementPlanner {
  /** Short name used on the command line: flat, tl, cl, unilrc. */
  String name();

  /** The plan for one stripe, using as few racks as the scheme allows. */
  PlacementPlan plan(LinearCode code);

  /**
   * The plan checked against a topology: enough racks, and in every planned rack enough nodes for one unit
   * per node. Throws PlacementException naming what is missing.
   */
  default PlacementPlan plan(LinearCode code, Topology topology) {
    PlacementPlan p = plan(code);
    if (p.racks() > topology.rackCount()) {
      throw new PlacementException(name() + " placement of " + code.spec() + " needs " + p.racks()
          + " racks, the topology has " + topology.rackCount());
    }
    int[] need = p.unitsPerRack();
    Integer[] order = new Integer[need.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    java.util.Arrays.sort(order, (a, b) -> need[b] - need[a]);
    int[] have = topology.racks().stream().mapToInt(r -> topology.nodes(r).size()).sorted().toArray();
    for (int i = 0; i < order.length; i++) {
      int largest = have[have.length - 1 - i];
      if (need[order[i]] > largest) {
        throw new PlacementException(name() + " placement of " + code.spec() + " puts " + need[order[i]]
            + " units in one rack, but only " + largest + " nodes are available in the " + (i + 1)
            + "th largest rack");
      }
    }
    return p;
  }

  /** The planner for a command-line name; t is UniLRC's racks per local group (ignored by others). */
  static PlacementPlanner byName(String name, int t) {
    return switch (name) {
      case "flat" -> new FlatPlanner();
      case "tl" -> new TopologyLocalityPlanner();
      case "cl" -> new CombinedLocalityPlanner();
      case "unilrc" -> new GroupPerRackPlanner(t);
      default -> throw new PlacementException("unknown placement '" + name + "' (known: flat, tl, cl, unilrc)");
    };
  }

  /** Rejects a plan that some single rack loss would make undecodable. */
  static PlacementPlan requireRackTolerant(PlacementPlan p) {
    java.util.List<Integer> fatal = p.fatalRacks();
    if (!fatal.isEmpty()) {
      throw new PlacementException(p.scheme() + " placement of " + p.code().spec() + " does not survive the loss of rack "
          + fatal.get(0) + " (units " + java.util.Arrays.toString(p.units(fatal.get(0))) + ")");
    }
    return p;
  }

  /** Losses the code always survives: the proven lower bound of its distance minus one. */
  static int tolerance(LinearCode code) {
    return org.wideec.code.MinimumDistance.of(code).faultsTolerated();
  }
}
