package org.wideec.archive.encode;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.wideec.code.LinearCode;
import org.wideec.topology.Site;

/**
 * Which replica of each data unit a chain (ECWide §4.2) reads. Before archival a block has replicas in two racks, and
 * any of them can feed the encoder; only the kept one must end on the plan. So there are two candidates, costed by the
 * very {@link EncodePlanner#chain} plan that runs, the cheaper taken (the planned nodes on a tie):
 * <ul>
 *   <li>the planned nodes: the archiver first moves each block onto its planned node (the plan's moves, made before
 *       the encode instead of at the trim), and the chain runs where the kept replicas will be;</li>
 *   <li>the core rack (EAR, Li et al., DSN 2015): the rack holding live replicas of the most units; each unit is read
 *       from its replica there (the kept one when it is there, else the first by node name), a unit without one from
 *       its planned node if that holds a replica, else a replica in its planned rack, else its first by node name. No
 *       block moves before the encode: the plan's moves happen at the trim, so the same bytes move either way.</li>
 * </ul>
 * The dry run and the chain encoder call this with the same inputs (the planned nodes and racks, the live replicas),
 * so the chain that runs is the one the plan costs.
 *
 * @param holders the node each data unit is read from
 * @param coreRack the core rack the holders gather in, or null when the chain reads the planned nodes (after moves)
 * @param crossRackBytes what the chosen chain sends across racks (streams and deliveries)
 */
public record ChainSources(Map<Integer, Site> holders, String coreRack, long crossRackBytes) {

  public ChainSources {
    holders = Map.copyOf(holders);
  }

  /** True when the archiver moves the blocks onto their planned nodes before the chain runs. */
  public boolean movesFirst() {
    return coreRack == null;
  }

  /**
   * @param replicas each stored data unit's live replicas
   * @param planned each stored data unit's planned (kept) node and rack
   * @param lengths each data unit's bytes (0 for padding)
   * @param targets each stored parity's planned node and rack
   */
  public static ChainSources choose(String name, LinearCode code, Map<Integer, List<Site>> replicas,
      Map<Integer, Site> planned, long[] lengths, Map<Integer, Site> targets, EncodePlan.Shape shape) {
    long onPlan = cost(name, code, planned, lengths, targets, shape);
    String core = coreRack(replicas);
    if (core == null) {
      return new ChainSources(planned, null, onPlan);
    }
    Map<Integer, Site> inCore = new HashMap<>();
    for (Map.Entry<Integer, Site> e : planned.entrySet()) {
      inCore.put(e.getKey(), source(core, e.getValue(), replicas.getOrDefault(e.getKey(), List.of())));
    }
    long fromCore = cost(name, code, inCore, lengths, targets, shape);
    return fromCore < onPlan ? new ChainSources(inCore, core, fromCore) : new ChainSources(planned, null, onPlan);
  }

  /** The first candidate alone: the planned nodes, each block moved there before the encode. */
  public static ChainSources onPlan(String name, LinearCode code, Map<Integer, Site> planned, long[] lengths,
      Map<Integer, Site> targets, EncodePlan.Shape shape) {
    return new ChainSources(planned, null, cost(name, code, planned, lengths, targets, shape));
  }

  /** The rack holding live replicas of the most units (ties: the first by name); null without replicas. */
  public static String coreRack(Map<Integer, List<Site>> replicas) {
    Map<String, Integer> units = new TreeMap<>();
    for (List<Site> sites : replicas.values()) {
      sites.stream().map(Site::rack).distinct().forEach(r -> units.merge(r, 1, Integer::sum));
    }
    String best = null;
    for (Map.Entry<String, Integer> e : units.entrySet()) {
      best = best == null || e.getValue() > units.get(best) ? e.getKey() : best;
    }
    return best;
  }

  /** One unit's replica to read when the chain gathers in {@code core}; see the class comment. */
  private static Site source(String core, Site planned, List<Site> replicas) {
    for (String rack : new String[] {core, planned.rack()}) {
      if (replicas.contains(planned) && planned.rack().equals(rack)) {
        return planned;
      }
      Site first = replicas.stream().filter(s -> s.rack().equals(rack))
          .min(java.util.Comparator.comparing(Site::node)).orElse(null);
      if (first != null) {
        return first;
      }
    }
    return replicas.stream().min(java.util.Comparator.comparing(Site::node)).orElse(planned);
  }

  private static long cost(String name, LinearCode code, Map<Integer, Site> holders, long[] lengths,
      Map<Integer, Site> targets, EncodePlan.Shape shape) {
    // Slices do not change what crosses racks: the largest that fits any frame keeps the planner's checks quiet.
    return EncodePlanner.chain(EncodeStripe.archival(name, code, holders, lengths, targets), shape,
        EncodePlanner.CHUNK, Integer.MAX_VALUE).crossRackBytes();
  }
}
