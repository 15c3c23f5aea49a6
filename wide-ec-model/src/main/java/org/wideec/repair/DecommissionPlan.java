package org.wideec.repair;

import java.util.List;
import org.wideec.topology.Site;

/**
 * What decommissioning (or maintenance) of some DataNodes asks of the repair worker, as data: one {@link Rebuild} per
 * unit a leaving node holds. {@link DecommissionPlanner} makes it; the NameNode plugin executes it; an operator prints
 * it ({@code wide-ec decommission --dry-run}) and reads its cost.
 *
 * @param rebuilds one per unit the plan places, in the order they are to run
 * @param unplaced units no live DataNode in service can receive (no target keeps the stripe's placement): HDFS's own
 *     decommission copies those from the leaving node
 */
public record DecommissionPlan(List<Rebuild> rebuilds, List<Unplaced> unplaced) {

  public DecommissionPlan {
    rebuilds = List.copyOf(rebuilds);
    unplaced = List.copyOf(unplaced);
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
   * @param fromLeavingNode true when no other units rebuild it, so it is copied from the leaving node
   */
  public record Rebuild(String stripe, int unit, Site leaving, Site target, List<UnitLocation> helpers, long bytes,
      long crossRackBytes, boolean fromLeavingNode) {
    public Rebuild {
      helpers = List.copyOf(helpers);
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

  /** Rebuilds that must read the unit from its leaving node. */
  public long fromLeavingNode() {
    return rebuilds.stream().filter(Rebuild::fromLeavingNode).count();
  }

  /** One line per rebuild and per unplaced unit, then the totals. */
  public String describe() {
    StringBuilder b = new StringBuilder();
    for (Rebuild r : rebuilds) {
      b.append(r.stripe()).append(" unit ").append(r.unit()).append(" on ").append(r.leaving()).append(" -> ")
          .append(r.target()).append(r.fromLeavingNode() ? ": copied from the leaving node (no other units rebuild it)"
              : ": rebuilt from units " + r.helpers().stream().map(h -> h.unit() + "@" + h.node()).toList())
          .append(", ").append(r.crossRackBytes()).append(" bytes across racks\n");
    }
    for (Unplaced u : unplaced) {
      b.append(u.stripe()).append(" unit ").append(u.unit()).append(" on ").append(u.leaving())
          .append(": left to HDFS (").append(u.why()).append(")\n");
    }
    b.append(rebuilds.size()).append(" units rebuilt, ").append(fromLeavingNode()).append(" of them from the leaving"
        + " node, ").append(unplaced.size()).append(" left to HDFS; ").append(bytes()).append(" bytes stored, ")
        .append(crossRackBytes()).append(" bytes across racks");
    return b.toString();
  }
}
