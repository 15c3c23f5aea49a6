package org.wideec.code;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Which available units to read to rebuild some lost ones: a degraded read's sources. HDFS's reader takes
 * all surviving data plus the lowest-index parities and never tries another subset (DESIGN.md §2); this
 * takes local groups first, so one lost unit costs its group, and falls back to global parities and
 * other units only when the groups do not suffice, so every pattern the code decodes is served.
 *
 * <p>A greedy basis over candidates in preference order (free units, the wanted units' local groups,
 * global parities, everything else), pruned until no source can be dropped, gives a first answer; a
 * branch-and-bound search over independent sets in the same order then looks for a smaller one within
 * {@link #SEARCH_BUDGET} nodes (enough to prove the minimum for HDFS's n <= 16 in most patterns; wider
 * codes keep the greedy answer). Free units (e.g. cells past the end of a short block group, known to
 * be zero) cost nothing and are never pruned.
 */
public final class DecodeSources {
  /** Most search nodes spent looking for a smaller set than the greedy one. */
  static final int SEARCH_BUDGET = 20_000;

  private DecodeSources() {}

  /** Sources for the wanted units when no unit is free. */
  public static int[] choose(LinearCode code, BitSet available, int[] wanted) {
    return choose(code, available, new BitSet(), wanted);
  }

  /**
   * An inclusion-minimal set of available units whose span holds every wanted unit, ascending.
   *
   * @param available units that can be read (or are free); must not include a wanted unit
   * @param free available units that cost nothing to read
   * @throws NotDecodableException naming the code, the wanted and the available units when no such set exists
   */
  public static int[] choose(LinearCode code, BitSet available, BitSet free, int[] wanted) {
    for (int w : wanted) {
      code.checkUnit(w);
      if (available.get(w)) {
        throw new IllegalArgumentException(code.spec() + ": wanted unit " + w + " is available; read it instead");
      }
    }
    if (wanted.length == 0) {
      return new int[0];
    }
    if (wanted.length == 1) {
      int[] plan = cheapestRepair(code, available, wanted[0]);
      if (plan != null) {
        return plan;
      }
    }
    List<Integer> candidates = candidates(code, available, free, wanted);
    List<Integer> chosen = greedy(code, available, candidates, wanted);
    prune(code, chosen, free, wanted);
    List<Integer> smaller = new Search(code, candidates, free, wanted, cost(chosen, free)).run();
    return (smaller != null ? smaller : chosen).stream().mapToInt(Integer::intValue).sorted().toArray();
  }

  /** The code's cheapest single-unit repair (LinearCode.repairPlan), when all its helpers are available. */
  private static int[] cheapestRepair(LinearCode code, BitSet available, int lost) {
    int[] helpers = code.repairPlan(lost).helpers();
    for (int h : helpers) {
      if (!available.get(h)) {
        return null;
      }
    }
    Arrays.sort(helpers);
    return helpers;
  }

  /** Available units in the order they are worth reading. */
  private static List<Integer> candidates(LinearCode code, BitSet available, BitSet free, int[] wanted) {
    Set<Integer> order = new LinkedHashSet<>();
    free.stream().filter(available::get).forEach(order::add);
    for (int w : wanted) {
      for (LocalGroup g : code.groupsOf(w)) {
        Arrays.stream(g.members()).filter(available::get).forEach(order::add);
      }
    }
    Arrays.stream(code.unitsWithRole(UnitRole.GLOBAL_PARITY)).filter(available::get).forEach(order::add);
    available.stream().forEach(order::add);
    return new ArrayList<>(order);
  }

  private static List<Integer> greedy(LinearCode code, BitSet available, List<Integer> candidates, int[] wanted) {
    RowSpan span = new RowSpan(code.k());
    List<Integer> chosen = new ArrayList<>();
    for (int u : candidates) {
      if (spans(code, span, wanted)) {
        break;
      }
      if (span.add(code.generator().row(u))) {
        chosen.add(u);
      }
    }
    if (!spans(code, span, wanted)) {
      BitSet lost = new BitSet(code.n());
      lost.set(0, code.n());
      lost.andNot(available);
      throw new NotDecodableException(code.spec() + ": cannot rebuild units " + Arrays.toString(wanted)
          + " from available units " + available + " (lost " + lost + ": erasure set not decodable)");
    }
    return chosen;
  }

  /** Drops sources, least preferred first, while the rest still span the wanted units. */
  private static void prune(LinearCode code, List<Integer> chosen, BitSet free, int[] wanted) {
    for (int i = chosen.size() - 1; i >= 0; i--) {
      if (free.get(chosen.get(i))) {
        continue;
      }
      RowSpan span = new RowSpan(code.k());
      for (int j = 0; j < chosen.size(); j++) {
        if (j != i) {
          span.add(code.generator().row(chosen.get(j)));
        }
      }
      if (spans(code, span, wanted)) {
        chosen.remove(i);
      }
    }
  }

  private static boolean spans(LinearCode code, RowSpan span, int[] wanted) {
    for (int w : wanted) {
      if (!span.contains(code.generator().row(w))) {
        return false;
      }
    }
    return true;
  }

  private static int cost(List<Integer> units, BitSet free) {
    return (int) units.stream().filter(u -> !free.get(u)).count();
  }

  /**
   * Depth-first over independent sets of paid candidates, in preference order, on top of every free unit.
   * Bound: each unit added closes at most one missing dimension of the wanted units' span, so a branch
   * whose cost plus missing dimensions reaches the best cost so far is cut.
   */
  private static final class Search {
    private final LinearCode code;
    private final int[] paid;
    private final BitSet free;
    private final int[] wanted;
    private final int[] stack;
    private int bestCost;
    private List<Integer> best;
    private int nodes;

    Search(LinearCode code, List<Integer> candidates, BitSet free, int[] wanted, int bound) {
      this.code = code;
      this.paid = candidates.stream().filter(u -> !free.get(u)).mapToInt(Integer::intValue).toArray();
      this.free = free;
      this.wanted = wanted;
      this.stack = new int[paid.length];
      this.bestCost = bound;
    }

    /** A set cheaper than the bound, or null. */
    List<Integer> run() {
      RowSpan span = new RowSpan(code.k());
      List<Integer> base = new ArrayList<>();
      for (int u = free.nextSetBit(0); u >= 0; u = free.nextSetBit(u + 1)) {
        if (u < code.n() && span.add(code.generator().row(u))) {
          base.add(u);
        }
      }
      walk(span, 0, 0, base);
      return best;
    }

    private void walk(RowSpan span, int from, int depth, List<Integer> base) {
      if (++nodes > SEARCH_BUDGET) {
        return;
      }
      int missing = missing(span);
      if (missing == 0) {
        bestCost = depth;
        best = new ArrayList<>(base);
        for (int i = 0; i < depth; i++) {
          best.add(stack[i]);
        }
        return;
      }
      for (int i = from; i < paid.length && depth + missing < bestCost; i++) {
        RowSpan next = span.copy();
        if (next.add(code.generator().row(paid[i]))) {
          stack[depth] = paid[i];
          walk(next, i + 1, depth + 1, base);
        }
      }
    }

    /** Dimensions the wanted units' rows add to the span: 0 when the span rebuilds them. */
    private int missing(RowSpan span) {
      RowSpan with = span.copy();
      int added = 0;
      for (int w : wanted) {
        added += with.add(code.generator().row(w)) ? 1 : 0;
      }
      return added;
    }
  }
}
