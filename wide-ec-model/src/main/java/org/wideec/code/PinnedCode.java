package org.wideec.code;

import java.util.HexFormat;
import org.wideec.gf.Gf256;
import org.wideec.gf.Matrix;

/**
 * One code of the pinned coefficient table ({@link CodeFormat}): the rows of its generator matrix that are
 * not the identity (the n-k parity rows of a systematic code, all n rows otherwise), plus what was verified
 * when the coefficients were chosen (the search's verdict and the guaranteed tolerance), which a pinned build
 * reports without searching again.
 *
 * <p>One line of the table: {@code spec TAB n TAB k TAB tolerance TAB row,row,... TAB notes}, each row k
 * bytes in hex, row i being unit (n - rows + i).
 */
record PinnedCode(String spec, int n, int k, int[][] rows, int guaranteedTolerance, String notes) {
  private static final HexFormat HEX = HexFormat.of();

  PinnedCode {
    if (k < 1 || n < k || n > LinearCode.MAX_UNITS) {
      throw new IllegalArgumentException(spec + ": pinned n = " + n + ", k = " + k + " is not a code");
    }
    if (rows.length != n && rows.length != n - k) {
      throw new IllegalArgumentException(spec + ": " + rows.length + " pinned rows; expected n - k = " + (n - k)
          + " (systematic) or n = " + n);
    }
    for (int[] row : rows) {
      if (row.length != k) {
        throw new IllegalArgumentException(spec + ": a pinned row has " + row.length + " coefficients, k = " + k);
      }
    }
  }

  /** The pinned coefficients of a code built here (the format generator's use). */
  static PinnedCode of(LinearCode code) {
    int first = code.isSystematic() ? code.k() : 0;
    int[][] rows = new int[code.n() - first][];
    for (int u = first; u < code.n(); u++) {
      rows[u - first] = code.generator().row(u);
    }
    return new PinnedCode(code.spec(), code.n(), code.k(), rows, code.guaranteedTolerance(), code.notes());
  }

  /** Systematic codes store only their parity rows; the identity over the data is implied. */
  boolean systematic() {
    return rows.length == n - k && n != k;
  }

  /** The full n x k generator. */
  Matrix generator() {
    int[][] g = new int[n][];
    int first = n - rows.length;
    for (int u = 0; u < first; u++) {
      g[u] = new int[k];
      g[u][u] = 1;
    }
    for (int i = 0; i < rows.length; i++) {
      g[first + i] = rows[i].clone();
    }
    return Matrix.of(Gf256.INSTANCE, g);
  }

  /** Rows of {@code count} units from {@code unit} on, e.g. the global parities of an LRC. */
  int[][] unitRows(int unit, int count) {
    int first = n - rows.length;
    if (unit < first || unit + count > n) {
      throw new IllegalArgumentException(spec + ": units " + unit + ".." + (unit + count - 1) + " are not pinned rows");
    }
    int[][] out = new int[count][];
    for (int i = 0; i < count; i++) {
      out[i] = rows[unit - first + i].clone();
    }
    return out;
  }

  String toLine() {
    StringBuilder sb = new StringBuilder(spec).append('\t').append(n).append('\t').append(k).append('\t')
        .append(guaranteedTolerance).append('\t');
    byte[] bytes = new byte[k];
    for (int i = 0; i < rows.length; i++) {
      for (int j = 0; j < k; j++) {
        bytes[j] = (byte) rows[i][j];
      }
      sb.append(i == 0 ? "" : ",").append(HEX.formatHex(bytes));
    }
    return sb.append('\t').append(notes.replace('\t', ' ').replace('\n', ' ')).toString();
  }

  /** Parses one table line; {@code where} (file and line) goes into the error. */
  static PinnedCode parse(String line, String where) {
    String[] f = line.split("\t", -1);
    if (f.length != 6) {
      throw new IllegalArgumentException(where + ": expected 6 tab-separated fields, got " + f.length);
    }
    try {
      int n = Integer.parseInt(f[1]);
      int k = Integer.parseInt(f[2]);
      String[] hexRows = f[4].split(",");
      int[][] rows = new int[hexRows.length][];
      for (int i = 0; i < hexRows.length; i++) {
        byte[] b = HEX.parseHex(hexRows[i]);
        rows[i] = new int[b.length];
        for (int j = 0; j < b.length; j++) {
          rows[i][j] = b[j] & 0xff;
        }
      }
      return new PinnedCode(f[0], n, k, rows, Integer.parseInt(f[3]), f[5]);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
    }
  }
}
