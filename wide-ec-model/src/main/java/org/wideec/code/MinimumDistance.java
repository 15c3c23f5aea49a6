package org.wideec.code;

import java.util.Random;

/**
 * Minimum distance d of a code (it survives any d-1 losses). Exact for narrow codes by exhaustive
 * enumeration; for wide ones, proven bounds: the lower bound from exhaustively checking all patterns
 * up to the size the budget allows (or the tolerance the construction guarantees), the upper bound from the Singleton-type LRC bound
 * d <= n - k - ceil(k/r) + 2 (UniLRC Theorem 2.3) or a failing pattern found by random sampling.
 */
public record MinimumDistance(int lowerBound, int upperBound, long sampledPatterns) {
  /** Most patterns the exhaustive walk visits for one loss count. */
  static final long EXHAUSTIVE_BUDGET = 5_000_000;
  static final int SAMPLES = 100_000;

  public boolean exact() {
    return lowerBound == upperBound;
  }

  /** The distance when exact, otherwise the proven lower bound. */
  public int value() {
    return lowerBound;
  }

  /** Losses always survived, proven: d - 1 (lower bound). */
  public int faultsTolerated() {
    return lowerBound - 1;
  }

  /** The code's distance; cached by the code, so repeated calls cost nothing. */
  public static MinimumDistance of(LinearCode code) {
    return code.minimumDistance();
  }

  static MinimumDistance compute(LinearCode code, Progress progress) {
    int n = code.n();
    int upper = Math.min(n - code.k() + 1, lrcBound(code));
    ErasurePatterns patterns = ErasurePatterns.of(code);
    // Losses the construction is known to survive need no enumeration.
    int f = Math.max(1, code.guaranteedTolerance() + 1);
    for (; f < upper; f++) {
      long all = RepairPlanner.binomial(n, f);
      if (all > EXHAUSTIVE_BUDGET) {
        break;
      }
      if (patterns.countDecodable(f, progress) < all) {
        return new MinimumDistance(f, f, 0);
      }
    }
    if (f >= upper) {
      return new MinimumDistance(upper, upper, 0);
    }
    // Patterns of fewer than f losses all decode (checked). Sample the sizes in between for a witness.
    int lower = f;
    long sampled = 0;
    Random rnd = new Random(13);
    for (int s = f; s < upper; s++) {
      long ok = patterns.sampleDecodable(s, SAMPLES, rnd, progress);
      sampled += SAMPLES;
      if (ok < SAMPLES) {
        return new MinimumDistance(lower, s, sampled);
      }
    }
    return new MinimumDistance(lower, upper, sampled);
  }

  /** n - k - ceil(k/r) + 2 with r the largest locality of a data unit, or n - k + 1 without local groups. */
  static int lrcBound(LinearCode code) {
    if (code.localGroups().isEmpty() || !code.isSystematic()) {
      return code.n() - code.k() + 1;
    }
    int r = 0;
    for (int u = 0; u < code.k(); u++) {
      int best = Integer.MAX_VALUE;
      for (LocalGroup g : code.groupsOf(u)) {
        best = Math.min(best, g.size() - 1);
      }
      if (best == Integer.MAX_VALUE) {
        return code.n() - code.k() + 1;
      }
      r = Math.max(r, best);
    }
    return code.n() - code.k() - (code.k() + r - 1) / r + 2;
  }
}
