package org.wideec.coder;

import org.wideec.gf.Matrix;

/**
 * A coefficient matrix ready for a kernel: out[r] = sum_c coefficient(r, c) * in[c]. Rows whose
 * coefficients are all 0 or 1 are flagged so kernels can take the XOR fast path. Immutable.
 */
public final class CodingMatrix {
  private final int rows;
  private final int cols;
  private final byte[][] coefficients;
  private final boolean[] xorRow;

  public CodingMatrix(Matrix m) {
    this.rows = m.rows();
    this.cols = m.cols();
    this.coefficients = new byte[rows][cols];
    this.xorRow = new boolean[rows];
    for (int r = 0; r < rows; r++) {
      boolean xor = true;
      for (int c = 0; c < cols; c++) {
        int v = m.get(r, c);
        coefficients[r][c] = (byte) v;
        xor &= v <= 1;
      }
      xorRow[r] = xor;
    }
  }

  public int rows() {
    return rows;
  }

  public int cols() {
    return cols;
  }

  public int coefficient(int r, int c) {
    return coefficients[r][c] & 0xff;
  }

  public boolean isXorRow(int r) {
    return xorRow[r];
  }

  /** Row r's coefficients (shared; kernels must not modify). */
  public byte[] row(int r) {
    return coefficients[r];
  }
}
