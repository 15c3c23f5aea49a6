package org.wideec.repair;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.wideec.analysis.PlanGuarantees;
import org.wideec.placement.PlacementException;
import org.wideec.placement.PlacementPlan;
import org.wideec.placement.RackAssignment;

/**
 * Full-node recovery over every rack link (multi-pipeline recovery, as FullRepair argues against one chain per
 * lost unit converging on one place): chooses the rack each lost unit is rebuilt in so that the repairs' cross-rack
 * streams spread over the racks' links. Sent back to its planned rack, every unit a node held lands in that node's
 * rack, so every repair's last cross-rack hop shares one downlink. Here each unit starts at its planned rack
 * ({@link RackAssignment#repairRacks}) and moves to another rack only where its group keeps every guarantee of
 * its plan ({@link PlanGuarantees}: per-rack cap, rack-loss tolerance, stock readability, repair locality); among
 * those, a greedy local search moves one rebuild at a time to the rack that most lowers the link loads (busiest
 * link first, then the next), until no move helps. Repairs already in flight count on the links they use. Where the
 * surviving racks cannot hold the plan (a whole rack lost, no empty rack left), a unit's planned rack is one beyond
 * the plan's per-rack cap, chosen so that rack's loss stays decodable where some rack keeps it so; the rebuild says
 * so ({@link FullNodeRecoveryPlan.Rebuild#beyondCap}) and stays there.
 *
 * <p>Where the caller runs each rebuild along the chain the plan names, the search also chooses the order in which
 * a rack-aggregated chain visits its racks. With rack gateways shared by both directions (the embedded benches'
 * shaper) this is what a node's recovery gains most from: the lost node's rack receives one partial sum per lost
 * unit whichever rack sends it, and a unit cannot leave that rack without breaking repair locality, but a chain's
 * middle rack carries two passes and its first only one, and in name order the same late racks are the middle of
 * most chains.
 *
 * <p>A repair's streams are the ones the DataNode worker runs ({@link SingleUnitShape}, with the rebuilt
 * unit's new node as requestor: the NameNode's first target runs the task). A group that lost several units keeps
 * its planned racks (restoring its plan matters more than spreading). HDFS's reconstruction task rebuilds them by one
 * joint decode at its first target, which sends the other units on ({@link MultiUnitStreams}). A caller that runs
 * the plan's shapes gets a choice instead: the lost units whose local repair reads another lost unit (two units of
 * one Azure-LRC local group need a global decode anyway) are decoded jointly, one read of the helpers for all of
 * them, only where that sends fewer bytes across racks than rebuilding each alone; each way's reads and cross-rack
 * bytes are in the plan ({@link FullNodeRecoveryPlan.JointChoice}). Every other lost unit is rebuilt alone.
 */
public final class FullNodeRecoveryPlanner {
  private static final int MAX_PASSES = 8;
  /** Chains through more racks keep the worker's order (5! orders is the most tried per rack). */
  private static final int MAX_ORDERED_RACKS = 5;

  /**
   * One group's loss.
   *
   * @param id the group's name (an HDFS block group id, a stripe id)
   * @param liveRacks real rack of every surviving unit
   * @param lost the units to rebuild, ascending
   * @param zeros units known to be zero (data units past the end of a short group): never read, never rebuilt
   * @param freeNodes nodes per rack that may take a unit of this group (alive, holding none of its units)
   * @param unitBytes bytes of one rebuilt unit
   */
  public record GroupLoss(String id, PlacementPlan plan, Map<Integer, String> liveRacks, int[] lost, Set<Integer> zeros,
      Map<String, Integer> freeNodes, long unitBytes) {
    public GroupLoss {
      liveRacks = Map.copyOf(liveRacks);
      lost = lost.clone();
      Arrays.sort(lost);
      zeros = Set.copyOf(zeros);
      freeNodes = Map.copyOf(freeNodes);
      if (lost.length == 0) {
        throw new IllegalArgumentException("group " + id + " lost no unit");
      }
      for (int u : lost) {
        if (liveRacks.containsKey(u) || zeros.contains(u)) {
          throw new IllegalArgumentException("group " + id + ": unit " + u + " is both lost and present");
        }
      }
    }
  }

