package org.wideec.scrub;

import java.util.ArrayList;
import java.util.List;
import org.wideec.code.LinearCode;
import org.wideec.gf.Gf256;
import org.wideec.gf.Matrix;
import org.wideec.gf.RegionKernels;

/**
 * The parity check of a stripe run on its units' summaries ({@link UnitSummary}) instead of the units.
 *
 * <p>With H the code's parity-check matrix and S the summaries, the syndrome H S is zero when every unit is what
 * the code computes. A single corrupt unit j with error E makes the syndrome H[:, j] * summary(E): every column of
 * the syndrome is a multiple of H's column j. That column is proportional to no other one exactly when no two
 * units form a codeword's support (distance at least 3), so the unit is named; otherwise every unit whose column
 * fits is a suspect and the verdict is undecidable (the manifest's CRC32C per unit then decides for an archived
 * stripe). A syndrome no single column explains means more than one unit is corrupt.
 */
public final class SummaryCheck {
  private SummaryCheck() {}

  /**
   * Checks one stripe.
   *
   * @param code the stripe's code (from its policy or manifest)
   * @param summaries one summary per unit, all of one length, in unit order
   */
  public static ScrubVerdict check(LinearCode code, byte[][] summaries) {
    if (summaries.length != code.n()) {
      throw new IllegalArgumentException(code.spec() + ": " + summaries.length + " summaries for " + code.n() + " units");
    }
    int len = summaries[0] == null ? -1 : summaries[0].length;
    for (int u = 0; u < summaries.length; u++) {
      if (summaries[u] == null || summaries[u].length != len) {
        throw new IllegalArgumentException(code.spec() + ": summary of unit " + u + " is "
            + (summaries[u] == null ? "missing" : summaries[u].length + " bytes, not " + len));
      }
    }
    byte[][] syndrome = syndrome(code.parityCheck(), summaries, len);
    if (isZero(syndrome)) {
      return ScrubVerdict.CONSISTENT;
    }
    List<Integer> fits = new ArrayList<>();
    for (int u = 0; u < code.n(); u++) {
      if (explains(code.parityCheck(), u, syndrome)) {
        fits.add(u);
      }
    }
    int[] suspects = fits.stream().mapToInt(Integer::intValue).toArray();
    return suspects.length == 1 ? ScrubVerdict.unitAtFault(suspects[0])
        : new ScrubVerdict(ScrubVerdict.Outcome.UNDECIDABLE, suspects);
  }

  private static byte[][] syndrome(Matrix h, byte[][] summaries, int len) {
    byte[][] s = new byte[h.rows()][len];
    for (int p = 0; p < h.rows(); p++) {
      for (int u = 0; u < h.cols(); u++) {
        RegionKernels.mulAdd(h.get(p, u), summaries[u], 0, s[p], 0, len);
      }
    }
    return s;
  }

  private static boolean isZero(byte[][] syndrome) {
    for (byte[] row : syndrome) {
      for (byte b : row) {
        if (b != 0) {
          return false;
        }
      }
    }
    return true;
  }

  /** True when every syndrome column is a multiple of H's column {@code unit}: one error at that unit fits. */
  private static boolean explains(Matrix h, int unit, byte[][] syndrome) {
    int pivot = -1;
    for (int p = 0; p < h.rows() && pivot < 0; p++) {
      if (h.get(p, unit) != 0) {
        pivot = p;
      }
    }
    if (pivot < 0) {
      return false;
    }
    int pivotInverse = Gf256.inverse(h.get(pivot, unit));
    for (int b = 0; b < syndrome[0].length; b++) {
      int e = Gf256.multiply(syndrome[pivot][b] & 0xff, pivotInverse);
      for (int p = 0; p < h.rows(); p++) {
        if ((syndrome[p][b] & 0xff) != Gf256.multiply(e, h.get(p, unit))) {
          return false;
        }
      }
    }
    return true;
  }
}
