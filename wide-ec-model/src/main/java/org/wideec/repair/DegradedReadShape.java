package org.wideec.repair;

import java.util.Set;
import java.util.function.IntPredicate;
import org.wideec.code.LinearCode;
import org.wideec.code.LocalGroup;
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
    RepairGraph chain = plan(r, RepairScheme.RACK_AGGREGATED, clientNode, clientRack);
    if (chain == null) {
      return RepairScheme.RACK_AGGREGATED; // the repair itself fails as the engine plans it, with its reason
    }
    long otherRacks = chain.steps().stream().map(s -> s.helper().rack()).filter(rack -> !rack.equals(clientRack))
        .distinct().count();
    return otherRacks <= MAX_STAR_RACKS ? RepairScheme.RACK_STAR : RepairScheme.RACK_AGGREGATED;
  }

  /**
   * Whether a chain is worth asking for a read of lost unit {@code lost}, from the layout alone: yes when the code has
   * no local group for it (an MDS code, where every repair reads k units: ECPipe's case) or when one of its groups
   * survives whole apart from it ({@code live}: units that can be read, zero units included). When the unit's group
   * lost other members too (a lost rack that held the group: combined locality packs a group into few racks, ECWide
   * §3), its repair is a global decode: k helpers over most racks, whose chain pays every hop's queue one after
   * another, where direct decode fetches the same k ranges at once. On the real-process cluster such a chain of 12
   * helpers over five racks took 11 to 15 s during a rack's recovery against 1.2 to 2.0 s for direct decode.
   */
  public static boolean chainWorthAsking(LinearCode code, int lost, IntPredicate live) {
    java.util.List<LocalGroup> groups = code.groupsOf(lost);
    if (groups.isEmpty()) {
      return true;
    }
    for (LocalGroup g : groups) {
      boolean whole = true;
      for (int u : g.members()) {
        whole &= u == lost || live.test(u);
      }
      if (whole) {
        return true;
      }
    }
    return false;
  }

  /**
   * Seconds the links need to move a degraded read of {@code bytes} rebuilt by {@code r} to the client at {@code rates}
   * with nothing else on them: the busiest link's bytes ({@link RackLinkLoad#seconds}) over the plan the repair engine
   * runs for {@code r}'s scheme, each step's partial sum crossing its sender's NIC and rack link once and its
   * receiver's once. Rack links full duplex, as switch ports and HTB shaping behave. A zero unit reads and sends
   * nothing; a step's sum goes to the next step that reads a stored unit. 0 for a plan the helpers cannot make (the
   * repair then fails as the engine plans it).
   */
  public static double idleSeconds(StripeRepair r, String clientNode, String clientRack, long bytes, LinkRates rates) {
    RepairGraph g = r.lost().length == 1 ? plan(r, r.scheme(), clientNode, clientRack) : null;
    if (g == null) {
      return 0;
    }
    Set<Integer> zeros = r.zeroUnits();
    RackLinkLoad load = new RackLinkLoad(RackLinkLoad.Links.FULL_DUPLEX);
    for (RepairStep s : g.steps()) {
      if (zeros.contains(s.helper().unit())) {
        continue;
      }
      int next = s.next();
      while (next != RepairStep.REQUESTOR && zeros.contains(g.steps().get(next).helper().unit())) {
        next = g.steps().get(next).next();
      }
      String toNode = next == RepairStep.REQUESTOR ? clientNode : g.steps().get(next).helper().node();
      String toRack = next == RepairStep.REQUESTOR ? clientRack : g.steps().get(next).helper().rack();
      load.addNodeTransfer(s.helper().node(), toNode, bytes);
      load.addTransfer(s.helper().rack(), toRack, bytes);
    }
    return load.seconds(rates);
  }

  /** The plan of {@code r}'s one lost unit with the client as requestor, as the engine makes it; null if none. */
  private static RepairGraph plan(StripeRepair r, RepairScheme scheme, String clientNode, String clientRack) {
    try {
      return SingleUnitRepairPlanner.plan(scheme, r.code(), r.lost()[0], r.helpersAvailable(Set.of(), clientRack),
          clientNode, clientRack, r.weights(), r.helperPreference(), r.rackChain());
    } catch (NotDecodableException e) {
      return null;
    }
  }
}
