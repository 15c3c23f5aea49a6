package org.wideec.repair;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.wideec.analysis.PlanGuarantees;
import org.wideec.code.LinearCode;
import org.wideec.code.NotDecodableException;
import org.wideec.placement.PlacementPlan;
import org.wideec.topology.Site;

/**
 * Plans the decommission (or maintenance) of DataNodes by local reconstruction: each unit a leaving node holds is
 * rebuilt on another node from the fewest other units the code allows (its local group first,
 * {@link SingleUnitRepairPlanner}), so the leaving node's NIC, which a copy would queue every unit behind, sends
 * nothing. The idea is HDFS-17550's (reconstruct rather than copy), with an LRC's local groups making each rebuild
 * read a few units instead of k.
 *
 * <p>Targets keep the stripe's placement: a node in the unit's own rack (where its local group lives: one local group
 * per rack, or the combined-locality packing) holding no unit of the stripe; failing that, a node holding no unit of
 * the stripe in the rack with the fewest of its units, below the stripe's per-rack limit, where the stripe keeps what
 * its plan promised a rack's loss ({@link PlanGuarantees}: decodable and, when the plan gives it, readable by HDFS's
 * stock client, which never retries another set of parities: DESIGN.md §2); a rack that would break it is passed over,
 * and with none left the unit is HDFS's to copy, the plan saying why. Helpers and targets are
 * chosen least recently selected first over the whole plan (ECWide §4.1 keeps one list for both; ECPipe §3.3), so a
 * node's hundreds of units spread over many requestors and helpers that run at once. A unit is read from its leaving
 * node only when the other units cannot rebuild it (the plan says so). Not thread-safe; pure: no HDFS.
 */
public final class DecommissionPlanner {
  private final RepairScheme scheme;
  private final Map<String, Long> lastSelected = new HashMap<>();
  private long clock;

  /** @param scheme how the DataNodes repair (decides which rack links a rebuild crosses) */
  public DecommissionPlanner(RepairScheme scheme) {
    if (scheme == null) {
      throw new IllegalArgumentException("a decommission plan needs the DataNodes' repair scheme");
    }
    this.scheme = scheme;
  }

  /**
   * A stripe (or block group) with units on leaving nodes.
   *
   * @param units every stored unit and where it is now, leaving nodes included
   * @param zeros units that are zero by construction (a short group's missing data units): never read, never rebuilt
   * @param unitLengths each unit's length, by index
   * @param maxUnitsPerRack the most units of the stripe its placement puts in one rack
   * @param plan the placement the stripe was planned by, whose rack guarantees a unit moved to another rack keeps;
   *     null when none is known (then only the per-rack limit holds)
   */
  public record LeavingStripe(String name, LinearCode code, Map<Integer, UnitLocation> units, Set<Integer> zeros,
      long[] unitLengths, int maxUnitsPerRack, PlacementPlan plan) {
    /** A stripe whose plan is not known: only the per-rack limit holds for a unit moved to another rack. */
    public LeavingStripe(String name, LinearCode code, Map<Integer, UnitLocation> units, Set<Integer> zeros,
        long[] unitLengths, int maxUnitsPerRack) {
      this(name, code, units, zeros, unitLengths, maxUnitsPerRack, null);
    }

    public LeavingStripe {
      units = Map.copyOf(units);
      zeros = Set.copyOf(zeros);
      if (unitLengths.length != code.n()) {
        throw new IllegalArgumentException(name + ": " + unitLengths.length + " unit lengths for " + code.spec()
            + " (" + code.n() + " units)");
      }
      if (maxUnitsPerRack < 1) {
        throw new IllegalArgumentException(name + ": a rack holds at least one unit, not " + maxUnitsPerRack);
      }
      if (plan != null && plan.code().n() != code.n()) {
        throw new IllegalArgumentException(name + ": a plan of " + plan.code().spec() + " for " + code.spec());
      }
    }
  }

  /**
   * @param leaving the nodes being decommissioned or entering maintenance
   * @param stripes the stripes with a unit on one of them
   * @param candidates live nodes in service that may receive a unit (leaving nodes among them are ignored)
   */
  public DecommissionPlan plan(Set<String> leaving, List<LeavingStripe> stripes, List<Site> candidates) {
    List<Site> targets = candidates.stream().filter(s -> !leaving.contains(s.node())).toList();
    List<DecommissionPlan.Rebuild> rebuilds = new ArrayList<>();
    List<DecommissionPlan.Unplaced> unplaced = new ArrayList<>();
    for (LeavingStripe s : stripes) {
      planStripe(leaving, s, targets, rebuilds, unplaced);
    }
    return new DecommissionPlan(rebuilds, unplaced);
  }

