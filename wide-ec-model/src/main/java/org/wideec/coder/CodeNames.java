package org.wideec.coder;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.wideec.code.Codes;
import org.wideec.code.InvalidCodeSpecException;
import org.wideec.code.LinearCode;

/**
 * One code, three names: the spec ({@code azure-lrc:k=12,l=2,g=2}), the Hadoop codec with HDFS's (k, m)
 * ({@code azure-lrc-l2}, k = 12, m = 4: m counts every parity, global and local) and the HDFS policy name
 * ({@code AZURE-LRC-L2-12-4-1024k}, which adds the cell size). Any of them names the code; each answer carries all
 * three, or says why HDFS's striped layout cannot hold it (more than 16 units: the archival layout only).
 */
public final class CodeNames {
  /** Cell size of the shipped policies. */
  public static final int DEFAULT_CELL = 1024 * 1024;
  private static final Pattern POLICY = Pattern.compile("([A-Za-z0-9+-]+?)-(\\d+)-(\\d+)-(\\d+)[kK]");

  /** The names of one code; codec, k, m and policy are null when HDFS cannot stripe it (see {@code striped}). */
  public record Named(LinearCode code, String spec, String codec, Integer k, Integer m, String policy, int cellSize,
      String stripedNote) {
    public boolean striped() {
      return codec != null;
    }
  }

  private CodeNames() {}

  /**
   * Resolves a spec, an HDFS policy name, or a codec name (then {@code k} and {@code m} are HDFS's data and parity
   * counts and must be given).
   *
   * @param cellSize the cell size for the policy name when the name does not carry one
   * @throws InvalidCodeSpecException naming what was given and what is expected
   */
  public static Named resolve(String name, Integer k, Integer m, int cellSize) {
    if (cellSize <= 0 || cellSize % 1024 != 0) {
      throw new InvalidCodeSpecException("a cell size must be a positive multiple of 1024 bytes, got " + cellSize);
    }
    if (name.contains(":")) {
      if (k != null || m != null) {
        throw new InvalidCodeSpecException("--k and --m go with a codec name, not with the spec " + name);
      }
      return ofSpec(Codes.fromSpec(name), cellSize);
    }
    Matcher p = POLICY.matcher(name);
    if (p.matches() && isCodec(p.group(1).toLowerCase(Locale.ROOT))) {
      int policyK = Integer.parseInt(p.group(2));
      int policyM = Integer.parseInt(p.group(3));
      return ofCodec(p.group(1).toLowerCase(Locale.ROOT), policyK, policyM, Integer.parseInt(p.group(4)) * 1024);
    }
    if (isCodec(name)) {
      if (k == null || m == null) {
        throw new InvalidCodeSpecException("codec " + name + " needs HDFS's data and parity counts: --k K --m M");
      }
      return ofCodec(name, k, m, cellSize);
    }
    throw new InvalidCodeSpecException("'" + name + "' is neither a code spec (family:key=value,...), an HDFS policy "
        + "name (e.g. AZURE-LRC-L2-12-4-1024k) nor a codec (" + String.join(", ", StripedCodec.names()) + ")");
  }

  private static boolean isCodec(String name) {
    return StripedCodec.names().contains(name);
  }

  private static Named ofCodec(String codecName, int k, int m, int cellSize) {
    StripedCodec c = StripedCodec.byName(codecName);
    LinearCode code = c.codeFor(k, m);
    return new Named(code, code.spec(), codecName, k, m, policyName(codecName, k, m, cellSize), cellSize, null);
  }

  /** The spec's codec and (k, m), found among the codecs' striped layouts; none for a code HDFS cannot stripe. */
  private static Named ofSpec(LinearCode code, int cellSize) {
    if (code.n() > StripedCodec.MAX_STRIPED_UNITS) {
      return new Named(code, code.spec(), null, null, null, null, cellSize, "n = " + code.n() + " > "
          + StripedCodec.MAX_STRIPED_UNITS + ": HDFS's striped layout cannot hold it; it is for the archival layout");
    }
    for (StripedCodec c : StripedCodec.values()) {
      for (int k = 1; k < StripedCodec.MAX_STRIPED_UNITS; k++) {
        int m = code.n() - k;
        if (m >= 1 && matches(c, k, m, code.spec())) {
          return new Named(code, code.spec(), c.codecName(), k, m, policyName(c.codecName(), k, m, cellSize), cellSize,
              null);
        }
      }
    }
    return new Named(code, code.spec(), null, null, null, null, cellSize,
        "no Hadoop codec of ours stripes it (non-systematic or no codec for this layout): analysis only");
  }

  private static boolean matches(StripedCodec c, int k, int m, String spec) {
    try {
      return c.specFor(k, m).equals(spec);
    } catch (InvalidCodeSpecException e) {
      return false;
    }
  }

  /** HDFS's name for a policy: codec upper-cased, k, m and the cell size in KiB (ErasureCodingPolicy's rule). */
  public static String policyName(String codecName, int k, int m, int cellSize) {
    return codecName.toUpperCase(Locale.ROOT) + "-" + k + "-" + m + "-" + cellSize / 1024 + "k";
  }
}
