package org.wideec.repair;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.wideec.analysis.PlanGuarantees;
import org.wideec.code.LinearCode;
import org.wideec.placement.PlacementPlan;
import org.wideec.placement.RackAssignment;
import org.wideec.topology.Site;

/**
 * Full-node recovery over every rack link (multi-pipeline recovery, as FullRepair argues against one chain per
 * lost unit converging on one place): chooses the rack each lost unit is rebuilt in so that the repairs' cross-rack
 * streams spread over the racks' links. Sent back to its planned rack, every unit a node held lands in that node's
 * rack, so every repair's last cross-rack hop shares one downlink. Here each unit starts at its planned rack
 * ({@link RackAssignment#repairRacks}) and moves to another rack only where its group keeps every guarantee of
 * its plan ({@link PlanGuarantees}: per-rack cap, rack-loss tolerance, stock readability, repair locality); among
 * those, a greedy local search moves one rebuild at a time to the rack that most lowers the link loads (busiest
 * link first, then the next), until no move helps. Repairs already in flight count on the links they use.
 *
 * <p>A repair's streams are the ones the DataNode worker runs ({@link SingleUnitRepairPlanner} with the rebuilt
 * unit's new node as requestor: the NameNode's first target runs the task). A group that lost several units is
 * rebuilt by one joint decode at its first target and sends the other units on from there
 * ({@link MultiUnitStreams}); such a group keeps its planned racks: restoring its plan matters more than spreading.
 */
public final class FullNodeRecoveryPlanner {
  private static final int MAX_PASSES = 8;

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

  /** @param scheme the scheme the DataNode workers repair with (wide-ec.repair.scheme) */
  public FullNodeRecoveryPlanner(RepairScheme scheme, RackLinkLoad.Links links) {
    this.scheme = scheme;
    this.links = links;
  }

  /** The plan; throws PlacementException when some unit has no rack at all (as {@link RackAssignment} does). */
  public FullNodeRecoveryPlan plan(List<GroupLoss> losses, RackLinkLoad inFlight) {
    List<Choice> choices = new ArrayList<>();
    Set<String> racks = new TreeSet<>();
    for (GroupLoss g : losses) {
      racks.addAll(g.liveRacks().values());
      racks.addAll(g.freeNodes().keySet());
      choices.addAll(choicesOf(g));
    }
    RackLinkLoad baseline = new RackLinkLoad(links);
    choices.forEach(c -> baseline.add(c.flows.get(c.at), 1));
    RackLinkLoad total = inFlight.copy();
    total.add(baseline, 1);
    for (int pass = 0; pass < MAX_PASSES && improve(choices, total); pass++) {
      // each pass moves a rebuild only when the link loads strictly fall, so the search ends
    }
    RackLinkLoad load = new RackLinkLoad(links);
    List<FullNodeRecoveryPlan.Rebuild> rebuilds = new ArrayList<>();
    long must = 0;
    for (Choice c : choices) {
      load.add(c.flows.get(c.at), 1);
      must += c.flows.values().stream().mapToLong(RackLinkLoad::crossRackBytes).min().orElse(0);
      rebuilds.add(new FullNodeRecoveryPlan.Rebuild(c.group, c.unit, c.planned, c.at, c.transfers));
    }
    return new FullNodeRecoveryPlan(rebuilds, load, baseline, inFlight, must, racks.size());
  }

  /**
   * One pass of the local search: each rebuild in turn goes to the valid rack under which the link loads are
   * lowest (its current rack on a tie). True when some rebuild moved.
   */
  private static boolean improve(List<Choice> choices, RackLinkLoad total) {
    boolean moved = false;
    for (Choice c : choices) {
      if (c.flows.size() < 2) {
        continue;
      }
      total.add(c.flows.get(c.at), -1);
      String best = c.at;
      RackLinkLoad bestLoad = with(total, c.flows.get(c.at));
      for (Map.Entry<String, RackLinkLoad> e : c.flows.entrySet()) {
        RackLinkLoad trial = with(total, e.getValue());
        if (trial.compareTo(bestLoad) < 0) {
          best = e.getKey();
          bestLoad = trial;
        }
      }
      moved |= !best.equals(c.at);
      c.at = best;
      total.add(c.flows.get(c.at), 1);
    }
    return moved;
  }

  private static RackLinkLoad with(RackLinkLoad total, RackLinkLoad flows) {
    RackLinkLoad t = total.copy();
    t.add(flows, 1);
    return t;
  }

  /** A lost unit's candidate racks (the planned one first) with the flows of its repair to each. */
  private static final class Choice {
    final String group;
    final int unit;
    final String planned;
    final Map<String, RackLinkLoad> flows = new java.util.LinkedHashMap<>();
    final Map<String, List<FullNodeRecoveryPlan.Transfer>> transfers = new java.util.LinkedHashMap<>();
    String at;

    Choice(String group, int unit, String planned) {
      this.group = group;
      this.unit = unit;
      this.planned = planned;
      this.at = planned;
    }
  }

