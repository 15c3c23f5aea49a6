package org.wideec.code;

import java.util.Set;
import org.wideec.gf.Gf256;

/**
 * UniLRC (Xu et al. 2025, §3.2): from scale alpha and cluster count z, n = alpha z^2 + z,
 * k = alpha z (z - 1), r = alpha z. Start from a Vandermonde matrix over distinct elements
 * (here the powers of the primitive element, so k <= 255). Step 1: rows 1..alpha z are the global
 * parities, row 0 (all ones) is split (Step 2) into z blocks of k/z ones. Step 3 sums every alpha global
 * rows; Step 4 couples: local parity i = sum of its alpha global rows + its block of ones, which is the
 * XOR of the group's k/z data units and its alpha global parities. Each group (k/z data, alpha globals,
 * one local) is one cluster's worth; distance r + 2 (Theorem 3.2).
 */
public final class UniLrc {
  private UniLrc() {}

  static LinearCode fromSpec(CodeSpec spec) {
    spec.allowOnly(Set.of("alpha", "z"));
    int alpha = spec.requireInRange("alpha", 1, LinearCode.MAX_UNITS);
    int z = spec.requireInRange("z", 2, LinearCode.MAX_UNITS);
    long n = (long) alpha * z * z + z;
    if (n > LinearCode.MAX_UNITS) {
      throw new InvalidCodeSpecException(spec + ": n = alpha z^2 + z = " + n + " exceeds " + LinearCode.MAX_UNITS);
    }
    int k = alpha * z * (z - 1);
    int g = alpha * z;
    int perGroup = k / z;
    GeneratorBuilder b = new GeneratorBuilder(Gf256.INSTANCE, k);
    for (int p = 1; p <= g; p++) {
      int[] row = new int[k];
      for (int j = 0; j < k; j++) {
        row[j] = Gf256.INSTANCE.pow(Gf256.INSTANCE.exp(j), p);
      }
      b.addGlobal(row);
    }
    for (int i = 0; i < z; i++) {
      int[] members = new int[perGroup + alpha];
      for (int j = 0; j < perGroup; j++) {
        members[j] = i * perGroup + j;
      }
      for (int a = 0; a < alpha; a++) {
        members[perGroup + a] = k + i * alpha + a;
      }
      b.addLocal(members, GeneratorBuilder.ones(members.length));
    }
    return b.build("unilrc:alpha=" + alpha + ",z=" + z,
        "UniLRC(n=" + n + ",k=" + k + ",r=" + g + "): Vandermonde over alpha^j, XOR local parities; one local group per cluster",
        g + 1); // Theorem 3.2: distance at least r + 2
  }
}
