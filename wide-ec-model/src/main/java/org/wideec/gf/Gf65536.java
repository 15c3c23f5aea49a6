package org.wideec.gf;

/**
 * GF(2^16) with the primitive polynomial 0x1100b. Used only for structural analysis (generic rank of a
 * construction with random coefficients), never for coding.
 */
public final class Gf65536 implements Field {
  public static final Gf65536 INSTANCE = new Gf65536();
  private static final int ORDER = 65535;
  private static final int[] EXP = new int[2 * ORDER];
  private static final int[] LOG = new int[65536];

  static {
    int x = 1;
    for (int i = 0; i < ORDER; i++) {
      EXP[i] = x;
      LOG[x] = i;
      x <<= 1;
      if ((x & 0x10000) != 0) {
        x ^= 0x1100b;
      }
    }
    for (int i = ORDER; i < EXP.length; i++) {
      EXP[i] = EXP[i - ORDER];
    }
  }

  private Gf65536() {}

  @Override
  public int size() {
    return 65536;
  }

  @Override
  public int mul(int a, int b) {
    if (a == 0 || b == 0) {
      return 0;
    }
    return EXP[LOG[a] + LOG[b]];
  }

  @Override
  public int inv(int a) {
    if (a == 0) {
      throw new ArithmeticException("0 has no inverse in GF(2^16)");
    }
    return EXP[ORDER - LOG[a]];
  }

  @Override
  public int pow(int a, int e) {
    if (e == 0) {
      return 1;
    }
    if (a == 0) {
      return 0;
    }
    return EXP[(int) ((long) LOG[a] * e % ORDER)];
  }

  @Override
  public int exp(int e) {
    return EXP[Math.floorMod(e, ORDER)];
  }

  @Override
  public String toString() {
    return "GF(2^16)/0x1100b";
  }
}
