package org.wideec.gf;

import java.util.Arrays;

/**
 * An immutable matrix over a {@link Field}. Small and dense: generator, decoding and repair matrices
 * of at most 255 rows. Row-major {@code int} entries.
 */
public final class Matrix {
  private final Field field;
  private final int rows;
  private final int cols;
  private final int[][] a;

  private Matrix(Field field, int[][] a, int rows, int cols) {
    this.field = field;
    this.a = a;
    this.rows = rows;
    this.cols = cols;
  }

  /** A copy of the given entries; every row must have the same length and every entry lie in the field. */
  public static Matrix of(Field field, int[][] entries) {
    int r = entries.length;
    int c = r == 0 ? 0 : entries[0].length;
    int[][] copy = new int[r][];
    for (int i = 0; i < r; i++) {
      if (entries[i].length != c) {
        throw new IllegalArgumentException("row " + i + " has " + entries[i].length + " entries, expected " + c);
      }
      for (int v : entries[i]) {
        if (v < 0 || v >= field.size()) {
          throw new IllegalArgumentException("entry " + v + " in row " + i + " is not an element of " + field);
        }
      }
      copy[i] = entries[i].clone();
    }
    return new Matrix(field, copy, r, c);
  }

  public static Matrix zero(Field field, int rows, int cols) {
    return new Matrix(field, new int[rows][cols], rows, cols);
  }

  public static Matrix identity(Field field, int n) {
    int[][] m = new int[n][n];
    for (int i = 0; i < n; i++) {
      m[i][i] = 1;
    }
    return new Matrix(field, m, n, n);
  }

  public Field field() {
    return field;
  }

  public int rows() {
    return rows;
  }

  public int cols() {
    return cols;
  }

  public int get(int r, int c) {
    return a[r][c];
  }

  /** A copy of row r. */
  public int[] row(int r) {
    return a[r].clone();
  }

  /** A copy of all entries. */
  public int[][] toArray() {
    int[][] copy = new int[rows][];
    for (int i = 0; i < rows; i++) {
      copy[i] = a[i].clone();
    }
    return copy;
  }

  public Matrix selectRows(int... rowIndexes) {
    int[][] m = new int[rowIndexes.length][];
    for (int i = 0; i < rowIndexes.length; i++) {
      m[i] = a[rowIndexes[i]].clone();
    }
    return new Matrix(field, m, rowIndexes.length, cols);
  }

  public Matrix selectColumns(int... colIndexes) {
    int[][] m = new int[rows][colIndexes.length];
    for (int i = 0; i < rows; i++) {
      for (int j = 0; j < colIndexes.length; j++) {
        m[i][j] = a[i][colIndexes[j]];
      }
    }
    return new Matrix(field, m, rows, colIndexes.length);
  }

  /** This matrix with the rows of {@code below} appended. */
  public Matrix stack(Matrix below) {
    requireSameField(below);
    if (below.cols != cols) {
      throw new IllegalArgumentException("cannot stack a " + below.cols + "-column matrix under " + cols + " columns");
    }
    int[][] m = new int[rows + below.rows][];
    for (int i = 0; i < rows; i++) {
      m[i] = a[i].clone();
    }
    for (int i = 0; i < below.rows; i++) {
      m[rows + i] = below.a[i].clone();
    }
    return new Matrix(field, m, rows + below.rows, cols);
  }

  public Matrix times(Matrix b) {
    requireSameField(b);
    if (cols != b.rows) {
      throw new IllegalArgumentException("cannot multiply " + rows + "x" + cols + " by " + b.rows + "x" + b.cols);
    }
    int[][] m = new int[rows][b.cols];
    for (int i = 0; i < rows; i++) {
      for (int t = 0; t < cols; t++) {
        int x = a[i][t];
        if (x == 0) {
          continue;
        }
        int[] br = b.a[t];
        int[] mr = m[i];
        for (int j = 0; j < b.cols; j++) {
          if (br[j] != 0) {
            mr[j] ^= field.mul(x, br[j]);
          }
        }
      }
    }
    return new Matrix(field, m, rows, b.cols);
  }

  /** Row vector v (length rows) times this matrix. */
  public int[] leftMultiply(int[] v) {
    if (v.length != rows) {
      throw new IllegalArgumentException("vector of length " + v.length + " for a matrix with " + rows + " rows");
    }
    int[] out = new int[cols];
    for (int i = 0; i < rows; i++) {
      if (v[i] == 0) {
        continue;
      }
      for (int j = 0; j < cols; j++) {
        if (a[i][j] != 0) {
          out[j] ^= field.mul(v[i], a[i][j]);
        }
      }
    }
    return out;
  }

  public Matrix transpose() {
    int[][] m = new int[cols][rows];
    for (int i = 0; i < rows; i++) {
      for (int j = 0; j < cols; j++) {
        m[j][i] = a[i][j];
      }
    }
    return new Matrix(field, m, cols, rows);
  }

  public int rank() {
    return rank(toArray(), rows, cols, field);
  }

  /** Rank of the given rows, destroying them. */
  static int rank(int[][] m, int rows, int cols, Field field) {
    int rank = 0;
    for (int c = 0; c < cols && rank < rows; c++) {
      int p = rank;
      while (p < rows && m[p][c] == 0) {
        p++;
      }
      if (p == rows) {
        continue;
      }
      int[] t = m[p];
      m[p] = m[rank];
      m[rank] = t;
      int invPivot = field.inv(t[c]);
      for (int r = rank + 1; r < rows; r++) {
        int f = m[r][c];
        if (f != 0) {
          int s = field.mul(f, invPivot);
          int[] row = m[r];
          for (int j = c; j < cols; j++) {
            if (t[j] != 0) {
              row[j] ^= field.mul(s, t[j]);
            }
          }
        }
      }
      rank++;
    }
    return rank;
  }

