package org.wideec.code;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.wideec.gf.Field;
import org.wideec.gf.Gf256;
import org.wideec.gf.Gf65536;
import org.wideec.gf.Matrix;

/**
 * RapidRAID (Pamies-Juarez et al., §IV-V): a pipelined, non-systematic (n, k) code for archiving a
 * replicated object, k <= n <= 2k. Node i (1-based) holds o_i when i <= k (first replica) and
 * o_{i-(n-k)} when i > n-k (second replica). Along the pipeline, node i forwards
 * x_{i,i+1} = x_{i-1,i} + sum_{o_j on node i} psi_{i,j} o_j (eq. 3) and stores
 * c_i = x_{i-1,i} + sum_{o_j on node i} xi_{i,j} o_j (eq. 4).
 *
 * <p>Some k-subsets of c are dependent for every choice of psi and xi (natural dependencies, e.g.
 * {c1,c2,c5,c6} for (8,4)); they are found with random coefficients of GF(2^16). The GF(2^8) psi/xi
 * come from a seeded search that rejects any accidental dependency beyond the natural ones. A pinned spec
 * takes its generator from the on-disk format's table ({@link CodeFormat}), which holds what that search
 * chose when the format was generated.
 */
public final class RapidRaid {
  static final long EXHAUSTIVE_BUDGET = 250_000;

  private RapidRaid() {}

  /** Blocks (0-based object indexes) stored on node i (0-based) before encoding. */
  static int[] blocksOnNode(int n, int k, int node) {
    List<Integer> b = new ArrayList<>(2);
    if (node < k) {
      b.add(node);
    }
    if (node >= n - k) {
      b.add(node - (n - k));
    }
    return b.stream().mapToInt(Integer::intValue).toArray();
  }

  /** Generator for the given field; coefficients psi[i][t], xi[i][t] for the t-th block on node i. */
  static Matrix generator(Field f, int n, int k, int[][] psi, int[][] xi) {
    int[][] g = new int[n][k];
    int[] x = new int[k];
    for (int i = 0; i < n; i++) {
      int[] blocks = blocksOnNode(n, k, i);
      int[] c = x.clone();
      for (int t = 0; t < blocks.length; t++) {
        c[blocks[t]] ^= xi[i][t];
      }
      g[i] = c;
      for (int t = 0; t < blocks.length; t++) {
        x[blocks[t]] ^= psi[i][t];
      }
    }
    return Matrix.of(f, g);
  }

  static LinearCode fromSpec(CodeSpec spec, PinnedCode pinned) {
    spec.allowOnly(Set.of("n", "k"));
    int n = spec.requireInRange("n", 1, LinearCode.MAX_UNITS);
    int k = spec.requireInRange("k", 1, n);
    if (n > 2 * k) {
      throw new InvalidCodeSpecException(spec + ": RapidRAID needs k <= n <= 2k (two replicas), got n = " + n + ", k = " + k);
    }
    String canonical = "rapidraid:n=" + n + ",k=" + k;
    UnitRole[] roles = new UnitRole[n];
    java.util.Arrays.fill(roles, UnitRole.CODED);
    if (pinned != null) {
      return new LinearCode(canonical, pinned.generator(), roles, List.of(), pinned.notes(),
          pinned.guaranteedTolerance());
    }
    ErasurePatterns genericA = new ErasurePatterns(genericGenerator(n, k, new Random(1)).leftNullSpace());
    ErasurePatterns genericB = new ErasurePatterns(genericGenerator(n, k, new Random(2)).leftNullSpace());
    int m = n - k;
    boolean exhaustive = RepairPlanner.binomial(n, m) <= EXHAUSTIVE_BUDGET;
    List<int[]> natural = exhaustive ? naturalDependencies(genericA, genericB, n, k) : List.of();
    Random seeded = new Random(0x5eed);
    List<int[]> independentInPrinciple = new ArrayList<>();
    for (int[] kept : RapidRaidCoefficientSearch.candidateSubsets(n, k, EXHAUSTIVE_BUDGET, seeded)) {
      int[] erased = complement(kept, n);
      if (genericA.isDecodable(erased) || genericB.isDecodable(erased)) {
        independentInPrinciple.add(kept);
      }
    }
    RapidRaidCoefficientSearch search = new RapidRaidCoefficientSearch(n, k, independentInPrinciple, seeded);
    long accidental = search.run();
    Matrix g = search.generator();
    if (g.rank() < k) {
      throw new InvalidCodeSpecException(canonical + ": coefficient search ended with a rank-deficient generator");
    }
    return new LinearCode(canonical, g, roles, List.of(),
        describe(natural, exhaustive, n, k, search.sweeps, accidental, independentInPrinciple.size()));
  }

  /** Dependent k-subsets of units (0-based) that no coefficient choice removes. */
  public static List<int[]> naturalDependencies(int n, int k) {
    return naturalDependencies(new ErasurePatterns(genericGenerator(n, k, new Random(1)).leftNullSpace()),
        new ErasurePatterns(genericGenerator(n, k, new Random(2)).leftNullSpace()), n, k);
  }

  private static List<int[]> naturalDependencies(ErasurePatterns a, ErasurePatterns b, int n, int k) {
    List<int[]> out = new ArrayList<>();
    int[] kept = RecoverabilityCheck.firstCombination(k);
    do {
      int[] erased = complement(kept, n);
      if (!a.isDecodable(erased) && !b.isDecodable(erased)) {
        out.add(kept.clone());
      }
    } while (RepairPlanner.next(kept, n));
    return out;
  }

  private static Matrix genericGenerator(int n, int k, Random rnd) {
    Field f = Gf65536.INSTANCE;
    int[][] psi = new int[n][2];
    int[][] xi = new int[n][2];
    for (int i = 0; i < n; i++) {
      for (int t = 0; t < 2; t++) {
        psi[i][t] = 1 + rnd.nextInt(f.size() - 1);
        xi[i][t] = 1 + rnd.nextInt(f.size() - 1);
      }
    }
    return generator(f, n, k, psi, xi);
  }

  private static int[] complement(int[] kept, int n) {
    int[] out = new int[n - kept.length];
    int j = 0;
    int p = 0;
    for (int u = 0; u < n; u++) {
      if (p < kept.length && kept[p] == u) {
        p++;
      } else {
        out[j++] = u;
      }
    }
    return out;
  }

  private static String describe(List<int[]> natural, boolean exhaustive, int n, int k, int sweeps, long accidental,
      int checked) {
    StringBuilder sb = new StringBuilder();
    if (!exhaustive) {
      sb.append("natural dependencies not enumerated (C(").append(n).append(",").append(k)
          .append(") too large); ");
    } else if (natural.isEmpty()) {
      sb.append("MDS in principle: no natural dependencies; ");
    } else {
      sb.append(natural.size()).append(" natural dependencies (dependent k-subsets, 1-based c_i):");
      int shown = 0;
      for (int[] d : natural) {
        if (shown++ == 8) {
          sb.append(" ...");
          break;
        }
        sb.append(" {");
        for (int i = 0; i < d.length; i++) {
          sb.append(i == 0 ? "" : ",").append('c').append(d[i] + 1);
        }
        sb.append('}');
      }
      sb.append("; ");
    }
    sb.append(accidental == 0 ? "no accidental dependencies" : accidental + " accidental dependencies left")
        .append(" among ").append(checked).append(exhaustive ? "" : " sampled").append(" k-subsets independent in principle")
        .append(" (psi/xi by seeded coordinate descent, ").append(sweeps).append(" sweeps)");
    return sb.toString();
  }
}
