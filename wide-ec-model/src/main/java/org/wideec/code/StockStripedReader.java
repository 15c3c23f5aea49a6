package org.wideec.code;

import java.util.BitSet;

/**
 * HDFS's striped reader as a rule over a code (DESIGN.md §2). {@code DFSStripedInputStream}'s stripe readers read
 * every surviving data unit and, for each lost data unit, one parity: the lowest-index parities that survive, in
 * unit order, and never another subset. HDFS assumes MDS codes, for which any such choice decodes; for an LRC a
 * loss the code decodes can still be unreadable to a stock client (12+2+2 losing units 9, 10, 11 reads G1, G2, L1,
 * and L1 knows nothing of the second group). Planning, fsck and tests all ask this class.
 *
 * <p>Data units past the end of a short block group, or of a group's partial last stripe, are zeros the reader
 * supplies itself; they are never lost, and the reader reads fewer parities there ({@link #canReadEveryStripe}).
 */
public final class StockStripedReader {
  private StockStripedReader() {}

  /**
   * The parities a stock client reads for a stripe with the given units lost, ascending; null when fewer
   * parities survive than data units are lost (the client fails with "missing blocks").
   */
  public static int[] parityChoice(LinearCode code, int... lost) {
    BitSet gone = code.unitSet(lost);
    int lostData = gone.get(0, code.k()).cardinality();
    int[] chosen = new int[lostData];
    int found = 0;
    for (int u = code.k(); u < code.n() && found < lostData; u++) {
      if (!gone.get(u)) {
        chosen[found++] = u;
      }
    }
    return found == lostData ? chosen : null;
  }

  /** True when a stock client decodes every lost data unit of a full stripe from the units it reads. */
  public static boolean canRead(LinearCode code, int... lost) {
    return canReadStripe(code, code.k(), lost);
  }

  /**
   * True when a stock client reads every stripe of a group with {@code realData} data units that holds any
   * number of cells: a group's last stripe may fill only its first j data cells (1 <= j <= realData), and there
   * the reader treats the rest as zeros, reads fewer parities, and the rule is not monotone in j.
   */
  public static boolean canReadEveryStripe(LinearCode code, int realData, int... lost) {
    for (int j = Math.min(realData, code.k()); j >= 1; j--) {
      if (!canReadStripe(code, j, lost)) {
        return false;
      }
    }
    return true;
  }

  /**
   * True when a stock client decodes a stripe whose first {@code cells} data units hold bytes: data units past
   * them are zeros it knows, never lost; each lost data unit below them costs one parity, lowest index first.
   */
  public static boolean canReadStripe(LinearCode code, int cells, int... lost) {
    requireSystematic(code);
    BitSet gone = code.unitSet(lost);
    gone.clear(cells, code.k());
    int lostData = gone.get(0, code.k()).cardinality();
    if (lostData == 0) {
      return true;
    }
    int[] parities = new int[lostData];
    int found = 0;
    for (int u = code.k(); u < code.n() && found < lostData; u++) {
      if (!gone.get(u)) {
        parities[found++] = u;
      }
    }
    if (found < lostData) {
      return false;
    }
    RowSpan span = new RowSpan(code.k());
    for (int u = 0; u < code.k(); u++) {
      if (!gone.get(u)) {
        span.add(code.generator().row(u));
      }
    }
    for (int p : parities) {
      span.add(code.generator().row(p));
    }
    for (int u = gone.nextSetBit(0); u >= 0 && u < code.k(); u = gone.nextSetBit(u + 1)) {
      if (!span.contains(code.generator().row(u))) {
        return false;
      }
    }
    return true;
  }

  /**
   * The largest t such that a stock client reads through every loss of t or fewer units (the code's
   * guarantee to stock clients; at least g for our unit order, and m for an MDS code).
   */
  public static int tolerance(LinearCode code) {
    requireSystematic(code);
    int[] idx = new int[0];
    for (int t = 1; t <= code.n() - code.k(); t++) {
      idx = RecoverabilityCheck.firstCombination(t);
      do {
        if (!canRead(code, idx)) {
          return t - 1;
        }
      } while (RepairPlanner.next(idx, code.n()));
    }
    return code.n() - code.k();
  }

  /**
   * The largest loss the code decodes but a stock client cannot read (the first in unit order), or null when the
   * stock reader reads every pattern the code decodes (MDS codes). What only a code-aware reader can serve.
   */
  public static int[] widestLossOnlyTheCodeReads(LinearCode code) {
    requireSystematic(code);
    for (int size = code.n() - code.k(); size >= 1; size--) {
      int[] idx = RecoverabilityCheck.firstCombination(size);
      do {
        if (code.isDecodable(idx) && !canRead(code, idx)) {
          return idx.clone();
        }
      } while (RepairPlanner.next(idx, code.n()));
    }
    return null;
  }

  private static void requireSystematic(LinearCode code) {
    if (!code.isSystematic()) {
      throw new IllegalArgumentException(code.spec() + " is not systematic; HDFS's striped reader cannot read it");
    }
  }
}