  /** The inverse of this square matrix (Gauss-Jordan). */
  public Matrix inverse() {
    if (rows != cols) {
      throw new IllegalArgumentException("only a square matrix has an inverse, this one is " + rows + "x" + cols);
    }
    int n = rows;
    int[][] w = toArray();
    int[][] inv = identity(field, n).a;
    for (int c = 0; c < n; c++) {
      int p = c;
      while (p < n && w[p][c] == 0) {
        p++;
      }
      if (p == n) {
        throw new SingularMatrixException("matrix of order " + n + " is singular (no pivot in column " + c + ")");
      }
      swap(w, p, c);
      swap(inv, p, c);
      int invPivot = field.inv(w[c][c]);
      scale(w[c], invPivot);
      scale(inv[c], invPivot);
      for (int r = 0; r < n; r++) {
        int f = w[r][c];
        if (r != c && f != 0) {
          addScaled(w[r], w[c], f);
          addScaled(inv[r], inv[c], f);
        }
      }
    }
    return new Matrix(field, inv, n, n);
  }

  /**
   * Solves x * this = target for the row vector x (length rows): expresses target as a combination of
   * this matrix's rows. Returns null when target is not in the row space.
   */
  public int[] solveLeft(int[] target) {
    if (target.length != cols) {
      throw new IllegalArgumentException("target of length " + target.length + " for " + cols + " columns");
    }
    // Reduce [this^T | target^T]: column-space elimination on the transpose keeps track of combinations.
    int[][] w = new int[cols][rows + 1];
    for (int i = 0; i < rows; i++) {
      for (int j = 0; j < cols; j++) {
        w[j][i] = a[i][j];
      }
    }
    for (int j = 0; j < cols; j++) {
      w[j][rows] = target[j];
    }
    int[] pivotCol = new int[cols];
    int rank = 0;
    for (int c = 0; c < rows && rank < cols; c++) {
      int p = rank;
      while (p < cols && w[p][c] == 0) {
        p++;
      }
      if (p == cols) {
        continue;
      }
      swap(w, p, rank);
      int invPivot = field.inv(w[rank][c]);
      scale(w[rank], invPivot);
      for (int r = 0; r < cols; r++) {
        int f = w[r][c];
        if (r != rank && f != 0) {
          addScaled(w[r], w[rank], f);
        }
      }
      pivotCol[rank] = c;
      rank++;
    }
    for (int r = rank; r < cols; r++) {
      if (w[r][rows] != 0) {
        return null;
      }
    }
    int[] x = new int[rows];
    for (int r = 0; r < rank; r++) {
      x[pivotCol[r]] = w[r][rows];
    }
    return x;
  }

  /**
   * A basis of the left null space: the rows h with h * this = 0, as a matrix of (rows - rank) rows.
   * For a generator matrix G (n x k) this is a parity-check matrix H with H G = 0.
   */
  public Matrix leftNullSpace() {
    // Reduce [this | I]; rows whose left part becomes zero carry the null-space combinations.
    int[][] w = new int[rows][cols + rows];
    for (int i = 0; i < rows; i++) {
      System.arraycopy(a[i], 0, w[i], 0, cols);
      w[i][cols + i] = 1;
    }
    int rank = 0;
    for (int c = 0; c < cols && rank < rows; c++) {
      int p = rank;
      while (p < rows && w[p][c] == 0) {
        p++;
      }
      if (p == rows) {
        continue;
      }
      swap(w, p, rank);
      int invPivot = field.inv(w[rank][c]);
      scale(w[rank], invPivot);
      for (int r = 0; r < rows; r++) {
        int f = w[r][c];
        if (r != rank && f != 0) {
          addScaled(w[r], w[rank], f);
        }
      }
      rank++;
    }
    int[][] h = new int[rows - rank][];
    for (int r = rank; r < rows; r++) {
      h[r - rank] = Arrays.copyOfRange(w[r], cols, cols + rows);
    }
    return new Matrix(field, h, rows - rank, rows);
  }

  private void scale(int[] row, int s) {
    for (int j = 0; j < row.length; j++) {
      if (row[j] != 0) {
        row[j] = field.mul(row[j], s);
      }
    }
  }

  private void addScaled(int[] dst, int[] src, int s) {
    for (int j = 0; j < dst.length; j++) {
      if (src[j] != 0) {
        dst[j] ^= field.mul(s, src[j]);
      }
    }
  }

  private static void swap(int[][] m, int i, int j) {
    if (i != j) {
      int[] t = m[i];
      m[i] = m[j];
      m[j] = t;
    }
  }

  private void requireSameField(Matrix o) {
    if (o.field != field) {
      throw new IllegalArgumentException("matrices over different fields: " + field + " and " + o.field);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Matrix m && m.field == field && Arrays.deepEquals(m.a, a);
  }

  @Override
  public int hashCode() {
    return Arrays.deepHashCode(a);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    for (int[] r : a) {
      for (int j = 0; j < r.length; j++) {
        sb.append(j == 0 ? "" : " ").append(String.format("%3d", r[j]));
      }
      sb.append('\n');
    }
    return sb.toString();
  }
}
