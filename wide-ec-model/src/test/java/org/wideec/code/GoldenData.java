package org.wideec.code;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.wideec.gf.Gf256;
import org.wideec.gf.Matrix;

/**
 * The fixed data behind the golden vectors and the arithmetic that turns it into a codeword, in plain
 * GF(2^8) (no coder), shared by the format generator and the tests that check against its output.
 */
public final class GoldenData {
  /** Bytes per data unit in every golden codeword. */
  public static final int UNIT_BYTES = 64;
  private static final HexFormat HEX = HexFormat.of();

  private GoldenData() {}

  /**
   * Byte j of data unit i: the top byte of (64 i + j + 1) * 0x9E3779B1 in 32 bits (Fibonacci hashing), so
   * every unit differs and no byte pattern repeats along a unit.
   */
  public static byte dataByte(int unit, int j) {
    return (byte) (((UNIT_BYTES * unit + j + 1) * 0x9E3779B1) >>> 24);
  }

  /** The k fixed data units. */
  public static byte[][] data(int k) {
    byte[][] d = new byte[k][UNIT_BYTES];
    for (int i = 0; i < k; i++) {
      for (int j = 0; j < UNIT_BYTES; j++) {
        d[i][j] = dataByte(i, j);
      }
    }
    return d;
  }

  /** Every unit of the codeword of the fixed data: unit u = sum_i G[u][i] * data_i. */
  public static byte[][] codeword(Matrix generator) {
    byte[][] data = data(generator.cols());
    byte[][] units = new byte[generator.rows()][UNIT_BYTES];
    for (int u = 0; u < generator.rows(); u++) {
      for (int i = 0; i < generator.cols(); i++) {
        int c = generator.get(u, i);
        for (int j = 0; c != 0 && j < UNIT_BYTES; j++) {
          units[u][j] ^= (byte) Gf256.multiply(c, data[i][j] & 0xff);
        }
      }
    }
    return units;
  }

  /** The generator as n*k bytes, row-major. */
  public static byte[] bytes(Matrix generator) {
    byte[] b = new byte[generator.rows() * generator.cols()];
    for (int u = 0; u < generator.rows(); u++) {
      for (int i = 0; i < generator.cols(); i++) {
        b[u * generator.cols() + i] = (byte) generator.get(u, i);
      }
    }
    return b;
  }

  /** SHA-256 in hex of the concatenated arrays. */
  public static String sha256(byte[]... parts) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      for (byte[] p : parts) {
        md.update(p);
      }
      return HEX.formatHex(md.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  public static String hex(byte[] b) {
    return HEX.formatHex(b);
  }

  public static byte[] unhex(String s) {
    return HEX.parseHex(s);
  }
}
