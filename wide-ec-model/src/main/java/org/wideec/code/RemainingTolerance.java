package org.wideec.code;

import java.util.Arrays;
import java.util.BitSet;

/**
 * How many more units a damaged stripe can lose, whichever they are: the true margin of the code, not HDFS's
 * count of parities (HDFS believes an Azure-LRC 12+2+2 group with 12 live units is readable, while 252 of the
 * 1820 four-loss patterns are not). {@code value} is -1 when the stripe has already lost data, 0 when one more
 * loss of the wrong unit loses data.
 *
 * @param value the margin, or a proven lower bound when {@code exact} is false
 * @param exact whether every pattern was checked (wide stripes are checked up to a budget)
 */
public record RemainingTolerance(int value, boolean exact) {
  /** Patterns examined at most before the margin is reported as a lower bound. */
  static final long BUDGET = 2_000_000;

  public boolean dataLost() {
    return value < 0;
  }

  public static RemainingTolerance of(LinearCode code, int... lost) {
    return of(code, new BitSet(), lost);
  }

  /**
   * The margin when the units in {@code neverLost} cannot be lost (an archived stripe's virtual padding: known zeros
   * that are never stored), so only the other survivors are counted as the next losses.
   */
  public static RemainingTolerance of(LinearCode code, BitSet neverLost, int... lost) {
    ErasurePatterns patterns = ErasurePatterns.of(code);
    int[] base = Arrays.stream(lost).distinct().sorted().toArray();
    if (!patterns.isDecodable(base)) {
      return new RemainingTolerance(-1, true);
    }
    BitSet gone = new BitSet();
    Arrays.stream(base).forEach(gone::set);
    int[] survivors = java.util.stream.IntStream.range(0, code.n()).filter(u -> !gone.get(u) && !neverLost.get(u))
        .toArray();
    int proven = Math.max(0, code.minimumDistance().faultsTolerated() - base.length);
    long examined = 0;
    int most = Math.min(code.n() - code.k() - base.length, survivors.length);
    for (int t = 1; t <= most; t++) {
      long combos = RepairPlanner.binomial(survivors.length, t);
      if (t > proven && examined + combos > BUDGET) {
        return new RemainingTolerance(t - 1, false);
      }
      if (t <= proven) {
        continue;
      }
      examined += combos;
      int[] idx = RecoverabilityCheck.firstCombination(t);
      int[] pattern = Arrays.copyOf(base, base.length + t);
      do {
        for (int i = 0; i < t; i++) {
          pattern[base.length + i] = survivors[idx[i]];
        }
        if (!patterns.isDecodable(pattern)) {
          return new RemainingTolerance(t - 1, true);
        }
      } while (RepairPlanner.next(idx, survivors.length));
    }
    return new RemainingTolerance(most, true);
  }
}
