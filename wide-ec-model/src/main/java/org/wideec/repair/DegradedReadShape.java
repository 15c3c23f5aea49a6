package org.wideec.repair;

import java.util.Set;
import org.wideec.code.NotDecodableException;

/**
 * How a degraded read's rebuild moves, the client being the requestor (ECPipe §3.2): one chain through every helper
 * rack (ECWide §4.1's rack-aggregated chain), or a rack star, where each rack's helpers send their partial sum
 * straight to the client (ECWide §2.3's inner-rack sub-operations, each rack sending one cross-rack chunk).
 *
 * <p>Both put one range per helper rack on the racks' links; they differ in where a second range goes. A chain
 * through racks R1, R2 to a client outside them passes R2's gateway twice (in from R1, out to the client), and while
 * the worker rebuilds the same unit (the NameNode orders that as soon as the unit is lost) its partial sums flow into
 * the lost unit's rack through those same gateways. A rack star instead takes one range per helper rack on the
 * client's own link, which that repair does not use. With at most {@link #MAX_STAR_RACKS} racks other than the
 * client's, no link then carries more ranges than the chain's busiest rack gateway; with more, the client's link
 * would carry the most, so the chain stays. Where a reader's NIC is as fast as a rack's uplink (a flat network, no
 * oversubscription) the star's second range at the client costs as much as the chain's, which is why a client may
 * turn it off.
 */
public final class DegradedReadShape {
  /** Most helper racks other than the client's whose partial sums a rack star sends to the client. */
  public static final int MAX_STAR_RACKS = 2;

  private DegradedReadShape() {}

  /**
   * {@link RepairScheme#RACK_STAR} when the helpers of the rack-aggregated plan of {@code r}'s one lost unit sit in at
   * most {@link #MAX_STAR_RACKS} racks other than {@code clientRack}; {@link RepairScheme#RACK_AGGREGATED} otherwise,
   * for several lost units (one joint decode), or for a unit these helpers cannot rebuild. Units past a short group's
   * end are zeros, added at the client, and are not counted.
   */
  public static RepairScheme of(StripeRepair r, String clientNode, String clientRack) {
    if (r.lost().length != 1) {
      return RepairScheme.RACK_AGGREGATED;
    }
    RepairGraph chain;
    try {
      chain = SingleUnitRepairPlanner.plan(RepairScheme.RACK_AGGREGATED, r.code(), r.lost()[0],
          r.helpersAvailable(Set.of(), clientRack), clientNode, clientRack, r.weights(), r.helperPreference(),
          r.rackChain());
    } catch (NotDecodableException e) {
      return RepairScheme.RACK_AGGREGATED; // the repair itself fails as the engine plans it, with this reason
    }
    long otherRacks = chain.steps().stream().map(s -> s.helper().rack()).filter(rack -> !rack.equals(clientRack))
        .distinct().count();
    return otherRacks <= MAX_STAR_RACKS ? RepairScheme.RACK_STAR : RepairScheme.RACK_AGGREGATED;
  }
}
