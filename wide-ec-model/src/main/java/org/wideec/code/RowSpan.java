package org.wideec.code;

import org.wideec.gf.Gf256;

/**
 * An incrementally built row space over GF(2^8) in reduced echelon form: add rows one at a time and ask
 * whether a vector lies in the span. Used where rank is probed many times (input choice, repair search).
 */
final class RowSpan {
  private final int width;
  private final int[][] basis;
  private final int[] pivots;
  private int size;

  RowSpan(int width) {
    this.width = width;
    this.basis = new int[width][];
    this.pivots = new int[width];
  }

  int size() {
    return size;
  }

  /** An independent copy; rows are never changed once added, so they are shared. */
  RowSpan copy() {
    RowSpan c = new RowSpan(width);
    System.arraycopy(basis, 0, c.basis, 0, size);
    System.arraycopy(pivots, 0, c.pivots, 0, size);
    c.size = size;
    return c;
  }

  /** Adds v; returns true when it was independent of the rows already present. */
  boolean add(int[] v) {
    int[] r = reduce(v);
    int p = 0;
    while (p < width && r[p] == 0) {
      p++;
    }
    if (p == width) {
      return false;
    }
    int inv = Gf256.inverse(r[p]);
    for (int j = p; j < width; j++) {
      r[j] = Gf256.multiply(r[j], inv);
    }
    basis[size] = r;
    pivots[size] = p;
    size++;
    return true;
  }

  boolean contains(int[] v) {
    int[] r = reduce(v);
    for (int x : r) {
      if (x != 0) {
        return false;
      }
    }
    return true;
  }

  private int[] reduce(int[] v) {
    int[] r = v.clone();
    for (int i = 0; i < size; i++) {
      int f = r[pivots[i]];
      if (f != 0) {
        int[] b = basis[i];
        for (int j = pivots[i]; j < width; j++) {
          if (b[j] != 0) {
            r[j] ^= Gf256.multiply(f, b[j]);
          }
        }
      }
    }
    return r;
  }
}
