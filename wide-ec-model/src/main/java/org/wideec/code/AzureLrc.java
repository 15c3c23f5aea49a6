package org.wideec.code;

import java.util.Random;
import java.util.Set;
import org.wideec.gf.Field;
import org.wideec.gf.Gf256;
import org.wideec.gf.Gf65536;
import org.wideec.gf.Matrix;

/**
 * Azure-LRC (Huang et al., ATC'12; UniLRC §2.3, ECWide §2.3): k data units in l local groups, each with an
 * XOR local parity, and g global parities over all data. {@code azure-lrc:k=,l=,g=} spreads the data
 * evenly over l groups; {@code azure-lrc:k=,r=,g=} uses groups of r with a smaller last group (ECWide's
 * (n,k,r) form). Azure-LRC+1 ({@code azure-lrc+1:k=,l=,g=}) adds one more XOR local parity over the g
 * global parities, so a lost global is repaired locally too; l counts the data groups only.
 *
 * <p>Global coefficients of a pinned spec are read from the on-disk format's table ({@link CodeFormat}).
 * Those of any other spec start from Cauchy rows and are re-drawn by a seeded search; the table holds what
 * that search chose when the format was generated. Every code must
 * survive any g+1 losses. Where all patterns of n-k losses can be enumerated the search looks for a
 * maximally recoverable code (every pattern any code of the layout decodes, decodes) and, failing that
 * in its budget, keeps the candidate that misses the fewest; wide codes take the first tolerant
 * candidate and report sampled maximal recoverability. {@link LinearCode#notes()} says which.
 */
public final class AzureLrc {
  static final int MAX_ATTEMPTS = 400;
  /** Attempts after which a tolerant but not fully MR candidate is accepted. */
  static final int MIN_ATTEMPTS_WITHOUT_MR = 60;

  private AzureLrc() {}

  static LinearCode fromSpec(CodeSpec spec, boolean plusOne, PinnedCode pinned) {
    spec.allowOnly(Set.of("k", "l", "r", "g"));
    int k = spec.requireInRange("k", 1, LinearCode.MAX_UNITS);
    int g = spec.requireInRange("g", plusOne ? 1 : 0, LinearCode.MAX_UNITS);
    int[] sizes;
    String canonical;
    String family = plusOne ? "azure-lrc+1" : "azure-lrc";
    if (spec.has("l") == spec.has("r")) {
      throw new InvalidCodeSpecException(spec + ": give exactly one of l (number of local groups) or r (group size)");
    }
    if (spec.has("l")) {
      int l = spec.requireInRange("l", 1, k);
      sizes = evenGroups(k, l);
      canonical = family + ":k=" + k + ",l=" + l + ",g=" + g;
    } else {
      int r = spec.requireInRange("r", 1, k);
      sizes = fixedGroups(k, r);
      canonical = family + ":k=" + k + ",r=" + r + ",g=" + g;
    }
    int n = k + sizes.length + g + (plusOne ? 1 : 0);
    if (n > LinearCode.MAX_UNITS) {
      throw new InvalidCodeSpecException(spec + ": n = " + n + " exceeds " + LinearCode.MAX_UNITS);
    }
    if (pinned != null) {
      return build(Gf256.INSTANCE, k, sizes, g, plusOne, pinned.unitRows(k, g))
          .build(canonical, pinned.notes(), pinned.guaranteedTolerance());
    }
    return search(canonical, k, sizes, g, plusOne);
  }

  /** l groups whose sizes differ by at most one, larger first. */
  static int[] evenGroups(int k, int l) {
    int[] s = new int[l];
    for (int i = 0; i < l; i++) {
      s[i] = k / l + (i < k % l ? 1 : 0);
    }
    return s;
  }

  /** Groups of r, the last one holding the remainder. */
  static int[] fixedGroups(int k, int r) {
    int l = (k + r - 1) / r;
    int[] s = new int[l];
    for (int i = 0; i < l; i++) {
      s[i] = Math.min(r, k - i * r);
    }
    return s;
  }

  private static LinearCode search(String spec, int k, int[] sizes, int g, boolean plusOne) {
    Random ra = new Random(1);
    Random rb = new Random(2);
    ErasurePatterns genericA = new ErasurePatterns(
        build(Gf65536.INSTANCE, k, sizes, g, plusOne, random(Gf65536.INSTANCE, g, k, ra)).generator().leftNullSpace());
    ErasurePatterns genericB = new ErasurePatterns(
        build(Gf65536.INSTANCE, k, sizes, g, plusOne, random(Gf65536.INSTANCE, g, k, rb)).generator().leftNullSpace());
    int n = k + sizes.length + g + (plusOne ? 1 : 0);
    RecoverabilityCheck check = new RecoverabilityCheck(genericA, genericB, n, n - k, g + 1);
    // Keep the best candidate: fully MR if one turns up, else the one missing fewest patterns.
    Random seeded = new Random(0x5eed);
    GeneratorBuilder best = null;
    RecoverabilityCheck.Verdict bestVerdict = null;
    int bestAttempt = -1;
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      int[][] coeffs = attempt == 0 ? CauchyRows.rows(k, g) : random(Gf256.INSTANCE, g, k, seeded);
      GeneratorBuilder b = build(Gf256.INSTANCE, k, sizes, g, plusOne, coeffs);
      RecoverabilityCheck.Verdict v = check.verify(ErasurePatterns.of(b.build(spec, "")));
      if (v.tolerant() && (bestVerdict == null || v.missed() < bestVerdict.missed())) {
        best = b;
        bestVerdict = v;
        bestAttempt = attempt;
      }
      boolean settled = v.maximallyRecoverable() || (v.tolerant() && !check.exhaustive())
          || (bestVerdict != null && attempt >= MIN_ATTEMPTS_WITHOUT_MR);
      if (settled) {
        break;
      }
    }
    if (best == null) {
      throw new InvalidCodeSpecException(spec + ": no GF(2^8) global coefficients survive every " + (g + 1)
          + " losses after " + MAX_ATTEMPTS + " attempts");
    }
    String how = bestAttempt == 0 ? "Cauchy global coefficients" : "global coefficients from seeded search, attempt " + bestAttempt;
    return best.build(spec, how + "; " + bestVerdict.notes(), check.toleranceExhaustive() ? g + 1 : -1);
  }

  static GeneratorBuilder build(Field f, int k, int[] sizes, int g, boolean plusOne, int[][] globalCoeffs) {
    GeneratorBuilder b = new GeneratorBuilder(f, k);
    int[] globals = new int[g];
    for (int i = 0; i < g; i++) {
      globals[i] = b.addGlobal(globalCoeffs[i]);
    }
    int start = 0;
    for (int size : sizes) {
      b.addLocal(GeneratorBuilder.range(start, size), GeneratorBuilder.ones(size));
      start += size;
    }
    if (plusOne) {
      b.addLocal(globals, GeneratorBuilder.ones(g));
    }
    return b;
  }

  static int[][] random(Field f, int rows, int cols, Random rnd) {
    int[][] c = new int[rows][cols];
    for (int i = 0; i < rows; i++) {
      for (int j = 0; j < cols; j++) {
        c[i][j] = 1 + rnd.nextInt(f.size() - 1);
      }
    }
    return c;
  }

  /** The generator of the layout with the given field and coefficients (for structural analysis). */
  static Matrix generator(Field f, int k, int[] sizes, int g, boolean plusOne, int[][] globalCoeffs) {
    return build(f, k, sizes, g, plusOne, globalCoeffs).generator();
  }
}