  private final RepairScheme scheme;
  private final RackLinkLoad.Links links;
  private final boolean plannedShapes;

  /**
   * A planner whose rebuilds follow the worker's default chain (racks in name order): for a caller that can only
   * choose where a unit is rebuilt, as the NameNode's placement policy.
   *
   * @param scheme the scheme the DataNode workers repair with (wide-ec.repair.scheme)
   */
  public FullNodeRecoveryPlanner(RepairScheme scheme, RackLinkLoad.Links links) {
    this(scheme, links, false);
  }

  /**
   * @param plannedShapes whether the caller runs each rebuild as the plan shapes it: a rack-aggregated chain along
   *     the racks in the order the plan names ({@link StripeRepair#withRackChain}), and a group's lost units decoded
   *     jointly or each alone as the plan chooses ({@link FullNodeRecoveryPlan.Rebuild#decodedWith}); false for a
   *     caller that can only choose racks (HDFS's tasks: racks in name order, every lost unit of a group in one
   *     decode)
   */
  public FullNodeRecoveryPlanner(RepairScheme scheme, RackLinkLoad.Links links, boolean plannedShapes) {
    this.scheme = scheme;
    this.links = links;
    this.plannedShapes = plannedShapes;
  }

  /**
   * The plan; throws PlacementException naming the group when some unit has no rack with a free node at all (as
   * {@link RackAssignment} does).
   */
  public FullNodeRecoveryPlan plan(List<GroupLoss> losses, RackLinkLoad inFlight) {
    List<Choice> choices = new ArrayList<>();
    List<FullNodeRecoveryPlan.JointChoice> joints = new ArrayList<>();
    Set<String> racks = new TreeSet<>();
    for (GroupLoss g : losses) {
      racks.addAll(g.liveRacks().values());
      racks.addAll(g.freeNodes().keySet());
      choices.addAll(choicesOf(g, joints));
    }
    RackLinkLoad baseline = new RackLinkLoad(links);
    choices.forEach(c -> baseline.add(c.at.flows, 1));
    RackLinkLoad total = inFlight.copy();
    total.add(baseline, 1);
    for (int pass = 0; pass < MAX_PASSES && improve(choices, total); pass++) {
      // each pass moves a rebuild only when the link loads strictly fall, so the search ends
    }
    RackLinkLoad load = new RackLinkLoad(links);
    List<FullNodeRecoveryPlan.Rebuild> rebuilds = new ArrayList<>();
    long must = 0;
    for (Choice c : choices) {
      load.add(c.at.flows, 1);
      must += c.options.stream().mapToLong(o -> o.flows.crossRackBytes()).min().orElse(0);
      Map<String, List<FullNodeRecoveryPlan.Transfer>> byRack = new LinkedHashMap<>();
      c.options.forEach(o -> byRack.putIfAbsent(o.rack, o.transfers));
      rebuilds.add(new FullNodeRecoveryPlan.Rebuild(c.group, c.unit, c.planned, c.at.rack, c.at.chain, c.at.transfers,
          byRack, c.decodedWith, c.at.readBytes, c.at.rack.equals(c.planned) ? c.beyondCap : null));
    }
    return new FullNodeRecoveryPlan(rebuilds, load, baseline, inFlight, must, racks.size(),
        linkFloor(choices, inFlight), joints);
  }

  /** The most bytes some link carries whatever option each rebuild takes (each at its lightest for that link). */
  private static long linkFloor(List<Choice> choices, RackLinkLoad inFlight) {
    Map<String, Long> floor = new HashMap<>(inFlight.bytes());
    Set<String> names = new TreeSet<>();
    choices.forEach(c -> c.options.forEach(o -> names.addAll(o.flows.bytes().keySet())));
    for (Choice c : choices) {
      for (String link : names) {
        floor.merge(link, c.options.stream().mapToLong(o -> o.flows.bytes().getOrDefault(link, 0L)).min().orElse(0),
            Long::sum);
      }
    }
    return floor.values().stream().mapToLong(Long::longValue).max().orElse(0);
  }

