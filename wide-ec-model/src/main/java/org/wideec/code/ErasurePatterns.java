package org.wideec.code;

import java.util.Random;
import org.wideec.gf.Field;
import org.wideec.gf.Matrix;

/**
 * Decodability of erasure patterns, from a parity-check matrix H over any field: a set of lost units is
 * decodable exactly when its columns of H are linearly independent. Exhaustive counts walk the subsets
 * depth-first with an incremental echelon basis, so a dependent prefix prunes every pattern that
 * contains it (counted in closed form) instead of testing them one by one.
 */
public final class ErasurePatterns {
  private final Field field;
  private final int n;
  private final int m;
  /** columns[u] = column u of H. */
  private final int[][] columns;

  public ErasurePatterns(Matrix parityCheck) {
    this.field = parityCheck.field();
    this.n = parityCheck.cols();
    this.m = parityCheck.rows();
    Matrix t = parityCheck.transpose();
    this.columns = t.toArray();
  }

  public static ErasurePatterns of(LinearCode code) {
    return new ErasurePatterns(code.parityCheck());
  }

  public int units() {
    return n;
  }

  /** True when the given units can all be lost and rebuilt. */
  public boolean isDecodable(int[] erased) {
    if (erased.length > m) {
      return false;
    }
    Basis b = new Basis(erased.length);
    for (int u : erased) {
      if (!b.push(columns[u])) {
        return false;
      }
    }
    return true;
  }

  /** Number of decodable patterns among all C(n, failures) patterns of exactly that many lost units. */
  public long countDecodable(int failures) {
    return countDecodable(failures, Progress.NONE);
  }

  /** The same, reporting patterns examined (a pruned branch counts as all the patterns it holds). */
  public long countDecodable(int failures, Progress progress) {
    if (failures < 0 || failures > n) {
      throw new IllegalArgumentException("failures must lie in 0.." + n + ", got " + failures);
    }
    if (failures > m) {
      return 0;
    }
    Walk w = new Walk(failures, progress);
    long decodable = w.walk(0, failures);
    progress.at(w.total, w.total);
    return decodable;
  }

  /** Depth-first over patterns in index order; a unit that adds no rank prunes every pattern below it. */
  private final class Walk {
    final Basis basis;
    final Progress progress;
    final long total;
    long done;

    Walk(int failures, Progress progress) {
      this.basis = new Basis(failures);
      this.progress = progress;
      this.total = RepairPlanner.binomial(n, failures);
    }

    long walk(int from, int remaining) {
      if (remaining == 0) {
        if ((++done & 0xFFFF) == 0) {
          progress.at(done, total);
        }
        return 1;
      }
      long decodable = 0;
      for (int u = from; u <= n - remaining; u++) {
        if (basis.push(columns[u])) {
          decodable += walk(u + 1, remaining - 1);
          basis.pop();
        } else {
          done += RepairPlanner.binomial(n - u - 1, remaining - 1);
        }
      }
      return decodable;
    }
  }

  /** Count of decodable patterns among {@code samples} uniformly random patterns of the given size. */
  public long sampleDecodable(int failures, long samples, Random random) {
    return sampleDecodable(failures, samples, random, Progress.NONE);
  }

  /** The same, reporting samples examined. */
  public long sampleDecodable(int failures, long samples, Random random, Progress progress) {
    int[] perm = new int[n];
    for (int i = 0; i < n; i++) {
      perm[i] = i;
    }
    long ok = 0;
    int[] pattern = new int[failures];
    for (long s = 0; s < samples; s++) {
      for (int i = 0; i < failures; i++) {
        int j = i + random.nextInt(n - i);
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
        pattern[i] = perm[i];
      }
      if (isDecodable(pattern)) {
        ok++;
      }
      if ((s & 0xFFF) == 0xFFF) {
        progress.at(s + 1, samples);
      }
    }
    progress.at(samples, samples);
    return ok;
  }

  /**
   * Echelon basis supporting push/pop: row i is zero at the pivots of rows before it, so reducing in
   * insertion order never reintroduces an eliminated pivot, and popping leaves a valid basis.
   */
  private final class Basis {
    private final int[][] rows;
    private final int[] pivots;
    private int size;

    Basis(int capacity) {
      rows = new int[Math.max(1, capacity)][m];
      pivots = new int[Math.max(1, capacity)];
    }

    boolean push(int[] v) {
      int[] r = rows[size];
      System.arraycopy(v, 0, r, 0, m);
      for (int i = 0; i < size; i++) {
        int f = r[pivots[i]];
        if (f != 0) {
          int[] b = rows[i];
          for (int j = 0; j < m; j++) {
            if (b[j] != 0) {
              r[j] ^= field.mul(f, b[j]);
            }
          }
        }
      }
      int p = 0;
      while (p < m && r[p] == 0) {
        p++;
      }
      if (p == m) {
        return false;
      }
      int inv = field.inv(r[p]);
      for (int j = 0; j < m; j++) {
        if (r[j] != 0) {
          r[j] = field.mul(r[j], inv);
        }
      }
      pivots[size++] = p;
      return true;
    }

    void pop() {
      size--;
    }
  }
}
