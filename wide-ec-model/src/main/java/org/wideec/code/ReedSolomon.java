package org.wideec.code;

import java.util.Set;
import org.wideec.gf.Gf256;

/**
 * Reed-Solomon {@code rs:k=,m=} with Cauchy parity rows, byte-for-byte the parity of Hadoop's
 * {@code RSRawEncoder} and ISA-L's {@code gf_gen_cauchy1_matrix} for the same k, m and data. MDS.
 */
public final class ReedSolomon {
  private ReedSolomon() {}

  public static LinearCode create(int k, int m) {
    return Codes.fromSpec("rs:k=" + k + ",m=" + m);
  }

  static LinearCode fromSpec(CodeSpec spec) {
    spec.allowOnly(Set.of("k", "m"));
    int k = spec.requireInRange("k", 1, LinearCode.MAX_UNITS);
    int m = spec.requireInRange("m", 0, LinearCode.MAX_UNITS);
    if (k + m > LinearCode.MAX_UNITS) {
      throw new InvalidCodeSpecException(spec + ": n = k + m = " + (k + m) + " exceeds " + LinearCode.MAX_UNITS);
    }
    GeneratorBuilder b = new GeneratorBuilder(Gf256.INSTANCE, k);
    for (int[] row : CauchyRows.rows(k, m)) {
      b.addGlobal(row);
    }
    return b.build("rs:k=" + k + ",m=" + m, "MDS (Cauchy): any " + m + " losses decode", m);
  }
}
