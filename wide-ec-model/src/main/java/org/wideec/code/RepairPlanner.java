package org.wideec.code;

import java.util.ArrayList;
import java.util.List;
import org.wideec.gf.Matrix;

/**
 * Finds, for every unit, the repair plan with the fewest helpers. Candidates come from the code's local
 * groups; for narrow codes an exhaustive search over smaller helper sets proves no cheaper plan exists
 * (it finds, e.g., RapidRAID repairs that exploit natural dependencies); otherwise the fallback is a
 * greedy basis of k helpers taken in unit order.
 */
final class RepairPlanner {
  /** Largest number of helper subsets the exhaustive search may try per unit. */
  static final long EXHAUSTIVE_BUDGET = 40_000;

  private final LinearCode code;
  private final Matrix g;
  /** Each unit's generator row as a bitmask of its nonzero columns, one long per 64 columns. */
  private final long[][] support;

  RepairPlanner(LinearCode code) {
    this.code = code;
    this.g = code.generator();
    this.support = new long[code.n()][(code.k() + 63) / 64];
    for (int u = 0; u < code.n(); u++) {
      int[] row = g.row(u);
      for (int c = 0; c < row.length; c++) {
        if (row[c] != 0) {
          support[u][c >>> 6] |= 1L << c;
        }
      }
    }
  }

  RepairPlan[] planAll(Progress progress) {
    RepairPlan[] plans = new RepairPlan[code.n()];
    for (int u = 0; u < code.n(); u++) {
      plans[u] = plan(u);
      progress.at(u + 1, code.n());
    }
    return plans;
  }

  private RepairPlan plan(int lost) {
    RepairPlan best = null;
    for (LocalGroup group : code.groupsOf(lost)) {
      int[] helpers = java.util.Arrays.stream(group.members()).filter(x -> x != lost).toArray();
      best = better(best, planFrom(lost, helpers, true));
    }
    best = exhaustive(lost, best);
    if (best == null) {
      best = greedy(lost);
    }
    return best;
  }

  private RepairPlan exhaustive(int lost, RepairPlan best) {
    int others = code.n() - 1;
    int limit = best == null ? code.k() : best.cost();
    long spent = 0;
    // In an MDS code any k units are independent, so no set of fewer than k helpers spans a lost unit: searching
    // them (millions of subsets for a wide RS) can only fail.
    int smallest = code.guaranteedTolerance() >= code.n() - code.k() ? code.k() : 1;
    for (int s = smallest; s <= limit; s++) {
      if (best != null && (s > best.cost() || (s == best.cost() && best.xorOnly()))) {
        break;
      }
      long count = binomial(others, s);
      if (spent + count > EXHAUSTIVE_BUDGET) {
        break;
      }
      spent += count;
      int[] idx = new int[s];
      for (int i = 0; i < s; i++) {
        idx[i] = i;
      }
      while (true) {
        int[] helpers = new int[s];
        for (int i = 0; i < s; i++) {
          helpers[i] = idx[i] < lost ? idx[i] : idx[i] + 1;
        }
        RepairPlan p = covers(helpers, lost) ? planFrom(lost, helpers, false) : null;
        if (p != null && p.cost() == s) {
          best = better(best, p);
          if (p.xorOnly()) {
            break;
          }
        }
        if (!next(idx, others)) {
          break;
        }
      }
    }
    return best;
  }

  private RepairPlan greedy(int lost) {
    RowSpan span = new RowSpan(code.k());
    List<Integer> chosen = new ArrayList<>();
    int[] target = g.row(lost);
    for (int u = 0; u < code.n() && !span.contains(target); u++) {
      if (u != lost && span.add(g.row(u))) {
        chosen.add(u);
      }
    }
    RepairPlan p = planFrom(lost, chosen.stream().mapToInt(Integer::intValue).toArray(), false);
    if (p == null) {
      throw new NotDecodableException(code.spec() + ": unit " + lost + " cannot be rebuilt from all other units");
    }
    return p;
  }

  /**
   * A necessary condition, checked before the elimination, for the lost row to be a combination of the
   * helpers' rows with every coefficient nonzero: the helpers have a nonzero in every column where the lost
   * row does, and a column where exactly one helper is nonzero is nonzero in the lost row too. A wide code's
   * exhaustive search otherwise spends nearly all its time solving for helper sets that fail this.
   */
  private boolean covers(int[] helpers, int lost) {
    long[] target = support[lost];
    for (int w = 0; w < target.length; w++) {
      long once = 0;
      long twice = 0;
      for (int h : helpers) {
        twice |= once & support[h][w];
        once |= support[h][w];
      }
      if ((target[w] & ~once) != 0 || (once & ~twice & ~target[w]) != 0) {
        return false;
      }
    }
    return true;
  }

  /** The plan rebuilding lost from exactly the helpers with nonzero coefficients, or null. */
  private RepairPlan planFrom(int lost, int[] helpers, boolean local) {
    int[] x = g.selectRows(helpers).solveLeft(g.row(lost));
    if (x == null) {
      return null;
    }
    int nonzero = 0;
    for (int c : x) {
      nonzero += c != 0 ? 1 : 0;
    }
    int[] h = new int[nonzero];
    int[] c = new int[nonzero];
    boolean xor = true;
    for (int i = 0, j = 0; i < x.length; i++) {
      if (x[i] != 0) {
        h[j] = helpers[i];
        c[j] = x[i];
        xor &= x[i] == 1;
        j++;
      }
    }
    boolean inGroup = local;
    if (!inGroup) {
      for (LocalGroup grp : code.groupsOf(lost)) {
        boolean all = true;
        for (int hh : h) {
          all &= grp.contains(hh);
        }
        inGroup |= all;
      }
    }
    return new RepairPlan(lost, h, c, xor, inGroup);
  }

  private static RepairPlan better(RepairPlan a, RepairPlan b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    if (b.cost() != a.cost()) {
      return b.cost() < a.cost() ? b : a;
    }
    return (b.xorOnly() && !a.xorOnly()) ? b : a;
  }

  static boolean next(int[] idx, int n) {
    int s = idx.length;
    int i = s - 1;
    while (i >= 0 && idx[i] == n - s + i) {
      i--;
    }
    if (i < 0) {
      return false;
    }
    idx[i]++;
    for (int j = i + 1; j < s; j++) {
      idx[j] = idx[j - 1] + 1;
    }
    return true;
  }

  static long binomial(int n, int r) {
    if (r < 0 || r > n) {
      return 0;
    }
    r = Math.min(r, n - r);
    long c = 1;
    for (int i = 1; i <= r; i++) {
      c = c * (n - r + i) / i;
      if (c > Long.MAX_VALUE / 256) {
        return Long.MAX_VALUE / 2;
      }
    }
    return c;
  }
}