  private List<Choice> choicesOf(GroupLoss g) {
    PlacementPlan plan = g.plan();
    LinearCode code = plan.code();
    Map<Integer, String> planned = RackAssignment.repairRacks(plan, g.liveRacks(), g.lost(), g.freeNodes());
    if (g.lost().length > 1) {
      return jointRebuild(g, planned);
    }
    int u = g.lost()[0];
    Choice c = new Choice(g.id(), u, planned.get(u));
    String[] reference = racksWith(g, u, planned.get(u));
    PlanGuarantees guarantees = PlanGuarantees.of(plan);
    List<String> racks = new ArrayList<>(new TreeSet<>(g.freeNodes().keySet()));
    racks.remove(c.planned);
    racks.add(0, c.planned);
    for (String rack : racks) {
      if (!rack.equals(c.planned)) {
        if (g.freeNodes().getOrDefault(rack, 0) <= 0) {
          continue;
        }
        String[] after = racksWith(g, u, rack);
        // A unit leaves its planned rack only where the group keeps what the plan promised.
        if (guarantees.rackFaultBroken(after, g.zeros()) != null
            || !guarantees.keepsRepairLocality(after, reference, g.zeros())) {
          continue;
        }
      }
      List<FullNodeRecoveryPlan.Transfer> t = singleUnitTransfers(code, g, u, rack);
      RackLinkLoad f = new RackLinkLoad(links);
      t.forEach(x -> f.addTransfer(x.fromRack(), x.toRack(), x.bytes()));
      c.flows.put(rack, f);
      c.transfers.put(rack, t);
    }
    return List.of(c);
  }

  /** The rack of every unit of the group with lost unit u rebuilt in {@code rack}; null for zero units. */
  private static String[] racksWith(GroupLoss g, int u, String rack) {
    String[] out = new String[g.plan().code().n()];
    g.liveRacks().forEach((unit, r) -> out[unit] = r);
    out[u] = rack;
    return out;
  }

  /** The cross-rack transfers of the worker's repair of unit u with its requestor in {@code rack}. */
  private List<FullNodeRecoveryPlan.Transfer> singleUnitTransfers(LinearCode code, GroupLoss g, int u, String rack) {
    Map<Integer, UnitLocation> available = survivors(g);
    for (int z : g.zeros()) {
      available.put(z, UnitLocation.zero(z, rack));
    }
    // The worker's order: zero units first (free), then unit order (StreamPlan).
    Comparator<Integer> preference = Comparator.comparing((Integer x) -> !g.zeros().contains(x))
        .thenComparing(Comparator.naturalOrder());
    RepairScheme planned = scheme == RepairScheme.CYCLIC ? RepairScheme.PIPELINED : scheme;
    RepairGraph chain = SingleUnitRepairPlanner.plan(planned, code, u, available, "requestor", rack, LinkWeights.UNIFORM,
        preference);
    List<RepairGraph> graphs = scheme == RepairScheme.CYCLIC ? SingleUnitRepairPlanner.cyclic(chain) : List.of(chain);
    List<FullNodeRecoveryPlan.Transfer> out = new ArrayList<>();
    for (RepairGraph graph : graphs) {
      long bytes = g.unitBytes() / graphs.size();
      List<RepairStep> steps = graph.steps();
      for (RepairStep s : steps) {
        if (g.zeros().contains(s.helper().unit())) {
          continue;
        }
        // A zero unit is never a step: whatever feeds it goes straight to where it would send (StreamPlan).
        int next = s.next();
        while (next != RepairStep.REQUESTOR && g.zeros().contains(steps.get(next).helper().unit())) {
          next = steps.get(next).next();
        }
        String to = next == RepairStep.REQUESTOR ? rack : steps.get(next).helper().rack();
        if (!to.equals(s.helper().rack())) {
          out.add(new FullNodeRecoveryPlan.Transfer(s.helper().rack(), to, bytes));
        }
      }
    }
    return out;
  }

  /** A group that lost several units: one joint decode at the first target, the others sent on; planned racks. */
  private List<Choice> jointRebuild(GroupLoss g, Map<Integer, String> planned) {
    String requestorRack = planned.get(g.lost()[0]);
    MultiUnitStreams m = MultiUnitStreams.plan(g.plan().code(), g.lost(), survivors(g), g.zeros(), requestorRack,
        scheme == RepairScheme.RACK_AGGREGATED);
    List<FullNodeRecoveryPlan.Transfer> joint = new ArrayList<>();
    for (MultiUnitStreams.Shape s : m.streams()) {
      List<UnitLocation> chain = s.chain();
      for (int i = 0; i < chain.size(); i++) {
        String to = i + 1 < chain.size() ? chain.get(i + 1).rack() : requestorRack;
        if (!to.equals(chain.get(i).rack())) {
          joint.add(new FullNodeRecoveryPlan.Transfer(chain.get(i).rack(), to, g.unitBytes()));
        }
      }
    }
    List<Choice> out = new ArrayList<>();
    for (int i = 0; i < g.lost().length; i++) {
      int u = g.lost()[i];
      Choice c = new Choice(g.id(), u, planned.get(u));
      List<FullNodeRecoveryPlan.Transfer> t = new ArrayList<>(i == 0 ? joint : List.of());
      if (!c.planned.equals(requestorRack)) {
        t.add(new FullNodeRecoveryPlan.Transfer(requestorRack, c.planned, g.unitBytes()));
      }
      RackLinkLoad f = new RackLinkLoad(links);
      t.forEach(x -> f.addTransfer(x.fromRack(), x.toRack(), x.bytes()));
      c.flows.put(c.planned, f);
      c.transfers.put(c.planned, t);
      out.add(c);
    }
    return out;
  }

  private static Map<Integer, UnitLocation> survivors(GroupLoss g) {
    Map<Integer, UnitLocation> out = new HashMap<>();
    g.liveRacks().forEach((u, rack) -> out.put(u, new UnitLocation(u, new Site("unit " + u, rack))));
    return out;
  }
}
