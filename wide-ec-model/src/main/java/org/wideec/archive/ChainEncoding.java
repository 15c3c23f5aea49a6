package org.wideec.archive;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.wideec.archive.encode.ChainSources;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.archive.encode.EncodePlanner;
import org.wideec.archive.encode.EncodeStripe;
import org.wideec.topology.Site;
import org.wideec.code.LinearCode;

/**
 * Systematic multi-node encoding (ECWide §4.2, {@code chain}) costed on the plan: the very
 * {@link EncodePlanner#chain} plan the chain encoder executes, each parity written to its planned node, each data unit
 * read where {@link ChainSources} says: on its planned node (the archiver moves the block there before the chain
 * encodes) or, when that costs less, from its replica in the stripe's core rack (no move before the encode; the plan's
 * moves happen at the trim). The chain encoder makes the same choice, so this is the plan that runs, and its
 * cross-rack bytes are the ones the DataNodes' slice ports then count (plus the parity deliveries a collector writes
 * to another rack); an earlier model of its own (one chain carrying every open row) disagreed with what ran.
 *
 * @param trees each tree's data units in step order (the global rows' tree first, then one per local parity)
 * @param crossRackStreamBytes bytes of partial-sum streams between racks
 * @param crossRackDeliveryBytes bytes of finished parities a collector sends to a target in another rack
 * @param streams the most row-streams any node sends or receives (the chain's gain over one encoder is about k over it)
 * @param coreRack the rack the chain reads every unit it can in, or null when it reads the planned nodes
 * @param sources the node each stored data unit is read from
 */
public record ChainEncoding(EncodePlan.Shape shape, List<List<Integer>> trees, long crossRackStreamBytes,
    long crossRackDeliveryBytes, int streams, String coreRack, Map<Integer, String> sources) {

  public ChainEncoding {
    trees = trees.stream().map(List::copyOf).toList();
    sources = Map.copyOf(sources);
  }

  /** Every byte the chain sends across racks: streams and deliveries. */
  public long crossRackBytes() {
    return crossRackStreamBytes + crossRackDeliveryBytes;
  }

  /**
   * The chain for a stripe's planned units (unit order), in this shape.
   *
   * @param replicas each stored data unit's live replicas before archival
   */
  static ChainEncoding of(LinearCode code, List<PlannedUnit> units, EncodePlan.Shape shape,
      org.wideec.archive.encode.ChainReads reads, Map<Integer, List<Site>> replicas) {
    Map<Integer, Site> planned = new HashMap<>();
    Map<Integer, Site> storedTargets = new HashMap<>();
    long[] lengths = new long[code.k()];
    for (PlannedUnit u : units) {
      if (u.isStoredData()) {
        planned.put(u.unit(), new Site(u.node(), u.rack()));
        lengths[u.unit()] = u.length();
      } else if (u.action() == PlannedUnit.Action.WRITE) {
        storedTargets.put(u.unit(), new Site(u.node(), u.rack()));
      }
    }
    ChainSources sources = reads.sources("plan", code, replicas, planned, lengths, storedTargets, shape);
    // Slices do not change what crosses racks: the largest that fits any frame keeps the planner's checks quiet.
    EncodePlan plan = EncodePlanner.chain(EncodeStripe.archival("plan", code, sources.holders(), lengths,
        storedTargets), shape, EncodePlanner.CHUNK, Integer.MAX_VALUE);
    Map<Integer, String> read = new java.util.TreeMap<>();
    sources.holders().forEach((u, site) -> read.put(u, site.node()));
    List<List<Integer>> order = plan.trees().stream()
        .filter(t -> !t.steps().isEmpty())
        .map(t -> t.steps().stream().map(EncodePlan.Step::unit).toList()).toList();
    return new ChainEncoding(shape, order, plan.crossRackStreamBytes(), plan.crossRackDeliveryBytes(),
        plan.maxRowStreams(), sources.coreRack(), read);
  }
}
