package org.wideec.coder;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.wideec.code.Codes;
import org.wideec.code.InvalidCodeSpecException;
import org.wideec.code.LinearCode;

/**
 * The codecs we register with Hadoop's raw-coder SPI, and the convention that turns a codec name plus
 * HDFS's (k, m) into a code: Hadoop's {@code ErasureCoderOptions} carries only k and m (DESIGN.md §2), so
 * the layout must follow from the name. Units are ordered data, global parities, local parities.
 *
 * <table>
 *   <tr><th>codec</th><th>code</th></tr>
 *   <tr><td>wide-rs</td><td>rs:k=K,m=M</td></tr>
 *   <tr><td>azure-lrc-lL</td><td>azure-lrc:k=K,l=L,g=M-L</td></tr>
 *   <tr><td>azure-lrc1-lL</td><td>azure-lrc+1:k=K,l=L,g=M-L-1</td></tr>
 *   <tr><td>optimal-cauchy-lrc-lL</td><td>optimal-cauchy-lrc:k=K,l=L,g=M-L</td></tr>
 *   <tr><td>uniform-cauchy-lrc-lL</td><td>uniform-cauchy-lrc:k=K,l=L,g=M-L</td></tr>
 *   <tr><td>unilrc</td><td>unilrc:alpha=A,z=Z with K = A Z (Z-1), M = Z (A+1)</td></tr>
 * </table>
 */
public enum StripedCodec {
  WIDE_RS("wide-rs", 0, "rs"),
  AZURE_LRC_L2("azure-lrc-l2", 2, "azure-lrc"),
  AZURE_LRC_L3("azure-lrc-l3", 3, "azure-lrc"),
  AZURE_LRC_L4("azure-lrc-l4", 4, "azure-lrc"),
  AZURE_LRC1_L2("azure-lrc1-l2", 2, "azure-lrc+1"),
  AZURE_LRC1_L3("azure-lrc1-l3", 3, "azure-lrc+1"),
  OPTIMAL_CAUCHY_LRC_L2("optimal-cauchy-lrc-l2", 2, "optimal-cauchy-lrc"),
  UNIFORM_CAUCHY_LRC_L2("uniform-cauchy-lrc-l2", 2, "uniform-cauchy-lrc"),
  UNIFORM_CAUCHY_LRC_L3("uniform-cauchy-lrc-l3", 3, "uniform-cauchy-lrc"),
  UNILRC("unilrc", 0, "unilrc");

  /** HDFS encodes the index in a striped group in 4 bits (DESIGN.md §2). */
  public static final int MAX_STRIPED_UNITS = 16;

  private final String codecName;
  private final int localGroups;
  private final String family;

  StripedCodec(String codecName, int localGroups, String family) {
    this.codecName = codecName;
    this.localGroups = localGroups;
    this.family = family;
  }

  public String codecName() {
    return codecName;
  }

  /**
   * The code spec this codec means for HDFS's k data and m parity units. Every spec it returns is a code
   * that the on-disk format pins ({@link org.wideec.code.CodeFormat}); any other (k, m) is refused here.
   */
  public String specFor(int k, int m) {
    if (k < 1 || m < 1) {
      throw new InvalidCodeSpecException("codec " + codecName + ": need k >= 1 and m >= 1, got k=" + k + ", m=" + m);
    }
    if (k + m > MAX_STRIPED_UNITS) {
      throw new InvalidCodeSpecException("codec " + codecName + ": k + m = " + (k + m) + " exceeds HDFS's "
          + MAX_STRIPED_UNITS + "-unit striped group; use the archival layout for wider stripes");
    }
    if (localGroups > k) {
      throw new InvalidCodeSpecException("codec " + codecName + ": k = " + k + " data units cannot fill "
          + localGroups + " local groups");
    }
    return switch (family) {
      case "rs" -> "rs:k=" + k + ",m=" + m;
      case "azure-lrc+1" -> family + ":k=" + k + ",l=" + localGroups + ",g=" + requireGlobals(k, m, m - localGroups - 1);
      case "unilrc" -> uniLrcSpec(k, m);
      default -> family + ":k=" + k + ",l=" + localGroups + ",g=" + requireGlobals(k, m, m - localGroups);
    };
  }

  /**
   * The code this codec means for HDFS's (k, m), built from the coefficients the on-disk format pins. HDFS
   * stores data with it, so a code whose coefficients are not pinned is refused rather than searched for.
   *
   * @throws InvalidCodeSpecException naming the codec and the spec when (k, m) has no pinned code
   */
  public LinearCode codeFor(int k, int m) {
    String spec = specFor(k, m);
    try {
      return Codes.pinnedFromSpec(spec);
    } catch (InvalidCodeSpecException e) {
      throw new InvalidCodeSpecException("codec " + codecName + " (k=" + k + ", m=" + m + "): " + e.getMessage());
    }
  }

  private int requireGlobals(int k, int m, int g) {
    if (g < 1) {
      throw new InvalidCodeSpecException("codec " + codecName + ": m = " + m + " leaves " + g
          + " global parities for k = " + k + "; need at least 1");
    }
    return g;
  }

  private String uniLrcSpec(int k, int m) {
    for (int z = 2; z <= m; z++) {
      if (m % z == 0) {
        int alpha = m / z - 1;
        if (alpha >= 1 && alpha * z * (z - 1) == k) {
          return "unilrc:alpha=" + alpha + ",z=" + z;
        }
      }
    }
    throw new InvalidCodeSpecException("codec unilrc: no UniLRC has k = " + k + ", m = " + m
        + " (need k = alpha z (z-1), m = z (alpha+1), e.g. k=6,m=6 or k=4,m=6)");
  }

  public static StripedCodec byName(String codecName) {
    for (StripedCodec c : values()) {
      if (c.codecName.equals(codecName)) {
        return c;
      }
    }
    throw new InvalidCodeSpecException("unknown codec " + codecName);
  }

  public static List<String> names() {
    List<String> out = new ArrayList<>();
    for (StripedCodec c : values()) {
      out.add(c.codecName);
    }
    return Collections.unmodifiableList(out);
  }
}
