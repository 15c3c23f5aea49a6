package org.wideec.archive;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.topology.Site;
import org.wideec.update.ReEncoding;
import org.wideec.update.UpdateChooser;
import org.wideec.update.UpdatePlan;
import org.wideec.update.UpdateScheme;

/**
 * How one stripe update renews its parity: by the scheme's delta plan (seed "Optimal Rack-Coordinated Updates" §III),
 * or by re-encoding the parities it rewrites from the data the stripe keeps, along the chain the archival encoder
 * runs on the DataNodes (ECWide §4.2), where the data lives. A removed unit counts as zeros there, so re-encoding
 * needs no old byte. It is taken when the delta plan cannot run without old bytes that are gone (a member a stock
 * client deleted: its delta would first have to be decoded from the rest of the stripe) and when it crosses racks
 * strictly less than the delta plan ({@link UpdateChooser#prefersReEncoding}; many changed units, mostly removed).
 * Both are priced on the stripe's planned nodes, which is where the DataNodes run them once every unit is on its
 * planned node. The re-encoding is priced by {@link ReEncoding#chain}, the one price of re-encoding that the update
 * model, the product sweep and this choice share. Pure: the HDFS layer runs the choice.
 *
 * @param delta the scheme's plan (what runs unless re-encoding is chosen)
 * @param reEncode the chain re-encoding of the rewritten parities on the planned nodes; null for a dropped stripe
 * @param reason why the stripe is re-encoded, or null when the delta plan runs
 */
public record UpdateChoice(StripeUpdate update, UpdatePlan delta, EncodePlan reEncode, String reason) {
  /** Slices the pricing plans with (the slice size does not change what crosses racks). */
  private static final int PRICING_SLICE = 64 * 1024;

  /** As {@link #of(StripeUpdate, UpdateScheme, Set, EncodePlan.Shape, boolean)}, re-encoding when cheaper. */
  public static UpdateChoice of(StripeUpdate up, UpdateScheme scheme, Set<Long> gone, EncodePlan.Shape shape) {
    return of(up, scheme, gone, shape, true);
  }

  /**
   * @param gone inodes of members a stock client deleted behind wide-ec's back (their old bytes are lost)
   * @param shape the chain's shape, as the archival chain encoder is configured
   * @param whenCheaper whether re-encoding is taken when it crosses racks less; false: the delta plan runs unless it
   *     cannot (a member deleted behind wide-ec's back, a scheme that re-encodes)
   */
  public static UpdateChoice of(StripeUpdate up, UpdateScheme scheme, Set<Long> gone, EncodePlan.Shape shape,
      boolean whenCheaper) {
    return of(up, Map.of(), scheme, gone, shape, whenCheaper);
  }

  /**
   * As {@link #of(StripeUpdate, UpdateScheme, Set, EncodePlan.Shape, boolean)}, the delta planned with the stored
   * units of {@code readRacks} in the racks their roles read them from ({@link StripeUpdate#pattern(Map)}).
   */
  public static UpdateChoice of(StripeUpdate up, Map<Integer, String> readRacks, UpdateScheme scheme, Set<Long> gone,
      EncodePlan.Shape shape, boolean whenCheaper) {
    UpdatePlan delta = scheme.plan(up.pattern(readRacks));
    if (up.dropsStripe()) {
      return new UpdateChoice(up, delta, null, null); // nothing is written: the stripe leaves the manifest
    }
    Map<Integer, Site> holders = new HashMap<>();
    up.storedDataAfter().forEach((u, m) -> holders.put(u, new Site(m.plannedNode(), m.plannedRack())));
    Map<Integer, Site> targets = new HashMap<>();
    for (int p : up.rewrittenParities()) {
      targets.put(p, new Site(up.after(p).plannedNode(), up.after(p).plannedRack()));
    }
    EncodePlan chain = reEncoding(up, holders, targets, shape, PRICING_SLICE, Integer.MAX_VALUE);
    ArchivedStripe s = up.before();
    String reason = null;
    for (int u : up.changedUnits()) {
      if (!s.member(u).padding() && gone.contains(s.member(u).inodeId())) {
        reason = "unit " + u + " was deleted behind wide-ec's back (inode " + s.member(u).inodeId() + "): its old"
            + " bytes are gone, and re-encoding needs none";
      }
    }
    long deltaBytes = deltaBytes(up, delta);
    if (reason == null && delta.reEncode()) {
      reason = "the " + delta.scheme() + " scheme re-encodes the stripe";
    } else if (reason == null && whenCheaper && UpdateChooser.prefersReEncoding(chain.crossRackBytes(), deltaBytes)) {
      reason = "re-encoding crosses racks with " + chain.crossRackBytes() + " bytes, the " + delta.scheme()
          + " plan with " + deltaBytes;
    }
    return new UpdateChoice(up, delta, chain, reason);
  }

