package org.wideec.archive.encode;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.wideec.code.LinearCode;
import org.wideec.gf.Matrix;

/**
 * RapidRAID's pipeline as coefficients (Pamies-Juarez et al., §IV-V): position i (0-based) of an (n, k) chain holds
 * piece i when i < k and piece i-(n-k) when i >= n-k (the object's two replicas); it receives x_{i-1} (x_{-1} = 0),
 * forwards x_i = x_{i-1} + sum_t psi_{i,t} o_t and stores c_i = x_{i-1} + sum_t xi_{i,t} o_t over its pieces o_t.
 *
 * <p>The on-disk format pins only the generator (row i = c_i's coefficients), so psi and xi are read back from it:
 * x_{i-1} must equal row i off position i's pieces (what position i adds touches only its pieces), and x only
 * changes at positions that hold a piece. Each coordinate of x_i is set to what the next position not holding that
 * piece needs; a generator for which that is impossible is not a RapidRAID pipeline and is refused. The executed
 * c_i are then exactly the generator's rows times the pieces, whatever psi/xi the coefficient search chose.
 */
public final class RapidRaidPipeline {
  /** One position: its pieces (ascending object index order of {@code piecesAt}), and psi/xi per piece. */
  public record Position(int index, int[] pieces, int[] psi, int[] xi) {
    public Position {
      pieces = pieces.clone();
      psi = psi.clone();
      xi = xi.clone();
    }

    @Override
    public int[] pieces() {
      return pieces.clone();
    }

    @Override
    public int[] psi() {
      return psi.clone();
    }

    @Override
    public int[] xi() {
      return xi.clone();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Position p && index == p.index && Arrays.equals(pieces, p.pieces)
          && Arrays.equals(psi, p.psi) && Arrays.equals(xi, p.xi);
    }

    @Override
    public int hashCode() {
      return 31 * (31 * index + Arrays.hashCode(pieces)) + Arrays.hashCode(xi);
    }
  }

  private final LinearCode code;
  private final List<Position> positions;

  private RapidRaidPipeline(LinearCode code, List<Position> positions) {
    this.code = code;
    this.positions = List.copyOf(positions);
  }

  /** Pieces (0-based object indexes) position {@code i} of an (n, k) chain holds before encoding. */
  public static int[] piecesAt(int n, int k, int i) {
    if (i < 0 || i >= n) {
      throw new IllegalArgumentException("rapidraid (" + n + "," + k + ") has positions 0.." + (n - 1) + ", not " + i);
    }
    if (i < k && i >= n - k) {
      return new int[] {i, i - (n - k)};
    }
    return new int[] {i < k ? i : i - (n - k)};
  }

  /**
   * The pipeline of a pinned {@code rapidraid:n=,k=} code.
   *
   * @throws IllegalArgumentException naming the code and the row when it is not a RapidRAID pipeline's generator
   */
  public static RapidRaidPipeline of(LinearCode code) {
    int n = code.n();
    int k = code.k();
    if (!code.spec().startsWith("rapidraid:") || !code.pinned() || n > 2 * k || n <= k) {
      throw new IllegalArgumentException(code.spec() + " is not a pinned RapidRAID code with k < n <= 2k; the "
          + "pipelined encoder runs only those");
    }
    Matrix g = code.generator();
    int[] x = new int[k]; // x_{i-1}
    List<Position> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int[] pieces = piecesAt(n, k, i);
      for (int j = 0; j < k; j++) {
        if (!holds(pieces, j) && g.get(i, j) != x[j]) {
          throw new IllegalArgumentException(code.spec() + ": generator row " + i + " has " + g.get(i, j)
              + " for piece " + j + " where the pipeline carries " + x[j] + " (position " + i + " does not hold piece "
              + j + "): not a RapidRAID generator");
        }
      }
      int[] psi = new int[pieces.length];
      int[] xi = new int[pieces.length];
      for (int t = 0; t < pieces.length; t++) {
        int j = pieces[t];
        xi[t] = g.get(i, j) ^ x[j]; // GF(2^8): addition is XOR
        int next = x[j];
        for (int later = i + 1; later < n; later++) {
          if (!holds(piecesAt(n, k, later), j)) {
            next = g.get(later, j);
            break;
          }
        }
        psi[t] = next ^ x[j];
      }
      for (int t = 0; t < pieces.length; t++) {
        x[pieces[t]] ^= psi[t];
      }
      out.add(new Position(i, pieces, psi, xi));
    }
    return new RapidRaidPipeline(code, out);
  }

  private static boolean holds(int[] pieces, int j) {
    for (int p : pieces) {
      if (p == j) {
        return true;
      }
    }
    return false;
  }

  public LinearCode code() {
    return code;
  }

  public List<Position> positions() {
    return positions;
  }

  public Position position(int i) {
    return positions.get(i);
  }
}
