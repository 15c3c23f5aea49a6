package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeMember;
import org.wideec.archive.encode.ChainSources;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.code.LinearCode;
import org.wideec.topology.Site;
import org.wideec.topology.hdfs.DataNodeSites;

/**
 * Which replica of each data block the chain encoder reads ({@link ChainSources}: the planned nodes after the plan's
 * moves, or a core rack's replicas where they are, EAR, as {@code wide-ec.archive.chain.reads} allows), chosen from the NameNode's live replicas before a stripe's
 * moves and remembered until its encode, since the moves change the replicas the choice was made on.
 */
final class ChainReadReplicas {
  private final EncodePlan.Shape shape;
  private final org.wideec.archive.encode.ChainReads reads;
  /** Each stripe's sources as chosen before its moves. */
  private final Map<Long, ChainSources> chosenBeforeMoves = new java.util.concurrent.ConcurrentHashMap<>();

  ChainReadReplicas(EncodePlan.Shape shape, org.wideec.archive.encode.ChainReads reads) {
    this.shape = shape;
    this.reads = reads;
  }

  /** {@link #choose}, remembered for the stripe's encode ({@link #readHolders}). */
  ChainSources chooseBeforeMoves(ArchivedStripe stripe, List<StripeData.Unit> data) {
    ChainSources c = choose(stripe, data);
    chosenBeforeMoves.put(stripe.stripeId(), c);
    return c;
  }

  /** {@link ChainSources} over the data blocks' replicas as the NameNode lists them now and the stripe's plan. */
  ChainSources choose(ArchivedStripe stripe, List<StripeData.Unit> data) {
    LinearCode code = stripe.code();
    Map<Integer, List<Site>> replicas = new HashMap<>();
    Map<Integer, Site> planned = new HashMap<>();
    long[] lengths = new long[code.k()];
    for (StripeData.Unit d : data) {
      List<Site> live = new ArrayList<>();
      for (DatanodeInfo dn : d.block().getLocations()) {
        live.add(DataNodeSites.of(dn));
      }
      replicas.put(d.unit(), live);
      planned.put(d.unit(), new Site(d.member().plannedNode(), d.member().plannedRack()));
      lengths[d.unit()] = d.member().length();
    }
    Map<Integer, Site> targets = new HashMap<>();
    for (int u = code.k(); u < code.n(); u++) {
      StripeMember m = stripe.member(u);
      if (!m.padding()) {
        targets.put(u, new Site(m.plannedNode(), m.plannedRack()));
      }
    }
    return reads.sources("stripe " + stripe.stripeId(), code, replicas, planned, lengths, targets, shape);
  }

  /**
   * The replica each data unit is read from: the core rack's, as chosen before the moves, or the kept ones of the
   * plan ({@link StripeData#readHolders}); a chosen replica the NameNode no longer lists is read as the plan says.
   */
  Map<Integer, DatanodeInfo> readHolders(ArchivedStripe stripe, List<StripeData.Unit> data)
      throws IOException {
    ChainSources c = chosenBeforeMoves.remove(stripe.stripeId());
    c = c != null ? c : choose(stripe, data);
    Map<Integer, DatanodeInfo> onPlan = StripeData.readHolders(stripe, data);
    if (c.movesFirst()) {
      return onPlan;
    }
    Map<Integer, DatanodeInfo> out = new HashMap<>(onPlan);
    for (StripeData.Unit d : data) {
      for (DatanodeInfo dn : d.block().getLocations()) {
        if (dn.getXferAddr().equals(c.holders().get(d.unit()).node())) {
          out.put(d.unit(), dn);
        }
      }
    }
    return out;
  }
}