  /**
   * One pass of the local search: each rebuild in turn takes the option (valid rack, order of its chain's racks)
   * under which the link loads are lowest (its current one on a tie). True when some rebuild moved.
   */
  private static boolean improve(List<Choice> choices, RackLinkLoad total) {
    boolean moved = false;
    for (Choice c : choices) {
      if (c.options.size() < 2) {
        continue;
      }
      total.add(c.at.flows, -1);
      Option best = c.at;
      RackLinkLoad bestLoad = with(total, c.at.flows);
      for (Option o : c.options) {
        RackLinkLoad trial = with(total, o.flows);
        if (trial.compareTo(bestLoad) < 0) {
          best = o;
          bestLoad = trial;
        }
      }
      moved |= best != c.at;
      c.at = best;
      total.add(c.at.flows, 1);
    }
    return moved;
  }

  private static RackLinkLoad with(RackLinkLoad total, RackLinkLoad flows) {
    RackLinkLoad t = total.copy();
    t.add(flows, 1);
    return t;
  }

  /**
   * One way to rebuild a lost unit: its rack, the racks its chain passes through in order, what crosses racks, what
   * its repair reads from helpers.
   */
  private record Option(String rack, List<String> chain, List<FullNodeRecoveryPlan.Transfer> transfers,
      RackLinkLoad flows, long readBytes) {}

  /** A lost unit's options (the planned rack's default chain first) and the one chosen. */
  private static final class Choice {
    final String group;
    final int unit;
    final String planned;
    /** The units one decode rebuilds with this one (it among them), or empty when it is rebuilt alone. */
    final List<Integer> decodedWith;
    final List<Option> options = new ArrayList<>();
    Option at;
    /** Why its planned rack holds more of the group than the plan's cap, or null when it does not. */
    String beyondCap;

    Choice(String group, int unit, String planned) {
      this(group, unit, planned, List.of());
    }

    Choice(String group, int unit, String planned, List<Integer> decodedWith) {
      this.group = group;
      this.unit = unit;
      this.planned = planned;
      this.decodedWith = List.copyOf(decodedWith);
    }

    void add(Option o) {
      options.add(o);
      at = at == null ? o : at;
    }
  }

  /**
   * Why unit u of the group may not be rebuilt in {@code rack} instead of its planned rack, or null when it may:
   * no free node there, or a guarantee of the group's plan it would break ({@link RebuildRack}).
   */
  public static String whyNot(GroupLoss g, int u, String rack) {
    return RebuildRack.whyNot(g, u, rack, RackAssignment.repairRacks(g.plan(), g.liveRacks(), g.lost(), g.freeNodes()),
        PlanGuarantees.of(g.plan()));
  }

  private List<Choice> choicesOf(GroupLoss g, List<FullNodeRecoveryPlan.JointChoice> joints) {
    RackAssignment.RepairPlacement placement;
    try {
      placement = RackAssignment.repairPlacement(g.plan(), g.liveRacks(), g.lost(), g.freeNodes());
    } catch (PlacementException e) {
      throw new PlacementException("group " + g.id() + ": " + e.getMessage());
    }
    List<Choice> out = choicesOf(g, placement.racks(), joints);
    out.forEach(c -> c.beyondCap = placement.beyondCap().get(c.unit));
    return out;
  }

  private List<Choice> choicesOf(GroupLoss g, Map<Integer, String> planned,
      List<FullNodeRecoveryPlan.JointChoice> joints) {
    if (g.lost().length > 1) {
      return plannedShapes ? severalLost(g, planned, joints) : jointRebuild(g, planned, g.lost());
    }
    int u = g.lost()[0];
    Choice c = new Choice(g.id(), u, planned.get(u));
    PlanGuarantees guarantees = PlanGuarantees.of(g.plan());
    // A unit placed beyond the cap has no rack that keeps the plan's guarantees: each other rack breaks them too.
    List<String> racks = new ArrayList<>(new TreeSet<>(g.freeNodes().keySet()));
    racks.remove(c.planned);
    racks.add(0, c.planned);
    for (String rack : racks) {
      // A unit leaves its planned rack only where the group keeps what the plan promised.
      if (RebuildRack.whyNot(g, u, rack, planned, guarantees) == null) {
        chainOrders(g, SingleUnitShape.of(scheme, g, u, rack), rack).forEach(c::add);
      }
    }
    return List.of(c);
  }

