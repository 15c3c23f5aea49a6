package org.wideec.code;

import org.wideec.gf.Gf256;

/**
 * Cauchy parity rows as ISA-L's {@code gf_gen_cauchy1_matrix} and Hadoop's {@code RSUtil.genCauchyMatrix}
 * build them: parity row i over data column j is 1 / ((k + i) xor j). Any square submatrix of a Cauchy
 * matrix is invertible, which is what makes the RS code MDS.
 */
final class CauchyRows {
  private CauchyRows() {}

  static int[][] rows(int k, int count) {
    if (k + count > 256) {
      throw new InvalidCodeSpecException("Cauchy rows need k + rows <= 256, got k = " + k + ", rows = " + count);
    }
    int[][] r = new int[count][k];
    for (int i = 0; i < count; i++) {
      for (int j = 0; j < k; j++) {
        r[i][j] = Gf256.inverse((k + i) ^ j);
      }
    }
    return r;
  }
}
