package org.wideec.gf;

/**
 * GF(2^8) with the primitive polynomial x^8+x^4+x^3+x^2+1 (0x11d), the field of ISA-L and of Hadoop's
 * {@code GF256}, so our parity bytes and theirs agree. Tables are built once; all methods are static
 * in spirit, exposed through the {@link #INSTANCE} for code that is generic over {@link Field}.
 */
public final class Gf256 implements Field {
  public static final int POLYNOMIAL = 0x11d;
  public static final Gf256 INSTANCE = new Gf256();

  private static final int[] EXP = new int[512];
  private static final int[] LOG = new int[256];
  private static final int[] INV = new int[256];
  /** MUL[a][b] = a*b; a row MUL[c] is the lookup table that multiplies a region by c. */
  private static final byte[][] MUL = new byte[256][256];

  static {
    int x = 1;
    for (int i = 0; i < 255; i++) {
      EXP[i] = x;
      LOG[x] = i;
      x <<= 1;
      if ((x & 0x100) != 0) {
        x ^= POLYNOMIAL;
      }
    }
    for (int i = 255; i < EXP.length; i++) {
      EXP[i] = EXP[i - 255];
    }
    for (int a = 1; a < 256; a++) {
      INV[a] = EXP[255 - LOG[a]];
    }
    for (int a = 1; a < 256; a++) {
      for (int b = 1; b < 256; b++) {
        MUL[a][b] = (byte) EXP[LOG[a] + LOG[b]];
      }
    }
  }

  private Gf256() {}

  @Override
  public int size() {
    return 256;
  }

  @Override
  public int mul(int a, int b) {
    return MUL[a][b] & 0xff;
  }

  public static int multiply(int a, int b) {
    return MUL[a][b] & 0xff;
  }

  @Override
  public int inv(int a) {
    return inverse(a);
  }

  public static int inverse(int a) {
    if (a == 0) {
      throw new ArithmeticException("0 has no inverse in GF(2^8)");
    }
    return INV[a];
  }

  @Override
  public int pow(int a, int e) {
    if (e == 0) {
      return 1;
    }
    if (a == 0) {
      return 0;
    }
    return EXP[(int) ((long) LOG[a] * e % 255)];
  }

  @Override
  public int exp(int e) {
    return EXP[Math.floorMod(e, 255)];
  }

  /** The 256-byte table that multiplies by c (shared, do not modify). */
  static byte[] mulTable(int c) {
    return MUL[c];
  }

  @Override
  public String toString() {
    return "GF(2^8)/0x11d";
  }
}