  private void planStripe(Set<String> leaving, LeavingStripe s, List<Site> targets,
      List<DecommissionPlan.Rebuild> rebuilds, List<DecommissionPlan.Unplaced> unplaced) {
    Map<Integer, UnitLocation> staying = new TreeMap<>();
    List<Integer> leavingUnits = new ArrayList<>();
    Set<String> stripeNodes = new HashSet<>();
    Map<String, Integer> perRack = new HashMap<>();
    String[] rackOf = new String[s.code().n()];
    s.units().forEach((u, loc) -> {
      stripeNodes.add(loc.node());
      perRack.merge(loc.rack(), 1, Integer::sum);
      rackOf[u] = loc.rack();
      if (leaving.contains(loc.node())) {
        leavingUnits.add(u);
      } else {
        staying.put(u, loc);
      }
    });
    s.zeros().forEach(z -> rackOf[z] = null); // never lost
    PlanGuarantees guarantees = s.plan() == null ? null : PlanGuarantees.of(s.plan());
    leavingUnits.sort(Comparator.naturalOrder());
    for (int u : leavingUnits) {
      UnitLocation from = s.units().get(u);
      List<String> passedOver = new ArrayList<>();
      Site target = target(s, u, from, targets, stripeNodes, perRack, rackOf, guarantees, passedOver);
      if (target == null) {
        unplaced.add(new DecommissionPlan.Unplaced(s.name(), u, from.site(), "no live DataNode in service holds no"
            + " unit of the stripe in rack " + from.rack() + " or in a rack below " + s.maxUnitsPerRack() + " of its"
            + " units" + (passedOver.isEmpty() ? "" : " where the stripe keeps its plan's guarantees ("
                + String.join("; ", passedOver) + ")")));
        continue;
      }
      stripeNodes.add(target.node());
      // The unit moves: its old rack keeps the count until the node leaves, the new one gains it now.
      perRack.merge(target.rack(), target.rack().equals(from.rack()) ? 0 : 1, Integer::sum);
      rackOf[u] = target.rack();
      selected(target.node());
      rebuilds.add(rebuild(s, u, from, target, staying));
    }
  }

  private DecommissionPlan.Rebuild rebuild(LeavingStripe s, int unit, UnitLocation from, Site target,
      Map<Integer, UnitLocation> staying) {
    long bytes = s.unitLengths()[unit];
    Map<Integer, UnitLocation> available = new HashMap<>(staying);
    s.zeros().forEach(z -> available.put(z, UnitLocation.zero(z, target.rack())));
    try {
      RepairGraph g = SingleUnitRepairPlanner.plan(scheme, s.code(), unit, available, target.node(), target.rack(),
          LinkWeights.UNIFORM, helperPreference(available));
      List<UnitLocation> helpers = new ArrayList<>();
      for (RepairStep step : g.steps()) {
        if (!s.zeros().contains(step.helper().unit())) {
          helpers.add(step.helper());
          selected(step.helper().node());
        }
      }
      return new DecommissionPlan.Rebuild(s.name(), unit, from.site(), target, helpers, bytes,
          (long) g.crossRackTransfers() * bytes, false);
    } catch (NotDecodableException e) {
      return new DecommissionPlan.Rebuild(s.name(), unit, from.site(), target, List.of(from), bytes,
          from.rack().equals(target.rack()) ? 0 : bytes, true);
    }
  }

  /**
   * The unit's own rack first, then the rack with the fewest units of the stripe below its limit; in a rack, a node
   * holding no unit of the stripe, least recently selected. Another rack is taken only where the stripe keeps its
   * plan's rack guarantees with the unit there (its own rack holds the same units as before); each rack passed over
   * for that goes into {@code passedOver} with why.
   */
  private Site target(LeavingStripe s, int unit, UnitLocation from, List<Site> targets, Set<String> stripeNodes,
      Map<String, Integer> perRack, String[] rackOf, PlanGuarantees guarantees, List<String> passedOver) {
    Comparator<Site> order = Comparator.comparing((Site t) -> !t.rack().equals(from.rack()))
        .thenComparingInt(t -> perRack.getOrDefault(t.rack(), 0))
        .thenComparingLong(t -> lastSelected.getOrDefault(t.node(), 0L)).thenComparing(Site::node);
    List<Site> ordered = targets.stream().filter(t -> !stripeNodes.contains(t.node()))
        .filter(t -> t.rack().equals(from.rack()) || perRack.getOrDefault(t.rack(), 0) < s.maxUnitsPerRack())
        .sorted(order).toList();
    Map<String, String> broken = new java.util.LinkedHashMap<>();
    for (Site t : ordered) {
      if (guarantees == null || t.rack().equals(from.rack())) {
        return t;
      }
      String why = broken.computeIfAbsent(t.rack(), r -> {
        String[] after = rackOf.clone();
        after[unit] = r;
        String b = guarantees.rackBroken(r, after, s.zeros());
        return b == null ? "" : b;
      });
      if (why.isEmpty()) {
        return t;
      }
    }
    broken.forEach((r, why) -> passedOver.add(why));
    return null;
  }

  private Comparator<Integer> helperPreference(Map<Integer, UnitLocation> available) {
    return Comparator.comparingLong((Integer u) -> lastSelected.getOrDefault(available.get(u).node(), 0L))
        .thenComparingInt(u -> u);
  }

  private void selected(String node) {
    lastSelected.put(node, ++clock);
  }
}
