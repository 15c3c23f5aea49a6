package org.wideec.repair;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.wideec.code.LinearCode;
import org.wideec.code.NotDecodableException;
import org.wideec.code.UnitSpan;
import org.wideec.gf.Matrix;

/**
 * Plans the repair of one lost unit from the actual locations of the survivors. Helpers: the code's
 * cheapest plan (fewest units, local group first, XOR when possible) when available, otherwise (or when
 * any k will do) a rebuilding set taken in the caller's order of preference. The scheme then decides who sends
 * what to whom: a star, a chain, the chain grouped by rack (in-rack partial sums, ECWide §4.1), one chain per rack
 * each sending its partial sum to the requestor (a rack star), the lightest chain (ECPipe Algorithm 1), or rotations
 * of the chain (cyclic, ECPipe §4.1).
 */
public final class SingleUnitRepairPlanner {
  private SingleUnitRepairPlanner() {}

  /**
   * @param available surviving units that may serve as helpers, by unit; the lost unit itself among them (a replica
   *     on a node leaving service) makes the plan a copy of that replica
   * @param preference order in which to try helpers when the cheapest plan is not available (e.g.
   *     least recently selected first)
   */
  public static RepairGraph plan(RepairScheme scheme, LinearCode code, int lost, Map<Integer, UnitLocation> available,
      String requestorNode, String requestorRack, LinkWeights weights, Comparator<Integer> preference) {
    return plan(scheme, code, lost, available, requestorNode, requestorRack, weights, preference, List.of());
  }

  /**
   * @param rackChain for a rack-aggregated chain, the order in which to visit the racks other than the requestor's
   *     (racks it does not name follow those it does, in name order; empty: all in name order)
   */
  public static RepairGraph plan(RepairScheme scheme, LinearCode code, int lost, Map<Integer, UnitLocation> available,
      String requestorNode, String requestorRack, LinkWeights weights, Comparator<Integer> preference,
      List<String> rackChain) {
    if (available.containsKey(lost)) {
      // A replica of the unit itself is an input (a copy off a leaving node): it alone rebuilds the unit, times one.
      return new RepairGraph(code, lost, scheme, requestorNode, requestorRack,
          List.of(new RepairStep(available.get(lost), 1, RepairStep.REQUESTOR)));
    }
    List<UnitLocation> helpers;
    if (scheme == RepairScheme.WEIGHTED) {
      int size = helpers(code, lost, available, preference).size();
      List<UnitLocation> candidates = new ArrayList<>(available.values());
      candidates.sort(Comparator.comparingInt(UnitLocation::unit));
      helpers = WeightedPathSelection.optimal(candidates, requestorNode, size, weights, set -> rebuilds(code, lost, set));
      if (helpers == null) {
        throw new NotDecodableException(code.spec() + ": no " + size + " available units rebuild unit " + lost);
      }
    } else {
      helpers = helpers(code, lost, available, preference);
      if (scheme.aggregatesInRacks()) {
        // Rack by rack, the requestor's rack last: each other rack hands on one partial sum.
        helpers.sort(Comparator.comparing((UnitLocation h) -> h.rack().equals(requestorRack))
            .thenComparingInt(h -> rackChain.contains(h.rack()) ? rackChain.indexOf(h.rack()) : rackChain.size())
            .thenComparing(UnitLocation::rack).thenComparingInt(UnitLocation::unit));
      }
    }
    return graph(scheme, code, lost, helpers, requestorNode, requestorRack);
  }

  /** The k - 1 rotations of the pipelined chain; slice i travels rotation i mod (k - 1) (ECPipe §4.1). */
  public static List<RepairGraph> cyclic(RepairGraph chain) {
    List<RepairGraph> out = new ArrayList<>();
    List<UnitLocation> helpers = new ArrayList<>();
    for (RepairStep s : chain.steps()) {
      helpers.add(s.helper());
    }
    int rotations = Math.max(1, helpers.size() - 1);
    for (int r = 0; r < rotations; r++) {
      List<UnitLocation> rotated = new ArrayList<>(helpers.subList(r, helpers.size()));
      rotated.addAll(helpers.subList(0, r));
      out.add(graph(RepairScheme.CYCLIC, chain.code(), chain.lostUnit(), rotated, chain.requestorNode(), chain.requestorRack()));
    }
    return out;
  }

  static RepairGraph graph(RepairScheme scheme, LinearCode code, int lost, List<UnitLocation> helpers,
      String requestorNode, String requestorRack) {
    int[] units = helpers.stream().mapToInt(UnitLocation::unit).toArray();
    Matrix d = code.decodingMatrix(units, new int[] {lost});
    List<RepairStep> steps = new ArrayList<>();
    boolean star = scheme == RepairScheme.CONVENTIONAL;
    for (int i = 0; i < helpers.size(); i++) {
      boolean last = i == helpers.size() - 1;
      // A rack star's chain ends where its rack's helpers end: that rack's partial sum goes to the requestor.
      boolean rackEnds = scheme == RepairScheme.RACK_STAR && !last
          && !helpers.get(i + 1).rack().equals(helpers.get(i).rack());
      int next = star || last || rackEnds ? RepairStep.REQUESTOR : i + 1;
      steps.add(new RepairStep(helpers.get(i), d.get(0, i), next));
    }
    return new RepairGraph(code, lost, scheme, requestorNode, requestorRack, steps);
  }

  /**
   * Helpers: the code's cheapest plan when all its helpers are available and no set taken in preference
   * order is as small (so a local group or an XOR plan always wins, while an MDS repair, where any k will
   * do, follows the preference, e.g. least recently selected first).
   */
  static List<UnitLocation> helpers(LinearCode code, int lost, Map<Integer, UnitLocation> available,
      Comparator<Integer> preference) {
    org.wideec.code.RepairPlan cheapest = code.repairPlan(lost);
    boolean all = true;
    for (int h : cheapest.helpers()) {
      all &= available.containsKey(h);
    }
    List<UnitLocation> preferred = preferred(code, lost, available, preference);
    if (all && (cheapest.cost() < preferred.size() || cheapest.xorOnly())) {
      List<UnitLocation> out = new ArrayList<>();
      for (int h : cheapest.helpers()) {
        out.add(available.get(h));
      }
      return out;
    }
    return preferred;
  }

  /** A rebuilding set taken greedily in preference order. */
  private static List<UnitLocation> preferred(LinearCode code, int lost, Map<Integer, UnitLocation> available,
      Comparator<Integer> preference) {
    List<Integer> order = new ArrayList<>(available.keySet());
    order.sort(preference);
    UnitSpan span = new UnitSpan(code);
    List<UnitLocation> out = new ArrayList<>();
    for (int u : order) {
      if (span.canRebuild(lost)) {
        break;
      }
      if (span.add(u)) {
        out.add(available.get(u));
      }
    }
    if (!span.canRebuild(lost)) {
      throw new NotDecodableException(code.spec() + ": unit " + lost + " cannot be rebuilt from available units "
          + available.keySet());
    }
    return out;
  }

  static boolean rebuilds(LinearCode code, int lost, List<UnitLocation> set) {
    UnitSpan span = new UnitSpan(code);
    for (UnitLocation h : set) {
      span.add(h.unit());
    }
    return span.canRebuild(lost);
  }
}
