package org.wideec.archive;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.wideec.code.Codes;
import org.wideec.code.InvalidCodeSpecException;
import org.wideec.code.LinearCode;
import org.wideec.topology.Topology;

/**
 * What planning the stripes of any layout shares (DESIGN.md §3.2): a code pinned by the on-disk format whose stripes
 * take the layout asked for, the blocks grouped into stripes of k in order ({@link StripeGrouping}: only the last
 * stripe is short, its missing data units virtual zeros), and each stripe planned in turn by the layout. A layout
 * decides only where one stripe's units go ({@link ArchivalPlanner}: keep, move and write beside the data;
 * {@link SealedPlanner}: deal codewords across racks), and presents the result as a {@link StripePlan}.
 */
public final class StripePlanner {
  private StripePlanner() {}

  /** How one layout plans one stripe. */
  @FunctionalInterface
  public interface StripeLayoutPlanner<S> {
    /**
     * @param blocks the stripe's data blocks in unit order: k of them, fewer only in the last stripe
     */
    S plan(long stripeId, List<DataBlock> blocks);
  }

  /**
   * The pinned code of {@code codeSpec}.
   *
   * @throws ArchivalPlanException naming the path when the spec is not a pinned code, or when its stripes take
   *     another layout than {@code layout}
   */
  public static LinearCode code(StripeLayout layout, String path, String codeSpec) {
    LinearCode code;
    try {
      code = Codes.pinnedFromSpec(codeSpec);
    } catch (InvalidCodeSpecException e) {
      throw new ArchivalPlanException("cannot archive " + path + ": " + e.getMessage(), e);
    }
    if (StripeLayout.of(code) != layout) {
      throw new ArchivalPlanException(switch (layout) {
        case SYSTEMATIC -> "cannot archive " + path + " with " + code.spec() + ": it is not systematic, and archival"
            + " keeps the data blocks as they are (RapidRAID's pipelined archival rewrites them and is planned"
            + " separately)";
        case NON_SYSTEMATIC -> code.spec() + " is systematic: archive " + path + " in the ordinary layout, which keeps"
            + " its blocks as they are";
      });
    }
    return code;
  }

  /** The files' blocks grouped into stripes of {@code code.k()}, each planned by {@code layout}, ids in order. */
  public static <S> List<S> stripes(LinearCode code, String path, ArchiveScope scope, List<SourceFile> files,
      long firstStripeId, StripeLayoutPlanner<S> layout) {
    return stripes(code, path, scope, files, firstStripeId, ArchiveGrouping.FILES, Set.of(), 1, layout);
  }

  /**
   * As above, grouped by {@code grouping} (FILES or RACKS; {@code liveNodes}: the nodes whose replicas RACKS
   * counts; {@code dataPerRack}: the most data units the placement puts in one rack).
   */
  static <S> List<S> stripes(LinearCode code, String path, ArchiveScope scope, List<SourceFile> files,
      long firstStripeId, ArchiveGrouping grouping, Set<String> liveNodes, int dataPerRack,
      StripeLayoutPlanner<S> layout) {
    List<List<DataBlock>> groups = StripeGrouping.group(path, scope, files, code.k(), grouping, liveNodes,
        dataPerRack);
    List<S> stripes = new ArrayList<>();
    for (int i = 0; i < groups.size(); i++) {
      stripes.add(layout.plan(firstStripeId + i, groups.get(i)));
    }
    return stripes;
  }

  /** Each node's rack; refuses a node the topology lists in two racks. */
  static Map<String, String> rackOfNode(Topology topology) {
    Map<String, String> rackOf = new HashMap<>();
    for (String rack : topology.racks()) {
      for (String node : topology.nodes(rack)) {
        String other = rackOf.putIfAbsent(node, rack);
        if (other != null) {
          throw new ArchivalPlanException("node " + node + " is listed in racks " + other + " and " + rack);
        }
      }
    }
    return rackOf;
  }
}
