package org.wideec.archive.encode;

import java.util.List;
import java.util.Map;
import org.wideec.code.LinearCode;
import org.wideec.topology.Site;

/**
 * Which replicas a chain encode may read ({@link ChainSources}): the cheaper of the planned nodes (after the plan's
 * moves) and a core rack's replicas (EAR), or the planned nodes only, so every data block sits on its planned node
 * once its stripe is encoded, whether the archive is trimmed now or later.
 */
public enum ChainReads {
  /** The cheaper chain, the planned nodes on a tie (ECWide §4.2 against EAR). */
  CHEAPER,
  /** The planned nodes, each block moved there before the encode. */
  PLANNED;

  public static final String KEY = "wide-ec.archive.chain.reads";
  public static final String DEFAULT = "cheaper";

  /** The reading a setting names ({@code cheaper} or {@code planned}). */
  public static ChainReads of(String setting) {
    return switch (setting.trim().toLowerCase(java.util.Locale.ROOT)) {
      case "cheaper" -> CHEAPER;
      case "planned" -> PLANNED;
      default -> throw new IllegalArgumentException(KEY + " must be cheaper or planned, got '" + setting + "'");
    };
  }

  /** The replicas this reading has the chain read; see {@link ChainSources#choose}. */
  public ChainSources sources(String name, LinearCode code, Map<Integer, List<Site>> replicas,
      Map<Integer, Site> planned, long[] lengths, Map<Integer, Site> targets, EncodePlan.Shape shape) {
    return this == PLANNED ? ChainSources.onPlan(name, code, planned, lengths, targets, shape)
        : ChainSources.choose(name, code, replicas, planned, lengths, targets, shape);
  }
}