  /**
   * A group that lost several units, for a caller that runs the plan's shapes: the units whose local repair reads
   * another lost unit decoded jointly where that sends fewer bytes across racks than each alone (the choice and both
   * ways' counts go into {@code joints}); every other unit alone, along any order of its chain's racks. Planned racks.
   */
  private List<Choice> severalLost(GroupLoss g, Map<Integer, String> planned,
      List<FullNodeRecoveryPlan.JointChoice> joints) {
    List<Integer> wider = JointShape.needingWiderDecode(g);
    List<Choice> out = new ArrayList<>();
    List<Integer> alone = new ArrayList<>();
    for (int u : g.lost()) {
      alone.add(u);
    }
    if (wider.size() > 1) {
      int[] together = wider.stream().mapToInt(Integer::intValue).toArray();
      JointShape joint = JointShape.of(g, planned, together, scheme.aggregatesInRacks());
      FullNodeRecoveryPlan.JointChoice choice = joint.choose(g.id(), wider,
          wider.stream().map(u -> SingleUnitShape.of(scheme, g, u, planned.get(u))).toList());
      joints.add(choice);
      if (choice.joint()) {
        out.addAll(jointRebuild(g, planned, together));
        alone.removeAll(wider);
      }
    }
    for (int u : alone) {
      Choice c = new Choice(g.id(), u, planned.get(u));
      chainOrders(g, SingleUnitShape.of(scheme, g, u, c.planned), c.planned).forEach(c::add);
      out.add(c);
    }
    return out;
  }

  /**
   * The ways a rack-aggregated chain into {@code rack} may visit its other racks: the worker's default order
   * first, then every other order of the same racks. Each rack still hands on one partial sum (ECWide §4.1), so
   * the bytes across racks stay the same, but which rack receives a partial sum and sends another (two passes over
   * its gateway, one over each of its links) moves: spread over the racks, the middles of many chains stop piling
   * up on the racks late in name order. Another scheme's repair keeps its one shape.
   */
  private List<Option> chainOrders(GroupLoss g, SingleUnitShape repair, String rack) {
    List<String> path = repair.chainInto(rack, scheme);
    List<Option> out = new ArrayList<>();
    out.add(option(rack, path, repair.transfers(), repair.readBytes()));
    if (!plannedShapes || path.size() < 2 || path.size() > MAX_ORDERED_RACKS) {
      return out;
    }
    for (List<String> order : SingleUnitShape.orders(path)) {
      if (!order.equals(path)) {
        out.add(option(rack, order, SingleUnitShape.along(order, rack, g.unitBytes()), repair.readBytes()));
      }
    }
    return out;
  }

  private Option option(String rack, List<String> chain, List<FullNodeRecoveryPlan.Transfer> transfers,
      long readBytes) {
    RackLinkLoad f = new RackLinkLoad(links);
    transfers.forEach(x -> f.addTransfer(x.fromRack(), x.toRack(), x.bytes()));
    return new Option(rack, List.copyOf(chain), transfers, f, readBytes);
  }

  /** Units of a group rebuilt by one joint decode at the first one's target, the others sent on; planned racks. */
  private List<Choice> jointRebuild(GroupLoss g, Map<Integer, String> planned, int[] units) {
    JointShape joint = JointShape.of(g, planned, units, scheme.aggregatesInRacks());
    List<Integer> together = Arrays.stream(units).boxed().toList();
    List<Choice> out = new ArrayList<>();
    for (int u : units) {
      Choice c = new Choice(g.id(), u, planned.get(u), together);
      c.add(option(c.planned, List.of(), joint.byUnit().get(u), u == units[0] ? joint.readBytes() : 0));
      out.add(c);
    }
    return out;
  }
}
