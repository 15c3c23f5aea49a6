package org.wideec.archive;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Whether a stripe whose members changed for good survives its code's {@code f} node losses on the replicas its
 * remaining units hold now, and which of those units must hold {@code f + 1} replicas because their replicas share
 * DataNodes with another unit's.
 *
 * <p>Why: {@link StripeProtection}'s {@code r} counts on no node holding replicas of two units, so that a unit is
 * taken only by {@code r} losses of its own. HDFS places the added replicas with its default policy, independently
 * per block: at {@code r = 2} the added replica of unit A may land on the node of unit B and B's on A's, and then the
 * loss of those two nodes takes both. Wide stripes on a few hundred nodes make such sharing likely.
 *
 * <p>The check ({@link #holds}): the worst {@code f} losses of the nodes listed now ({@link NodeLosses}, exact, replicas
 * still pending counting for nothing) take at most {@code f - d} remaining units; with the {@code d} units gone for good
 * that is at most {@code f} erasures, which the code decodes (its guaranteed tolerance; an LRC may decode more
 * patterns, which this does not count on), so every remaining member is read from a replica or rebuilt.
 *
 * <p>The choice ({@link #sharedNodeUnits}): made on the listing with each unit short of {@code r} given its missing
 * replicas on nodes of their own (where a pending replica lands is judged on the pass that sees it), and units
 * already holding {@code f + 1} left out, as {@code f} losses never take {@code f + 1} distinct nodes. While the worst
 * case takes more than {@code f - d} units, one of its units that shares nodes goes to {@code f + 1} (the one sharing
 * nodes with the most other units, the lowest unit on a tie) and drops out. This ends with the check passing:
 * units sharing no node, each on {@code r} or more nodes, cost {@code r} losses apiece, so a worst case of them takes
 * at most {@code floor(f / r) <= f - d}; hence every failing worst case has a sharing unit to raise, and once none
 * shares it passes. Should the search run out of steps, every unit sharing a node with another goes to {@code f + 1}
 * at once (the sufficient rule, by the same count). Units holding {@code f + 1} replicas that share a node with
 * another remaining unit are named too and kept there, so the choice derived afresh on a later pass (or after a
 * NameNode restart) does not undo a raise; nothing is remembered between passes.
 *
 * @param need the replication the stripe's code and changed members ask for
 * @param sharedNodeUnits remaining units kept at {@code f + 1} because their replicas share nodes, ascending
 * @param worst the worst {@code f} losses of the nodes listed now
 */
public record StripeReprotection(StripeProtection need, SortedSet<Integer> sharedNodeUnits, NodeLosses.Worst worst) {
  public StripeReprotection {
    sharedNodeUnits = Collections.unmodifiableSortedSet(new TreeSet<>(sharedNodeUnits));
  }

  /**
   * Decides for the remaining units of a stripe.
   *
   * @param remaining each remaining unit (stored, not changed) with the DataNodes listed holding a live replica of it
   *     (none: its block is missing)
   */
  public static StripeReprotection of(StripeProtection need, Map<Integer, ? extends Collection<String>> remaining) {
    return of(need, remaining, NodeLosses.STEP_BUDGET);
  }

  /** As {@link #of(StripeProtection, Map)}, the choice searching at most {@code steps} collections. */
  static StripeReprotection of(StripeProtection need, Map<Integer, ? extends Collection<String>> remaining,
      long steps) {
    int f = need.tolerance();
    int r = need.replication();
    SortedSet<Integer> shared = new TreeSet<>();
    if (r <= f) { // at f + 1 every unit is safe on its own, wherever its replicas are
      Map<Integer, Set<String>> killable = new TreeMap<>();
      for (Map.Entry<Integer, ? extends Collection<String>> e : new TreeMap<>(remaining).entrySet()) {
        Set<String> nodes = new LinkedHashSet<>(e.getValue());
        if (nodes.size() > f) {
          if (sharesANode(e.getKey(), nodes, remaining)) {
            shared.add(e.getKey());
          }
          continue;
        }
        for (int i = nodes.size(); i < r; i++) {
          nodes.add("(pending replica " + i + " of unit " + e.getKey() + ")"); // never a DataNode's address
        }
        killable.put(e.getKey(), nodes);
      }
      choose(need, killable, shared, new NodeLosses.Budget(steps));
    }
    return new StripeReprotection(need, shared, NodeLosses.worst(remaining, f));
  }

  /** Adds to {@code shared} the units that must go to {@code f + 1} until the worst case is within the code's. */
  private static void choose(StripeProtection need, Map<Integer, Set<String>> killable, SortedSet<Integer> shared,
      NodeLosses.Budget budget) {
    while (true) {
      NodeLosses.Worst w = NodeLosses.worst(killable, need.tolerance(), budget);
      if (w.exact() && w.units().size() <= need.unitsItMayLose()) {
        return;
      }
      List<Integer> sharing = new ArrayList<>();
      killable.forEach((u, nodes) -> {
        if (sharesANode(u, nodes, killable)) {
          sharing.add(u);
        }
      });
      if (sharing.isEmpty()) {
        return; // not reached with StripeProtection's r: units sharing no node fit the code (see above)
      }
      if (!w.exact()) {
        shared.addAll(sharing);
        return;
      }
      int pick = sharing.get(0);
      int most = 0;
      for (int u : w.units()) {
        int with = 0;
        for (Map.Entry<Integer, Set<String>> v : killable.entrySet()) {
          with += v.getKey() != u && !Collections.disjoint(killable.get(u), v.getValue()) ? 1 : 0;
        }
        if (with > most) {
          most = with;
          pick = u;
        }
      }
      shared.add(pick);
      killable.remove(pick);
    }
  }

  private static boolean sharesANode(int unit, Collection<String> nodes,
      Map<Integer, ? extends Collection<String>> units) {
    for (Map.Entry<Integer, ? extends Collection<String>> e : units.entrySet()) {
      if (e.getKey() != unit && !Collections.disjoint(nodes, e.getValue())) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code f} losses of the nodes listed now leave the stripe decodable: they take at most {@code f - d} remaining
   * units, found by an exact search (one that ran out of steps proves nothing).
   */
  public boolean holds() {
    return worst.exact() && worst.units().size() <= need.unitsItMayLose();
  }

  /** The replication a remaining unit's file needs: {@code f + 1} for a unit sharing nodes, else {@code r}. */
  public int replicationOf(int unit) {
    return sharedNodeUnits.contains(unit) ? need.tolerance() + 1 : need.replication();
  }

  /** Why it does not hold, in an operator's words, or "" when it does. */
  public String shortfall() {
    if (holds()) {
      return "";
    }
    String taken = (worst.nodes().isEmpty() ? "units " + worst.units() + " have no live replica"
        : "losing " + String.join(", ", worst.nodes()) + " would take units " + worst.units());
    return worst.exact() ? taken + ", more than the " + need.unitsItMayLose() + " it can spare"
        : "the worst " + need.tolerance() + " losses were not found within " + NodeLosses.STEP_BUDGET + " search steps ("
            + taken + " at least), so it is not shown to survive them";
  }
}