  /**
   * The chain re-encoding of the parities {@code up} rewrites, as it crosses racks: the data the stripe keeps read at
   * {@code holders} (stored data unit to the node read), each rewritten parity written at {@code targets}. The
   * stripe's other parities stay as they are: their trees are not run and their rows not delivered
   * ({@link EncodePlan#storing}).
   *
   * @throws IllegalArgumentException for a dropped stripe (no data left), or holders and targets that do not name
   *     exactly the kept data units and the rewritten parities
   */
  public static EncodePlan reEncoding(StripeUpdate up, Map<Integer, Site> holders, Map<Integer, Site> targets,
      EncodePlan.Shape shape, int sliceBytes, int maxFrameBytes) {
    return chain(up, holders, targets, shape, sliceBytes, maxFrameBytes).storing(rewritten(up));
  }

  /**
   * The whole chain plan of the stripe after the update, every parity row included (the rows not rewritten are
   * given the archival encoder's placeholder target): what each tree's collector plans again from its request, so
   * its tree numbers are the ones a request names.
   *
   * @throws IllegalArgumentException as {@link #reEncoding}
   */
  public static EncodePlan chain(StripeUpdate up, Map<Integer, Site> holders, Map<Integer, Site> targets,
      EncodePlan.Shape shape, int sliceBytes, int maxFrameBytes) {
    ArchivedStripe s = up.before();
    Map<Integer, StripeMember> kept = up.storedDataAfter();
    Set<Integer> rewritten = rewritten(up);
    if (!kept.keySet().equals(holders.keySet()) || !rewritten.equals(targets.keySet())) {
      throw new IllegalArgumentException("stripe " + s.stripeId() + ": re-encoding reads data units " + kept.keySet()
          + " and writes parities " + rewritten + ", given holders of " + new TreeSet<>(holders.keySet())
          + " and targets of " + new TreeSet<>(targets.keySet()));
    }
    long[] lengths = new long[s.code().k()];
    kept.forEach((u, m) -> lengths[u] = m.length());
    return ReEncoding.chain("stripe " + s.stripeId(), s.code(), holders, lengths, targets, shape, sliceBytes,
        maxFrameBytes);
  }

  private static Set<Integer> rewritten(StripeUpdate up) {
    Set<Integer> out = new TreeSet<>();
    for (int p : up.rewrittenParities()) {
      out.add(p);
    }
    return out;
  }

  public boolean reEncodes() {
    return reason != null;
  }

  /** What the chosen way sends across racks, in bytes. */
  public long crossRackBytes() {
    return reEncodes() ? reEncodeCrossRackBytes() : deltaCrossRackBytes();
  }

  /** What the scheme's delta plan sends across racks, in bytes: a chunk is a unit of the stripe after the update. */
  public long deltaCrossRackBytes() {
    return deltaBytes(update, delta);
  }

  /**
   * What re-encoding the rewritten parities sends across racks, in bytes ({@link ReEncoding#chain}), whether or not
   * it is chosen; 0 for a dropped stripe, which writes nothing.
   */
  public long reEncodeCrossRackBytes() {
    return reEncode == null ? 0 : reEncode.crossRackBytes();
  }

  private static long deltaBytes(StripeUpdate up, UpdatePlan delta) {
    return (long) delta.crossRackChunks() * up.nextUnitLength();
  }
}
