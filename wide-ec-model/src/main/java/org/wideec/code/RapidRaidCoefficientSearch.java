package org.wideec.code;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.wideec.gf.Gf256;
import org.wideec.gf.Matrix;

/**
 * Finds GF(2^8) psi/xi for RapidRAID without accidental dependencies (RapidRAID §V-A). Random redraws
 * rarely work for n = 16 (each coefficient touches thousands of k-subsets), so this does coordinate
 * descent: the determinant of a k-subset is affine in any single psi or xi (the coefficient enters one
 * column additively, so row differences leave it in one row), hence each subset forbids exactly one
 * value of that coefficient. Set each coefficient to a value forbidden by the fewest subsets, sweep
 * until no subset is accidentally dependent or the sweep budget is spent.
 */
final class RapidRaidCoefficientSearch {
  static final int MAX_SWEEPS = 40;

  private final int n;
  private final int k;
  private final List<int[]> subsets;
  private final Random rnd;
  final int[][] psi;
  final int[][] xi;
  int sweeps;

  /** @param subsets k-subsets (kept units) that some coefficients make independent */
  RapidRaidCoefficientSearch(int n, int k, List<int[]> subsets, Random rnd) {
    this.n = n;
    this.k = k;
    this.subsets = subsets;
    this.rnd = rnd;
    this.psi = new int[n][2];
    this.xi = new int[n][2];
    for (int i = 0; i < n; i++) {
      for (int t = 0; t < 2; t++) {
        psi[i][t] = 1 + rnd.nextInt(255);
        xi[i][t] = 1 + rnd.nextInt(255);
      }
    }
  }

  /** Runs the descent; returns the number of subsets still dependent. */
  long run() {
    long bad = countDependent();
    for (sweeps = 0; sweeps < MAX_SWEEPS && bad > 0; sweeps++) {
      for (int node = 0; node < n; node++) {
        int slots = RapidRaid.blocksOnNode(n, k, node).length;
        for (int slot = 0; slot < slots; slot++) {
          optimise(psi, node, slot);
          optimise(xi, node, slot);
        }
      }
      bad = countDependent();
    }
    return bad;
  }

  Matrix generator() {
    return RapidRaid.generator(Gf256.INSTANCE, n, k, psi, xi);
  }

  private void optimise(int[][] which, int node, int slot) {
    int[] forbidden = new int[256];
    int old = which[node][slot];
    which[node][slot] = 0;
    Matrix g0 = generator();
    which[node][slot] = 1;
    Matrix g1 = generator();
    for (int[] s : subsets) {
      int a = det(g0, s);
      int b = det(g1, s) ^ a;
      if (b != 0) {
        forbidden[Gf256.multiply(a, Gf256.inverse(b))]++;
      }
    }
    // Among the values forbidden by the fewest subsets pick one at random: moving along plateaus is what
    // lets the descent leave a local minimum.
    int min = Integer.MAX_VALUE;
    int ties = 0;
    int best = old;
    for (int x = 1; x < 256; x++) {
      if (forbidden[x] < min) {
        min = forbidden[x];
        ties = 0;
      }
      if (forbidden[x] == min && rnd.nextInt(++ties) == 0) {
        best = x;
      }
    }
    which[node][slot] = best;
  }

  private long countDependent() {
    Matrix g = generator();
    long bad = 0;
    for (int[] s : subsets) {
      if (det(g, s) == 0) {
        bad++;
      }
    }
    return bad;
  }

  /** Determinant of the rows of g at the given units (characteristic 2: swaps do not change it). */
  static int det(Matrix g, int[] rows) {
    int size = rows.length;
    int[][] m = new int[size][];
    for (int i = 0; i < size; i++) {
      m[i] = g.row(rows[i]);
    }
    int det = 1;
    for (int c = 0; c < size; c++) {
      int p = c;
      while (p < size && m[p][c] == 0) {
        p++;
      }
      if (p == size) {
        return 0;
      }
      int[] t = m[p];
      m[p] = m[c];
      m[c] = t;
      det = Gf256.multiply(det, t[c]);
      int inv = Gf256.inverse(t[c]);
      for (int r = c + 1; r < size; r++) {
        int f = m[r][c];
        if (f != 0) {
          int s = Gf256.multiply(f, inv);
          for (int j = c; j < size; j++) {
            if (t[j] != 0) {
              m[r][j] ^= Gf256.multiply(s, t[j]);
            }
          }
        }
      }
    }
    return det;
  }

  /** Every k-subset, or a seeded sample of them when there are too many. */
  static List<int[]> candidateSubsets(int n, int k, long budget, Random rnd) {
    List<int[]> out = new ArrayList<>();
    if (RepairPlanner.binomial(n, k) <= budget) {
      int[] s = RecoverabilityCheck.firstCombination(k);
      do {
        out.add(s.clone());
      } while (RepairPlanner.next(s, n));
    } else {
      for (int i = 0; i < budget / 50; i++) {
        out.add(rnd.ints(0, n).distinct().limit(k).sorted().toArray());
      }
    }
    return out;
  }
}
