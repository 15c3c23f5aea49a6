package org.wideec.archive;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The most units of a stripe that {@code f} DataNode losses can take, given the DataNodes holding each unit's
 * replicas: a unit is taken when every node holding a replica of it is lost (a unit with no replica is taken
 * already).
 *
 * <p>Exact, by search over the units rather than over the f-subsets of nodes: a set of lost nodes takes exactly the
 * units whose replica sets it covers, so a worst case is a collection of units whose replica sets together span at
 * most {@code f} nodes. Units that share no node with one another cost the sum of their set sizes, so the stripe
 * splits into components of units linked by shared nodes; each component is searched on its own (every collection
 * of its units spanning at most {@code f} nodes, the most units for each span) and the components are combined by a
 * knapsack over the {@code f} losses. A unit holding more than {@code f} replicas is never taken and drops out. When
 * replicas sit on nodes of their own, every component is one unit and no search runs; only units that share nodes
 * are searched, at most {@link #STEP_BUDGET} steps in all per call, after which the answer is a lower bound and says
 * so ({@link Worst#exact}).
 */
public final class NodeLosses {
  /** Search steps (collections tried) one call may take before it stops being exact. */
  public static final long STEP_BUDGET = 1_000_000;

  private NodeLosses() {}

  /**
   * A worst case of {@code f} node losses.
   *
   * @param units the units they take, ascending
   * @param nodes the lost nodes that take them (at most {@code f}; none for units with no replica)
   * @param exact false when the search ran out of steps: more units may then be taken than {@code units} names
   */
  public record Worst(List<Integer> units, SortedSet<String> nodes, boolean exact) {
    public Worst {
      units = List.copyOf(units);
      nodes = new TreeSet<>(nodes);
    }
  }

  /** The search steps left to a call (shared by the calls of one decision). */
  static final class Budget {
    private long left;

    Budget(long steps) {
      this.left = steps;
    }

    boolean spend() {
      return --left >= 0;
    }

    boolean exhausted() {
      return left < 0;
    }
  }

  /**
   * The worst {@code losses} node losses for units holding replicas on these nodes.
   *
   * @param replicas each unit's nodes (a unit with none is taken already)
   */
  public static Worst worst(Map<Integer, ? extends Collection<String>> replicas, int losses) {
    return worst(replicas, losses, new Budget(STEP_BUDGET));
  }

  static Worst worst(Map<Integer, ? extends Collection<String>> replicas, int losses, Budget budget) {
    if (losses < 0) {
      throw new IllegalArgumentException("node losses are never negative, got " + losses);
    }
    List<Integer> taken = new ArrayList<>();
    Map<String, Integer> nodeIds = new HashMap<>();
    List<String> nodeNames = new ArrayList<>();
    TreeMap<Integer, int[]> sets = new TreeMap<>();
    for (Map.Entry<Integer, ? extends Collection<String>> e : new TreeMap<>(replicas).entrySet()) {
      int[] set = e.getValue().stream().distinct().mapToInt(n -> nodeIds.computeIfAbsent(n, x -> {
        nodeNames.add(x);
        return nodeNames.size() - 1;
      })).sorted().toArray();
      if (set.length == 0) {
        taken.add(e.getKey());
      } else if (set.length <= losses) {
        sets.put(e.getKey(), set);
      }
    }
    List<Component> components = components(sets, nodeNames.size());
    List<int[]> spans = new ArrayList<>(); // per component: the most units for each span 0..losses
    for (Component c : components) {
      spans.add(c.search(losses, budget));
    }
    // Knapsack over the components: best[j] = most units taken with at most j of the losses.
    int[][] choice = new int[components.size()][losses + 1];
    int[] best = new int[losses + 1];
    for (int c = 0; c < components.size(); c++) {
      int[] most = spans.get(c);
      int[] next = best.clone();
      for (int j = 0; j <= losses; j++) {
        for (int span = 1; span <= j; span++) {
          if (most[span] > 0 && best[j - span] + most[span] > next[j]) {
            next[j] = best[j - span] + most[span];
            choice[c][j] = span;
          }
        }
      }
      best = next;
    }
    TreeSet<String> nodes = new TreeSet<>();
    int j = losses;
    for (int c = components.size() - 1; c >= 0; c--) {
      int span = choice[c][j];
      if (span > 0) {
        Component comp = components.get(c);
        for (int i : comp.witness[span]) {
          taken.add(comp.units[i]);
          for (int n : comp.sets[i]) {
            nodes.add(nodeNames.get(n));
          }
        }
        j -= span;
      }
    }
    taken.sort(null);
    return new Worst(taken, nodes, !budget.exhausted());
  }

  /** Units linked by shared nodes (union-find over the nodes they hold), each component's units ascending. */
  private static List<Component> components(TreeMap<Integer, int[]> sets, int nodes) {
    int[] parent = new int[nodes];
    Arrays.setAll(parent, i -> i);
    for (int[] set : sets.values()) {
      for (int n : set) {
        parent[root(parent, n)] = root(parent, set[0]);
      }
    }
    Map<Integer, List<Integer>> byRoot = new TreeMap<>();
    for (Map.Entry<Integer, int[]> e : sets.entrySet()) {
      byRoot.computeIfAbsent(root(parent, e.getValue()[0]), r -> new ArrayList<>()).add(e.getKey());
    }
    List<Component> out = new ArrayList<>();
    for (List<Integer> units : byRoot.values()) {
      int[][] s = new int[units.size()][];
      for (int i = 0; i < s.length; i++) {
        s[i] = sets.get(units.get(i));
      }
      out.add(new Component(units.stream().mapToInt(Integer::intValue).toArray(), s));
    }
    out.sort((a, b) -> Integer.compare(a.units[0], b.units[0]));
    return out;
  }

  private static int root(int[] parent, int n) {
    while (parent[n] != n) {
      parent[n] = parent[parent[n]];
      n = parent[n];
    }
    return n;
  }

  /** Units linked by shared nodes; {@code witness[span]} the units (indexes) of a largest collection of that span. */
  private static final class Component {
    final int[] units;
    final int[][] sets;
    int[][] witness;

    Component(int[] units, int[][] sets) {
      this.units = units;
      this.sets = sets;
    }

    /** The most units taken for each span 0..losses of lost nodes (0: no collection spans exactly that many). */
    int[] search(int losses, Budget budget) {
      int[] most = new int[losses + 1];
      witness = new int[losses + 1][];
      collect(0, new int[0], new int[units.length], 0, losses, most, budget);
      return most;
    }

    private void collect(int from, int[] union, int[] chosen, int depth, int losses, int[] most, Budget budget) {
      for (int i = from; i < units.length; i++) {
        if (!budget.spend()) {
          return;
        }
        int[] merged = union(union, sets[i], losses);
        if (merged == null) {
          continue;
        }
        chosen[depth] = i;
        if (depth + 1 > most[merged.length]) {
          most[merged.length] = depth + 1;
          witness[merged.length] = Arrays.copyOf(chosen, depth + 1);
        }
        collect(i + 1, merged, chosen, depth + 1, losses, most, budget);
      }
    }

    /** The sorted union of two sorted node sets, or null when it exceeds {@code max} nodes. */
    private static int[] union(int[] a, int[] b, int max) {
      int[] out = new int[Math.min(a.length + b.length, max + 1)];
      int i = 0;
      int j = 0;
      int k = 0;
      while (i < a.length || j < b.length) {
        int next;
        if (j == b.length || (i < a.length && a[i] < b[j])) {
          next = a[i++];
        } else if (i == a.length || b[j] < a[i]) {
          next = b[j++];
        } else {
          next = a[i++];
          j++;
        }
        if (k == max) {
          return null;
        }
        out[k++] = next;
      }
      return Arrays.copyOf(out, k);
    }
  }
}
