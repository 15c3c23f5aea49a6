package org.wideec.repair;

import java.util.List;
import org.wideec.topology.Site;

/**
 * What decommissioning (or maintenance) of some DataNodes asks of the repair worker, as data: one {@link Rebuild} per
 * unit a leaving node holds, each a copy from the leaving node or a rebuild from the other units.
 * {@link DecommissionPlanner} makes it; the NameNode plugin executes it; an operator prints it
 * ({@code wide-ec decommission --dry-run}) and reads its cost.
 *
 * @param rebuilds one per unit the plan places, in the order they are to run
 * @param unplaced units no live DataNode in service can receive (no target keeps the stripe's placement): HDFS's own
 *     decommission copies those from the leaving node
 * @param load what the chosen ways put on every node and rack link, with the work in flight the planner was told of
 * @param rates the link speeds the ways were priced at; null when every unit the others can rebuild is rebuilt
 */
public record DecommissionPlan(List<Rebuild> rebuilds, List<Unplaced> unplaced, RackLinkLoad load, LinkRates rates) {

  public DecommissionPlan {
    rebuilds = List.copyOf(rebuilds);
    unplaced = List.copyOf(unplaced);
    load = load.copy();
  }

  /** The time the plan's busiest link needs at its rates ({@link RackLinkLoad#seconds}); NaN without rates. */
  public double predictedSeconds() {
    return rates == null ? Double.NaN : load.seconds(rates);
  }

  /**
   * One unit leaving with its node.
   *
   * @param stripe the stripe's (or block group's) name
   * @param unit the unit's index in its stripe
   * @param leaving where the unit is now
   * @param target the node that rebuilds the unit and stores it (requestor and target at once)
   * @param helpers the units read to rebuild it, in the order the chain visits them; a single helper that is the
   *     unit itself on the leaving node when {@code fromLeavingNode}
   * @param bytes the unit's length
   * @param crossRackBytes bytes the rebuild sends between racks (a chain sends one unit's worth per rack crossing)
   * @param fromLeavingNode true when the unit is copied from the leaving node: the other units cannot rebuild it, or
   *     the copy makes the plan faster
   * @param flows what this way puts on the node and rack links (what a record of the work in flight keeps)
   * @param otherWay what the way not taken would put on them; null when the other units cannot rebuild the unit
   */
  public record Rebuild(String stripe, int unit, Site leaving, Site target, List<UnitLocation> helpers, long bytes,
      long crossRackBytes, boolean fromLeavingNode, RackLinkLoad flows, RackLinkLoad otherWay) {
    public Rebuild {
      helpers = List.copyOf(helpers);
      flows = flows.copy();
      otherWay = otherWay == null ? null : otherWay.copy();
    }
  }

  /** A unit no node can receive, and why. */
  public record Unplaced(String stripe, int unit, Site leaving, String why) {}

  /** Bytes all rebuilds send between racks. */
  public long crossRackBytes() {
    return rebuilds.stream().mapToLong(Rebuild::crossRackBytes).sum();
  }

  /** Bytes all rebuilds store. */
  public long bytes() {
    return rebuilds.stream().mapToLong(Rebuild::bytes).sum();
  }

  /** Units copied from their leaving node. */
  public long fromLeavingNode() {
    return rebuilds.stream().filter(Rebuild::fromLeavingNode).count();
  }

  /** One line per rebuild and per unplaced unit, then the totals. */
  public String describe() {
    StringBuilder b = new StringBuilder();
    for (Rebuild r : rebuilds) {
      b.append(r.stripe()).append(" unit ").append(r.unit()).append(" on ").append(r.leaving()).append(" -> ")
          .append(r.target()).append(r.fromLeavingNode() ? ": copy from the leaving node"
              : ": rebuild from units " + r.helpers().stream().map(h -> h.unit() + "@" + h.node()).toList())
          .append(", ").append(r.crossRackBytes()).append(" bytes across racks\n");
    }
    for (Unplaced u : unplaced) {
      b.append(u.stripe()).append(" unit ").append(u.unit()).append(" on ").append(u.leaving())
          .append(": left to HDFS (").append(u.why()).append(")\n");
    }
    b.append(rebuilds.size()).append(" units placed: ").append(rebuilds.size() - fromLeavingNode()).append(" rebuilt, ")
        .append(fromLeavingNode()).append(" copied from the leaving node; ").append(unplaced.size()).append(" left to HDFS; ")
        .append(bytes()).append(" bytes stored, ").append(crossRackBytes()).append(" bytes across racks");
    if (rates != null) {
      b.append(String.format(java.util.Locale.ROOT, "; predicted %.1f s at %,.0f bytes/s per NIC and %,.0f bytes/s"
          + " per rack link (%s)", predictedSeconds(), rates.nodeBytesPerSecond(), rates.rackBytesPerSecond(),
          load.links()));
    }
    return b.toString();
  }
}
