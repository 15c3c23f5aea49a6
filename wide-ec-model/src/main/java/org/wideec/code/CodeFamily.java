package org.wideec.code;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The code constructions, by the family name used in spec strings. Closed-form constructions ignore the
 * pinned coefficients they are handed (Codes checks their result against the table); searched ones
 * (Azure-LRC, RapidRAID) take them instead of searching.
 */
public enum CodeFamily {
  RS("rs", "rs:k=,m=", "Reed-Solomon, Cauchy rows, parity equal to Hadoop's RSRawEncoder", List.of("k", "m"),
      (s, pinned) -> ReedSolomon.fromSpec(s)),
  AZURE_LRC("azure-lrc", "azure-lrc:k=,l=,g= | azure-lrc:k=,r=,g=",
      "Azure LRC: XOR local parity per data group, g global parities, maximally recoverable coefficients",
      List.of("k", "l", "r", "g"), (s, pinned) -> AzureLrc.fromSpec(s, false, pinned)),
  AZURE_LRC_PLUS_ONE("azure-lrc+1", "azure-lrc+1:k=,l=,g=",
      "Azure LRC+1: Azure LRC plus an XOR local parity over the global parities", List.of("k", "l", "r", "g"),
      (s, pinned) -> AzureLrc.fromSpec(s, true, pinned)),
  OPTIMAL_CAUCHY_LRC("optimal-cauchy-lrc", "optimal-cauchy-lrc:k=,l=,g=",
      "Google Optimal Cauchy LRC: every local group holds all global parities", List.of("k", "l", "g"),
      (s, pinned) -> CauchyLrc.optimal(s)),
  UNIFORM_CAUCHY_LRC("uniform-cauchy-lrc", "uniform-cauchy-lrc:k=,l=,g=",
      "Google Uniform Cauchy LRC: data and global parities spread evenly over the local groups", List.of("k", "l", "g"),
      (s, pinned) -> CauchyLrc.uniform(s)),
  UNILRC("unilrc", "unilrc:alpha=,z=",
      "UniLRC: n=alpha z^2+z, k=alpha z(z-1), XOR local groups of r=alpha z, one group per cluster",
      List.of("alpha", "z"), (s, pinned) -> UniLrc.fromSpec(s)),
  RAPIDRAID("rapidraid", "rapidraid:n=,k=",
      "RapidRAID: pipelined non-systematic code for replica-to-EC archival, k <= n <= 2k", List.of("n", "k"),
      RapidRaid::fromSpec);

  /** Builds a code from its spec, with the pinned coefficients of the spec or null (then searched ones). */
  interface Construction {
    LinearCode build(CodeSpec spec, PinnedCode pinned);
  }

  private final String name;
  private final String syntax;
  private final String description;
  private final List<String> keyOrder;
  private final Construction construction;

  CodeFamily(String name, String syntax, String description, List<String> keyOrder, Construction construction) {
    this.name = name;
    this.syntax = syntax;
    this.description = description;
    this.keyOrder = keyOrder;
    this.construction = construction;
  }

  public String familyName() {
    return name;
  }

  public String syntax() {
    return syntax;
  }

  public String description() {
    return description;
  }

  LinearCode build(CodeSpec spec, PinnedCode pinned) {
    return construction.build(spec, pinned);
  }

  /**
   * The spec with its parameters in this family's canonical order (the order {@link LinearCode#spec()}
   * uses), so that {@code g=2,k=12,l=2} finds the same pinned code as {@code k=12,l=2,g=2}. Unknown keys
   * go last; the construction rejects them.
   */
  CodeSpec canonical(CodeSpec spec) {
    Map<String, Integer> ordered = new LinkedHashMap<>();
    for (String key : keyOrder) {
      if (spec.has(key)) {
        ordered.put(key, spec.require(key));
      }
    }
    spec.params().forEach(ordered::putIfAbsent);
    return new CodeSpec(name, ordered);
  }

  public static CodeFamily byName(String name) {
    for (CodeFamily f : values()) {
      if (f.name.equals(name)) {
        return f;
      }
    }
    StringBuilder known = new StringBuilder();
    for (CodeFamily f : values()) {
      known.append(known.length() == 0 ? "" : ", ").append(f.name);
    }
    throw new InvalidCodeSpecException("unknown code family '" + name + "' (known: " + known + ")");
  }
}
