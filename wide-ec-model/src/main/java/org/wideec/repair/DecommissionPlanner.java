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
 * Plans the decommission (or maintenance) of DataNodes: each unit a leaving node holds is either copied from it to
 * its target or rebuilt there from the fewest other units the code allows (its local group first,
 * {@link SingleUnitRepairPlanner}, the idea of HDFS-17550 with an LRC's local groups reading a few units instead of
 * k). A copy sends the unit once through the leaving node's NIC, which every copy shares (HDFS-16613); a rebuild
 * sends one unit's worth per helper through the helpers' NICs and, with racks oversubscribed, through every rack link
 * its chain crosses. Priced under one link model ({@link RackLinkLoad} at {@link LinkRates}, as the full-node
 * recovery planner prices racks), the split with the shortest time is taken over all the units planned together
 * ({@link CopyOrRebuildSplit}, near-linear in the units): a small node copies, a node with many units copies some while
 * the local groups rebuild the others. Both ways run through the repair worker and land on the same target, so the
 * stripe's placement is the same either way. Block groups and archived stripes are priced in one split: an archived
 * stripe's leaving unit comes with its target chosen by the archive's own rules ({@link LeavingStripe#targets}).
 *
 * <p>Targets keep the stripe's placement: a node in the unit's own rack (where its local group lives: one local group
 * per rack, or the combined-locality packing) holding no unit of the stripe; failing that, a node holding no unit of
 * the stripe in the rack with the fewest of its units, below the stripe's per-rack limit, where the stripe keeps what
 * its plan promised a rack's loss ({@link PlanGuarantees}: decodable and, when the plan gives it, readable by HDFS's
 * stock client, which never retries another set of parities: DESIGN.md §2); a rack that would break it is passed over,
 * and with none left the unit is HDFS's to copy, the plan saying why. Helpers and targets are
 * chosen least recently selected first over the whole plan (ECWide §4.1 keeps one list for both; ECPipe §3.3), so a
 * node's hundreds of units spread over many requestors and helpers that run at once. A unit the other units cannot
 * rebuild is always copied. Without link rates every other unit is rebuilt. Not thread-safe; pure: no HDFS.
 */
public final class DecommissionPlanner {
  private final RepairScheme scheme;
  private final RackLinkLoad.Links links;
  private final LinkRates rates;
  private final Map<String, Long> lastSelected = new HashMap<>();
  private long clock;

  /**
   * A planner that rebuilds every unit the other units can rebuild, whatever it costs, and copies only the others.
   *
   * @param scheme how the DataNodes repair (decides which rack links a rebuild crosses)
   */
  public DecommissionPlanner(RepairScheme scheme) {
    this(scheme, RackLinkLoad.Links.FULL_DUPLEX, null);
  }

  /**
   * A planner that prices each unit's copy from its leaving node against its rebuild by the other units under the
   * link model and takes, over all the units it plans, the split with the shortest time.
   *
   * @param scheme how the DataNodes repair (decides which rack links a rebuild crosses)
   * @param links how racks meet the core
   * @param rates the NICs' and the rack links' speeds; null: rebuild every unit the others can
   */
  public DecommissionPlanner(RepairScheme scheme, RackLinkLoad.Links links, LinkRates rates) {
    if (scheme == null || links == null) {
      throw new IllegalArgumentException("a decommission plan needs the DataNodes' repair scheme and a link model");
    }
    this.scheme = scheme;
    this.links = links;
    this.rates = rates;
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
   * @param targets leaving units whose target is chosen already, by the rules of the stripe's own layout (an archived
   *     stripe's unit goes to its planned rack, as its rebuild would): priced only, copy and rebuild landing there
   */
  public record LeavingStripe(String name, LinearCode code, Map<Integer, UnitLocation> units, Set<Integer> zeros,
      long[] unitLengths, int maxUnitsPerRack, PlacementPlan plan, Map<Integer, Site> targets) {
    /** A stripe whose plan is not known: only the per-rack limit holds for a unit moved to another rack. */
    public LeavingStripe(String name, LinearCode code, Map<Integer, UnitLocation> units, Set<Integer> zeros,
        long[] unitLengths, int maxUnitsPerRack) {
      this(name, code, units, zeros, unitLengths, maxUnitsPerRack, null);
    }

    /** A stripe whose units' targets the planner chooses. */
    public LeavingStripe(String name, LinearCode code, Map<Integer, UnitLocation> units, Set<Integer> zeros,
        long[] unitLengths, int maxUnitsPerRack, PlacementPlan plan) {
      this(name, code, units, zeros, unitLengths, maxUnitsPerRack, plan, Map.of());
    }

    public LeavingStripe {
      units = Map.copyOf(units);
      zeros = Set.copyOf(zeros);
      targets = Map.copyOf(targets);
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
      for (int u : targets.keySet()) {
        if (!units.containsKey(u)) {
          throw new IllegalArgumentException(name + ": a target for unit " + u + ", which the stripe does not hold");
        }
      }
    }

    /** The same stripe with these leaving units' targets chosen already. */
    public LeavingStripe withTargets(Map<Integer, Site> chosen) {
      return new LeavingStripe(name, code, units, zeros, unitLengths, maxUnitsPerRack, plan, chosen);
    }
  }

  /**
   * @param leaving the nodes being decommissioned or entering maintenance
   * @param stripes the stripes with a unit on one of them
   * @param candidates live nodes in service that may receive a unit (leaving nodes among them are ignored)
   */
  public DecommissionPlan plan(Set<String> leaving, List<LeavingStripe> stripes, List<Site> candidates) {
    return plan(leaving, stripes, candidates, new RackLinkLoad(links));
  }

  /**
   * @param inFlight what copies and rebuilds already under way put on the links, which these share them with
   */
  public DecommissionPlan plan(Set<String> leaving, List<LeavingStripe> stripes, List<Site> candidates,
      RackLinkLoad inFlight) {
    List<Site> targets = candidates.stream().filter(s -> !leaving.contains(s.node())).toList();
    List<UnitChoice> choices = new ArrayList<>();
    List<DecommissionPlan.Unplaced> unplaced = new ArrayList<>();
    for (LeavingStripe s : stripes) {
      planStripe(leaving, s, targets, choices, unplaced);
    }
    List<CopyOrRebuildSplit.Ways> ways = choices.stream()
        .map(c -> new CopyOrRebuildSplit.Ways(c.copy.flows(), c.rebuild == null ? null : c.rebuild.flows())).toList();
    boolean[] copy = new boolean[choices.size()];
    for (int i = 0; i < copy.length; i++) {
      copy[i] = choices.get(i).rebuild == null;
    }
    RackLinkLoad load;
    if (rates != null) {
      CopyOrRebuildSplit.Split split = CopyOrRebuildSplit.fastest(ways, inFlight, rates);
      copy = split.copy();
      load = split.load();
    } else {
      load = CopyOrRebuildSplit.loadOf(ways, copy, inFlight);
    }
    return new DecommissionPlan(interleaved(choices, copy), unplaced, load, rates);
  }

  /** A leaving unit's two ways off its node: copied from it, or rebuilt by the other units (null: they cannot). */
  private record UnitChoice(DecommissionPlan.Rebuild copy, DecommissionPlan.Rebuild rebuild) {}

  /**
   * The chosen ways in the order orders run them: copies spread evenly among the rebuilds, so that orders running a
   * few at a time keep the leaving node's NIC and the rebuilds' links busy together rather than one after the other.
   */
  private static List<DecommissionPlan.Rebuild> interleaved(List<UnitChoice> choices, boolean[] copy) {
    long copies = 0;
    for (boolean c : copy) {
      copies += c ? 1 : 0;
    }
    long rebuilds = copy.length - copies;
    List<double[]> keyed = new ArrayList<>();
    long ci = 0;
    long ri = 0;
    for (int i = 0; i < copy.length; i++) {
      double at = copy[i] ? (ci++ + 0.5) / copies : (ri++ + 0.5) / rebuilds;
      keyed.add(new double[] {at, i});
    }
    keyed.sort(Comparator.comparingDouble((double[] k) -> k[0]).thenComparingDouble(k -> k[1]));
    List<DecommissionPlan.Rebuild> out = new ArrayList<>();
    for (double[] k : keyed) {
      int i = (int) k[1];
      out.add(copy[i] ? choices.get(i).copy : choices.get(i).rebuild);
    }
    return out;
  }

  private void planStripe(Set<String> leaving, LeavingStripe s, List<Site> targets, List<UnitChoice> choices,
      List<DecommissionPlan.Unplaced> unplaced) {
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
      Site chosen = s.targets().get(u);
      if (chosen != null && leaving.contains(chosen.node())) {
        unplaced.add(new DecommissionPlan.Unplaced(s.name(), u, from.site(), "its target " + chosen.node()
            + " is leaving too"));
        continue;
      }
      Site target = chosen != null ? chosen
          : target(s, u, from, targets, stripeNodes, perRack, rackOf, guarantees, passedOver);
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
      choices.add(choice(s, u, from, target, staying));
    }
  }

  private UnitChoice choice(LeavingStripe s, int unit, UnitLocation from, Site target,
      Map<Integer, UnitLocation> staying) {
    long bytes = s.unitLengths()[unit];
    RackLinkLoad copyFlows = new RackLinkLoad(links);
    copyFlows.addNodeTransfer(from.node(), target.node(), bytes);
    copyFlows.addTransfer(from.rack(), target.rack(), bytes);
    long copyCrossRack = from.rack().equals(target.rack()) ? 0 : bytes;
    Map<Integer, UnitLocation> available = new HashMap<>(staying);
    s.zeros().forEach(z -> available.put(z, UnitLocation.zero(z, target.rack())));
    RepairGraph g;
    try {
      g = SingleUnitRepairPlanner.plan(scheme, s.code(), unit, available, target.node(), target.rack(),
          LinkWeights.UNIFORM, helperPreference(available));
    } catch (NotDecodableException e) {
      return new UnitChoice(new DecommissionPlan.Rebuild(s.name(), unit, from.site(), target, List.of(from), bytes,
          copyCrossRack, true, copyFlows, null), null);
    }
    List<UnitLocation> helpers = new ArrayList<>();
    RackLinkLoad rebuildFlows = new RackLinkLoad(links);
    for (RepairStep step : g.steps()) {
      if (!s.zeros().contains(step.helper().unit())) {
        UnitLocation to = receiver(g, step, s.zeros(), target);
        helpers.add(step.helper());
        selected(step.helper().node());
        rebuildFlows.addNodeTransfer(step.helper().node(), to.node(), bytes);
        rebuildFlows.addTransfer(step.helper().rack(), to.rack(), bytes);
      }
    }
    return new UnitChoice(new DecommissionPlan.Rebuild(s.name(), unit, from.site(), target, List.of(from), bytes,
        copyCrossRack, true, copyFlows, rebuildFlows), new DecommissionPlan.Rebuild(s.name(), unit, from.site(),
        target, helpers, bytes, (long) g.crossRackTransfers() * bytes, false, rebuildFlows, copyFlows));
  }

  /** Where a step's sum goes: the next step that reads a stored unit (a zero unit reads and sends nothing), else the target. */
  private static UnitLocation receiver(RepairGraph g, RepairStep step, Set<Integer> zeros, Site target) {
    RepairStep next = step;
    while (next.next() != RepairStep.REQUESTOR) {
      next = g.steps().get(next.next());
      if (!zeros.contains(next.helper().unit())) {
        return next.helper();
      }
    }
    return new UnitLocation(-1, target);
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
