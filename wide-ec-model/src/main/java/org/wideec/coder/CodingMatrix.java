package org.wideec.coder;

import java.nio.ByteBuffer;
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
  private final boolean allXor;
  private final byte[] packed;
  /** Per-thread arrays holding the XOR sources of each row (all-XOR matrices only). */
  private final ThreadLocal<ByteBuffer[][]> xorScratch;
  private volatile Object nativeTables;

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
    boolean all = true;
    for (boolean x : xorRow) {
      all &= x;
    }
    this.allXor = all;
    this.packed = new byte[rows * cols];
    for (int r = 0; r < rows; r++) {
      System.arraycopy(coefficients[r], 0, packed, r * cols, cols);
    }
    this.xorScratch = ThreadLocal.withInitial(() -> {
      ByteBuffer[][] s = new ByteBuffer[rows][];
      for (int r = 0; r < rows; r++) {
        int ones = 0;
        for (int c = 0; c < cols; c++) {
          ones += coefficient(r, c) == 1 ? 1 : 0;
        }
        s[r] = new ByteBuffer[ones];
      }
      return s;
    });
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

  /** True when every coefficient is 0 or 1: the matrix is pure XOR (e.g. a local repair). */
  public boolean isAllXor() {
    return allXor;
  }

  /** Row-major coefficients, rows x cols (shared; do not modify). */
  byte[] packed() {
    return packed;
  }

  /** The inputs row r XORs together (coefficient 1), in a per-thread array (all-XOR matrices). */
  ByteBuffer[] xorSources(int r, ByteBuffer[] inputs) {
    ByteBuffer[] s = xorScratch.get()[r];
    int j = 0;
    for (int c = 0; c < cols; c++) {
      if (coefficient(r, c) == 1) {
        s[j++] = inputs[c];
      }
    }
    return s;
  }

  /** Kernel-specific precomputed state (ISA-L tables), built once on first use. */
  @SuppressWarnings("unchecked")
  <T> T nativeTables(java.util.function.Function<CodingMatrix, T> init) {
    Object t = nativeTables;
    if (t == null) {
      synchronized (this) {
        t = nativeTables;
        if (t == null) {
          t = init.apply(this);
          nativeTables = t;
        }
      }
    }
    return (T) t;
  }

  /** Row r's coefficients (shared; kernels must not modify). */
  public byte[] row(int r) {
    return coefficients[r];
  }
}
