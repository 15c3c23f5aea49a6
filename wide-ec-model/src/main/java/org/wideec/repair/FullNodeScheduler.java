package org.wideec.repair;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Full-node recovery: many stripes each lost one unit; repairs are spread over several requestors. With
 * least-recently-selected scheduling (ECPipe §3.3; ECWide §4.1 keeps one list for requestors and repairers)
 * every node carries the time it was last chosen for any role; each stripe takes the least recently selected
 * requestor, then the least recently selected helpers that can rebuild its unit (a local group admits no
 * choice, an MDS repair any k of n - 1), so a node busy receiving as requestor is not also made a helper.
 * Without it helpers come in a fixed node order (ECPipe §6's baseline: the k helpers with the smallest
 * indexes) and requestors in turn, which piles load on the first nodes.
 */
public final class FullNodeScheduler {
  /** One stripe to repair: its code, lost unit and where the survivors are. */
  public record StripeLoss(String id, org.wideec.code.LinearCode code, int lostUnit, Map<Integer, UnitLocation> survivors) {}

  /** A scheduled repair: the stripe, the requestor that rebuilds it, and the plan. */
  public record Assignment(StripeLoss stripe, UnitLocation requestor, RepairGraph graph) {}

  /** Node names in index order: "host:9" before "host:10". */
  static final Comparator<String> NODE_ORDER = Comparator.comparingInt(String::length).thenComparing(Comparator.naturalOrder());

  private final List<UnitLocation> requestors;
  private final boolean leastRecentlySelected;
  private final RepairScheme scheme;
  private final Map<String, Long> lastSelected = new HashMap<>();
  private long clock;
  private int roundRobin;

  public FullNodeScheduler(List<UnitLocation> requestors, boolean leastRecentlySelected, RepairScheme scheme) {
    if (requestors.isEmpty()) {
      throw new IllegalArgumentException("full-node recovery needs at least one requestor");
    }
    this.requestors = new ArrayList<>(requestors);
    this.leastRecentlySelected = leastRecentlySelected;
    this.scheme = scheme;
  }

  public List<Assignment> schedule(List<StripeLoss> stripes) {
    List<Assignment> out = new ArrayList<>();
    for (StripeLoss s : stripes) {
      UnitLocation requestor = pickRequestor();
      Comparator<Integer> preference = leastRecentlySelected
          ? Comparator.comparingLong((Integer u) -> lastSelected.getOrDefault(s.survivors().get(u).node(), -1L))
              .thenComparingInt(u -> u)
          : Comparator.comparing((Integer u) -> s.survivors().get(u).node(), NODE_ORDER);
      RepairGraph g = SingleUnitRepairPlanner.plan(scheme, s.code(), s.lostUnit(), s.survivors(), requestor.node(),
          requestor.rack(), LinkWeights.UNIFORM, preference);
      for (RepairStep step : g.steps()) {
        lastSelected.put(step.helper().node(), ++clock);
      }
      out.add(new Assignment(s, requestor, g));
    }
    return out;
  }

  private UnitLocation pickRequestor() {
    UnitLocation r;
    if (leastRecentlySelected) {
      r = requestors.stream().min(Comparator.comparingLong((UnitLocation q) -> lastSelected.getOrDefault(q.node(), -1L))
          .thenComparing(UnitLocation::node)).orElseThrow();
    } else {
      r = requestors.get(roundRobin++ % requestors.size());
    }
    lastSelected.put(r.node(), ++clock);
    return r;
  }

  /** Transfers each node sends across a schedule: the load the scheduling tries to even out. */
  public static Map<String, Integer> helperLoad(List<Assignment> schedule) {
    Map<String, Integer> load = new HashMap<>();
    for (Assignment a : schedule) {
      for (RepairStep s : a.graph().steps()) {
        load.merge(s.helper().node(), 1, Integer::sum);
      }
    }
    return load;
  }
}
