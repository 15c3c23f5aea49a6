package org.wideec.code;

import java.util.function.Function;

/** The code constructions, by the family name used in spec strings. */
public enum CodeFamily {
  RS("rs", "rs:k=,m=", "Reed-Solomon, Cauchy rows, parity equal to Hadoop's RSRawEncoder", ReedSolomon::fromSpec),
  AZURE_LRC("azure-lrc", "azure-lrc:k=,l=,g= | azure-lrc:k=,r=,g=",
      "Azure LRC: XOR local parity per data group, g global parities, maximally recoverable coefficients",
      s -> AzureLrc.fromSpec(s, false)),
  AZURE_LRC_PLUS_ONE("azure-lrc+1", "azure-lrc+1:k=,l=,g=",
      "Azure LRC+1: Azure LRC plus an XOR local parity over the global parities", s -> AzureLrc.fromSpec(s, true)),
  OPTIMAL_CAUCHY_LRC("optimal-cauchy-lrc", "optimal-cauchy-lrc:k=,l=,g=",
      "Google Optimal Cauchy LRC: every local group holds all global parities", CauchyLrc::optimal),
  UNIFORM_CAUCHY_LRC("uniform-cauchy-lrc", "uniform-cauchy-lrc:k=,l=,g=",
      "Google Uniform Cauchy LRC: data and global parities spread evenly over the local groups", CauchyLrc::uniform),
  UNILRC("unilrc", "unilrc:alpha=,z=",
      "UniLRC: n=alpha z^2+z, k=alpha z(z-1), XOR local groups of r=alpha z, one group per cluster", UniLrc::fromSpec),
  RAPIDRAID("rapidraid", "rapidraid:n=,k=",
      "RapidRAID: pipelined non-systematic code for replica-to-EC archival, k <= n <= 2k", RapidRaid::fromSpec);

  private final String name;
  private final String syntax;
  private final String description;
  private final Function<CodeSpec, LinearCode> builder;

  CodeFamily(String name, String syntax, String description, Function<CodeSpec, LinearCode> builder) {
    this.name = name;
    this.syntax = syntax;
    this.description = description;
    this.builder = builder;
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

  LinearCode build(CodeSpec spec) {
    return builder.apply(spec);
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
