package org.wideec.code;

import java.util.Random;

/**
 * Checks GF(2^8) coefficients of a construction against the same construction with random coefficients
 * of GF(2^16) (a stand-in for "generic" coefficients: what such a code cannot decode, no code of the
 * layout can, up to a negligible probability that two independent draws both miss).
 *
 * <p>Narrow codes are checked exhaustively for maximal recoverability: every pattern of n-k losses that
 * the generic code decodes must decode (smaller patterns extend to such ones). Wide codes are checked
 * exhaustively (or, beyond budget, by sampling) for the fault tolerance the construction promises, and
 * maximal recoverability is sampled and reported rather than required.
 */
final class RecoverabilityCheck {
  static final long EXHAUSTIVE_MR_BUDGET = 250_000;
  static final long EXHAUSTIVE_TOLERANCE_BUDGET = 20_000_000;
  static final int SAMPLES = 2_000;

  record Verdict(boolean ok, String notes) {}

  private final ErasurePatterns genericA;
  private final ErasurePatterns genericB;
  private final int n;
  private final int m;
  private final int tolerance;

  /** @param tolerance number of arbitrary losses the construction must always survive */
  RecoverabilityCheck(ErasurePatterns genericA, ErasurePatterns genericB, int n, int m, int tolerance) {
    this.genericA = genericA;
    this.genericB = genericB;
    this.n = n;
    this.m = m;
    this.tolerance = tolerance;
  }

  boolean genericallyDecodable(int[] erased) {
    return genericA.isDecodable(erased) || genericB.isDecodable(erased);
  }

  Verdict verify(ErasurePatterns ours) {
    long top = RepairPlanner.binomial(n, m);
    if (top <= EXHAUSTIVE_MR_BUDGET) {
      long generic = 0;
      int[] idx = firstCombination(m);
      do {
        if (genericallyDecodable(idx)) {
          generic++;
          if (!ours.isDecodable(idx)) {
            return new Verdict(false, "pattern " + java.util.Arrays.toString(idx) + " is decodable in principle but not here");
          }
        }
      } while (RepairPlanner.next(idx, n));
      return new Verdict(true, "maximally recoverable: all " + generic + " of the " + top + " patterns of " + m
          + " losses that any code of this layout can decode, decode (checked exhaustively)");
    }
    StringBuilder notes = new StringBuilder();
    long all = RepairPlanner.binomial(n, tolerance);
    if (all <= EXHAUSTIVE_TOLERANCE_BUDGET) {
      long ok = ours.countDecodable(tolerance);
      if (ok != all) {
        return new Verdict(false, (all - ok) + " patterns of " + tolerance + " losses do not decode");
      }
      notes.append("tolerates any ").append(tolerance).append(" losses (all ").append(all).append(" patterns checked)");
    } else {
      long ok = ours.sampleDecodable(tolerance, 50_000, new Random(7));
      if (ok != 50_000) {
        return new Verdict(false, (50_000 - ok) + " sampled patterns of " + tolerance + " losses do not decode");
      }
      notes.append("tolerates ").append(tolerance).append(" losses in 50000 sampled patterns (bound proven for generic coefficients)");
    }
    Random rnd = new Random(11);
    long tried = 0;
    long matched = 0;
    int[] perm = java.util.stream.IntStream.range(0, n).toArray();
    for (int f = tolerance + 1; f <= m; f++) {
      for (int s = 0; s < SAMPLES; s++) {
        int[] e = randomPattern(perm, f, rnd);
        if (genericallyDecodable(e)) {
          tried++;
          matched += ours.isDecodable(e) ? 1 : 0;
        }
      }
    }
    notes.append("; maximal recoverability sampled: ").append(matched).append(" of ").append(tried)
        .append(" decodable-in-principle patterns of ").append(tolerance + 1).append("..").append(m).append(" losses decode");
    return new Verdict(true, notes.toString());
  }

  private int[] randomPattern(int[] perm, int f, Random rnd) {
    int[] e = new int[f];
    for (int i = 0; i < f; i++) {
      int j = i + rnd.nextInt(n - i);
      int t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
      e[i] = perm[i];
    }
    java.util.Arrays.sort(e);
    return e;
  }

  static int[] firstCombination(int size) {
    int[] idx = new int[size];
    for (int i = 0; i < size; i++) {
      idx[i] = i;
    }
    return idx;
  }
}
