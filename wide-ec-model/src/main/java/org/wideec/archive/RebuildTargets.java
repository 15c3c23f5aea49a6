package org.wideec.archive;

import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.wideec.topology.Site;

/**
 * Chooses the DataNode that rebuilds a lost archived unit and stores it (requestor and target at once), and orders
 * helpers, least recently selected first (ECPipe §3.3; ECWide §4.1 keeps one list for requestors and helpers), so a
 * whole node's worth of repairs spreads over its rack instead of piling onto its first nodes. A target is a live node
 * in the unit's planned rack that holds no other unit of the stripe (a node loss stays one erasure per stripe); failing
 * that, one in the planned rack that does; failing that (the planned rack is down, say), a live node holding no unit
 * of the stripe in the rack holding the fewest of its units: off plan is better than missing, and the rack with room
 * keeps a later rack loss within what the code tolerates (a rack already at its share would lose one unit more; left
 * missing, the unit would count against every rack alike). Not thread-safe: one monitor thread owns it.
 */
public final class RebuildTargets {
  private final Map<String, Long> lastSelected = new HashMap<>();
  private long clock;

  /**
   * @param live every live DataNode that may store a block
   * @param avoid nodes holding another unit of the stripe
   * @param never nodes that must not be chosen (holding any replica of the lost block, even a corrupt one)
   * @param unitsPerRack how many units of the stripe each rack holds now; the chosen target's rack is counted in
   *     (so the next unit of the same stripe chosen in this pass sees it)
   * @return the target, or null when no live node qualifies
   */
  public Site choose(StripeMember lost, List<Site> live, Set<String> avoid, Set<String> never,
      Map<String, Integer> unitsPerRack) {
    return choose(lost, live, avoid, never, unitsPerRack, Integer.MAX_VALUE);
  }

  /**
   * As {@link #choose(StripeMember, List, Set, Set, Map)}, but off plan never into a rack that already holds
   * {@code rackCap} units of the stripe (the losses its code always survives): several units of one stripe rebuilt
   * in one pass, after a rack loss, must not pile into one rack beyond what a later rack loss could take.
   */
  public Site choose(StripeMember lost, List<Site> live, Set<String> avoid, Set<String> never,
      Map<String, Integer> unitsPerRack, int rackCap) {
    Comparator<Site> order = Comparator.comparingInt((Site r) -> rank(r, lost, avoid))
        .thenComparingInt(r -> unitsPerRack.getOrDefault(r.rack(), 0))
        .thenComparingLong(r -> lastSelected.getOrDefault(r.node(), 0L)).thenComparing(Site::node);
    Site best = live.stream().filter(r -> !never.contains(r.node()) && rank(r, lost, avoid) < 3)
        .filter(r -> rank(r, lost, avoid) < 2 || unitsPerRack.getOrDefault(r.rack(), 0) < rackCap).min(order)
        .orElse(null);
    if (best != null) {
      selected(best.node());
      unitsPerRack.merge(best.rack(), 1, Integer::sum);
    }
    return best;
  }

  /** Whether a chosen target is where the plan wants the unit (its planned rack). */
  public static boolean inPlannedRack(StripeMember lost, Site target) {
    return target.rack().equals(lost.plannedRack());
  }

  private static int rank(Site r, StripeMember lost, Set<String> avoid) {
    boolean rack = r.rack().equals(lost.plannedRack());
    boolean other = avoid.contains(r.node());
    return rack && !other ? 0 : rack ? 1 : !other ? 2 : 3;
  }

  /** Helper units ordered least recently selected first (by the node each is read from), then by unit. */
  public Comparator<Integer> helperPreference(Map<Integer, org.wideec.repair.UnitLocation> helpers) {
    Map<Integer, Long> at = new HashMap<>();
    helpers.forEach((u, loc) -> at.put(u, lastSelected.getOrDefault(loc.node(), 0L)));
    return Comparator.comparingLong((Integer u) -> at.getOrDefault(u, Long.MAX_VALUE)).thenComparingInt(u -> u);
  }

  /** Records that a node was chosen for some role now. */
  public void selected(String node) {
    lastSelected.put(node, ++clock);
  }
}
