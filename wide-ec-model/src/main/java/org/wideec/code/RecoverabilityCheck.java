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

  /**
   * @param tolerant every pattern of {@code tolerance} losses decodes (required)
   * @param maximallyRecoverable every decodable-in-principle pattern decodes (checked exhaustively)
   * @param missed decodable-in-principle patterns that do not decode (exhaustive or sampled)
   */
  record Verdict(boolean tolerant, boolean maximallyRecoverable, long missed, String notes) {}

  /** True when the tolerance check covers every pattern rather than a sample. */
  boolean toleranceExhaustive() {
    return RepairPlanner.binomial(n, tolerance) <= EXHAUSTIVE_TOLERANCE_BUDGET;
  }

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

  /** True when maximal recoverability is checked on every pattern rather than sampled. */
  boolean exhaustive() {
    return RepairPlanner.binomial(n, m) <= EXHAUSTIVE_MR_BUDGET;
  }

  boolean genericallyDecodable(int[] erased) {
    return genericA.isDecodable(erased) || genericB.isDecodable(erased);
  }

  Verdict verify(ErasurePatterns ours) {
    String tolerated = checkTolerance(ours);
    if (tolerated == null) {
      return new Verdict(false, false, Long.MAX_VALUE, "does not survive every " + tolerance + " losses");
    }
    long top = RepairPlanner.binomial(n, m);
    if (exhaustive()) {
      long generic = 0;
      long missed = 0;
      int[] idx = firstCombination(m);
      do {
        if (genericallyDecodable(idx)) {
          generic++;
          missed += ours.isDecodable(idx) ? 0 : 1;
        }
      } while (RepairPlanner.next(idx, n));
      String notes = missed == 0
          ? "maximally recoverable: all " + generic + " of the " + top + " patterns of " + m
              + " losses that any code of this layout can decode, decode (checked exhaustively)"
          : tolerated + "; not maximally recoverable: " + (generic - missed) + " of the " + generic
              + " decodable-in-principle patterns of " + m + " losses decode (checked exhaustively)";
      return new Verdict(true, missed == 0, missed, notes);
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
    return new Verdict(true, false, tried - matched, tolerated + "; maximal recoverability sampled: " + matched + " of "
        + tried + " decodable-in-principle patterns of " + (tolerance + 1) + ".." + m + " losses decode");
  }

  /** A description of the tolerance check, or null when some pattern of {@code tolerance} losses fails. */
  private String checkTolerance(ErasurePatterns ours) {
    long all = RepairPlanner.binomial(n, tolerance);
    if (toleranceExhaustive()) {
      return ours.countDecodable(tolerance) == all
          ? "tolerates any " + tolerance + " losses (all " + all + " patterns checked)" : null;
    }
    long ok = ours.sampleDecodable(tolerance, 50_000, new Random(7));
    return ok == 50_000 ? "tolerates " + tolerance + " losses in 50000 sampled patterns (bound proven for generic"
        + " coefficients)" : null;
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
