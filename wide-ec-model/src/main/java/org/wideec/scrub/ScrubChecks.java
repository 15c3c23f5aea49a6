package org.wideec.scrub;

import java.util.Random;
import org.wideec.code.LinearCode;
import org.wideec.gf.Gf256;
import org.wideec.gf.Matrix;

/**
 * The rows a scrub first checks a stripe's summaries against: c GF-linear combinations w_i^T H of the code's
 * parity-check rows H. A stripe is consistent exactly when H S = 0, so every such row sums to zero on a clean stripe;
 * each row is drawn so that every unit H involves has a nonzero coefficient in it, so a single corrupt unit j makes
 * each row's sum (w_i^T H)_j * summary(error), never zero: one row detects any one corrupt unit with certainty, and
 * c rows cost c summaries however many parity rows the code has. Several corrupt units cancel in a row only when their
 * summary errors align, by chance 1/255 per row given alignment, so c independent rows drawn anew per pass make a miss
 * unlikely; the full syndrome ({@link SummaryCheck}) then localizes the unit at fault.
 */
public final class ScrubChecks {
  /** Rows checked by default: one already detects any single corrupt unit; the second guards against cancellation. */
  public static final int DEFAULT_CHECKS = 2;
  private static final int TRIES = 4096;
  private static final long SALT = 0x5c4b_5e7dL;

  private final Matrix rows;

  private ScrubChecks(Matrix rows) {
    this.rows = rows;
  }

  /**
   * The check rows for one code, drawn from the scrub's seed (anew per pass, like the fold's multiplier, so no
   * corruption can be shaped to cancel in them).
   *
   * @param checks rows wanted; at most the code's parity-check rows are used (more would be redundant)
   */
  public static ScrubChecks of(LinearCode code, int checks, long seed) {
    if (checks < 1) {
      throw new IllegalArgumentException(code.spec() + ": a scrub checks at least one row, not " + checks);
    }
    Matrix h = code.parityCheck();
    int c = Math.min(checks, h.rows());
    Random rnd = new Random(seed ^ SALT);
    int[][] drawn = new int[c][];
    for (int i = 0; i < c; i++) {
      drawn[i] = draw(code, h, drawn, i, rnd);
    }
    return new ScrubChecks(Matrix.of(Gf256.INSTANCE, drawn));
  }

  /** A row w^T H with a nonzero entry for every unit H involves, independent of the rows drawn before it. */
  private static int[] draw(LinearCode code, Matrix h, int[][] before, int i, Random rnd) {
    for (int t = 0; t < TRIES; t++) {
      int[] w = new int[h.rows()];
      for (int p = 0; p < w.length; p++) {
        w[p] = rnd.nextInt(256);
      }
      int[] row = h.leftMultiply(w);
      if (coversEveryCheckedUnit(h, row) && independent(before, i, row)) {
        return row;
      }
    }
    // Each unit's column rules out 1/256 of the w's, so for n <= 255 a try succeeds with probability above 1/3.
    throw new IllegalStateException(code.spec() + ": no check row covering every unit in " + TRIES + " draws");
  }

  private static boolean coversEveryCheckedUnit(Matrix h, int[] row) {
    for (int u = 0; u < row.length; u++) {
      if (row[u] == 0 && !zeroColumn(h, u)) {
        return false;
      }
    }
    return true;
  }

  private static boolean zeroColumn(Matrix h, int u) {
    for (int p = 0; p < h.rows(); p++) {
      if (h.get(p, u) != 0) {
        return false;
      }
    }
    return true;
  }

  private static boolean independent(int[][] before, int i, int[] row) {
    int[][] all = new int[i + 1][];
    System.arraycopy(before, 0, all, 0, i);
    all[i] = row;
    return Matrix.of(Gf256.INSTANCE, all).rank() == i + 1;
  }

  /** Rows checked. */
  public int count() {
    return rows.rows();
  }

  /** Units of the stripe. */
  public int units() {
    return rows.cols();
  }

  /** The coefficients of one unit's summary, one per check row: what its holder multiplies its page by. */
  public int[] coefficientsOf(int unit) {
    int[] c = new int[rows.rows()];
    for (int i = 0; i < c.length; i++) {
      c[i] = rows.get(i, unit);
    }
    return c;
  }

  public Matrix rows() {
    return rows;
  }
}
