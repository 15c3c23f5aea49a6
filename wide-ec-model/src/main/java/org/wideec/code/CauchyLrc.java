package org.wideec.code;

import java.util.Set;
import org.wideec.gf.Gf256;

/**
 * Google's wide LRCs (Kadekodi et al., FAST'23) as UniLRC §2.3 and Figure 1 describe them. Both take a
 * Cauchy matrix of g+1 rows: the first g rows are the global parities, the last row supplies the data
 * coefficients of the local parities.
 *
 * <ul>
 *   <li>Optimal Cauchy LRC ({@code optimal-cauchy-lrc:k=,l=,g=}): the data is split into l groups; local
 *       parity i is row g+1 over group i's data plus all g global parities, so every local group holds
 *       k/l data units, all globals and one local parity (OLRC(42,30,g=10,l=2): locality 25).</li>
 *   <li>Uniform Cauchy LRC ({@code uniform-cauchy-lrc:k=,l=,g=}): data and global parities together
 *       (k+g units) are split into l groups of sizes differing by at most one, smaller groups first; local
 *       parity i covers its group (ULRC(42,30,g=7,l=5): groups of 7 and 8, locality 7.43).</li>
 * </ul>
 */
public final class CauchyLrc {
  private CauchyLrc() {}

  static LinearCode optimal(CodeSpec spec) {
    int[] p = params(spec);
    int k = p[0];
    int l = p[1];
    int g = p[2];
    int[][] cauchy = CauchyRows.rows(k, g + 1);
    GeneratorBuilder b = new GeneratorBuilder(Gf256.INSTANCE, k);
    int[] globals = new int[g];
    for (int i = 0; i < g; i++) {
      globals[i] = b.addGlobal(cauchy[i]);
    }
    int start = 0;
    for (int size : AzureLrc.evenGroups(k, l)) {
      int[] members = new int[size + g];
      int[] coeffs = new int[size + g];
      for (int j = 0; j < size; j++) {
        members[j] = start + j;
        coeffs[j] = cauchy[g][start + j];
      }
      for (int j = 0; j < g; j++) {
        members[size + j] = globals[j];
        coeffs[size + j] = 1;
      }
      b.addLocal(members, coeffs);
      start += size;
    }
    return b.build("optimal-cauchy-lrc:k=" + k + ",l=" + l + ",g=" + g,
        "Cauchy rows (ISA-L cauchy1); every local group contains all " + g + " global parities");
  }

  static LinearCode uniform(CodeSpec spec) {
    int[] p = params(spec);
    int k = p[0];
    int l = p[1];
    int g = p[2];
    if (l > k + g) {
      throw new InvalidCodeSpecException(spec + ": l = " + l + " exceeds k + g = " + (k + g));
    }
    int[][] cauchy = CauchyRows.rows(k, g + 1);
    GeneratorBuilder b = new GeneratorBuilder(Gf256.INSTANCE, k);
    for (int i = 0; i < g; i++) {
      b.addGlobal(cauchy[i]);
    }
    int total = k + g;
    int start = 0;
    for (int i = 0; i < l; i++) {
      // smaller groups first: the last (total % l) groups get one more unit
      int size = total / l + (i >= l - total % l ? 1 : 0);
      int[] members = GeneratorBuilder.range(start, size);
      int[] coeffs = new int[size];
      for (int j = 0; j < size; j++) {
        int u = start + j;
        coeffs[j] = u < k ? cauchy[g][u] : 1;
      }
      b.addLocal(members, coeffs);
      start += size;
    }
    return b.build("uniform-cauchy-lrc:k=" + k + ",l=" + l + ",g=" + g,
        "Cauchy rows (ISA-L cauchy1); data and global parities spread evenly over " + l + " local groups");
  }

  private static int[] params(CodeSpec spec) {
    spec.allowOnly(Set.of("k", "l", "g"));
    int k = spec.requireInRange("k", 1, LinearCode.MAX_UNITS);
    int l = spec.requireInRange("l", 1, k);
    int g = spec.requireInRange("g", 1, LinearCode.MAX_UNITS);
    if (k + l + g > LinearCode.MAX_UNITS) {
      throw new InvalidCodeSpecException(spec + ": n = k + l + g = " + (k + l + g) + " exceeds " + LinearCode.MAX_UNITS);
    }
    return new int[] {k, l, g};
  }
}
