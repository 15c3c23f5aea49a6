package org.wideec.archive;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.wideec.topology.Site;

/**
 * What keeping one archived stripe on its plan takes now (DESIGN.md §3.2): which replicas to pin and
 * which block to move back. Pure: the NameNode side gathers a {@link Observed} per stored member and carries out the
 * answer.
 *
 * <p>A member is looked after once it is placed for good: a parity block from COMMITTED on, a data block once its
 * stripe is TRIMMED (before that it keeps its full replication and the trimmer chooses its survivor). A STALE stripe
 * protects nothing, and a member whose block changed (another generation stamp or length, or under construction) is
 * left alone. Then:
 * <ul>
 *   <li>every live replica on the member's planned node is <b>pinned</b>, so the Balancer and the Mover leave it
 *       there. Only those: an off-plan replica must stay movable, or it could never be moved back (HDFS has no
 *       unpin);</li>
 *   <li>a member whose one live replica is off its planned node is <b>moved back</b>: to its planned node when that
 *       node is live and holds no replica of the block; else, when the replica is outside the planned rack, to a live
 *       node of the planned rack holding no replica of the block, preferring one that holds no other unit of the
 *       stripe (a node loss stays one erasure), then the node name. A replica already in its planned rack whose planned
 *       node is not live stays: the rack is what a rack loss counts. A block with more live replicas is left to HDFS's
 *       excess handling (the trimmer or the policy keeps the planned one).</li>
 * </ul>
 */
public final class PlanKeeping {
  private PlanKeeping() {}

  /**
   * One stored member's block as the NameNode holds it now.
   *
   * @param generationStamp -1 while the block is under construction
   * @param live replicas on live DataNodes in service, neither corrupt nor excess
   * @param holders every DataNode listed for the block, live or not (a target must hold no replica of it)
   */
  public record Observed(long generationStamp, long length, List<Site> live, Set<String> holders) {
    public Observed {
      live = List.copyOf(live);
      holders = Set.copyOf(holders);
    }
  }

  /** Pin the replica of {@code unit} on {@code node}. */
  public record Pin(int unit, StripeMember member, String node) {}

  /** Move the one replica of {@code unit} from {@code from} to {@code to}. */
  public record MoveBack(int unit, StripeMember member, Site from, Site to) {}

  /**
   * A member off its planned node that cannot be moved back now.
   *
   * @param why for the log line
   */
  public record Stuck(int unit, StripeMember member, List<Site> at, String why) {}

  /** What to do for one stripe. */
  public record Actions(List<Pin> pins, List<MoveBack> moves, List<Stuck> stuck) {
    public Actions {
      pins = List.copyOf(pins);
      moves = List.copyOf(moves);
      stuck = List.copyOf(stuck);
    }
  }

  /** Whether the member's block is meant to sit on its planned node by now. */
  public static boolean placed(ArchivedStripe s, StripeMember m) {
    if (m.padding() || m.blockId() == 0) {
      return false;
    }
    return m.isParity() ? s.state() == StripeState.COMMITTED || s.state() == StripeState.TRIMMED
        : s.state() == StripeState.TRIMMED;
  }

  /**
   * @param now each stored member's block by unit (absent: the block is gone)
   * @param targets every live DataNode a block may be moved to
   */
  public static Actions of(ArchivedStripe s, Map<Integer, Observed> now, List<Site> targets) {
    List<Pin> pins = new ArrayList<>();
    List<MoveBack> moves = new ArrayList<>();
    List<Stuck> stuck = new ArrayList<>();
    for (int u : s.storedUnits()) {
      StripeMember m = s.member(u);
      Observed o = now.get(u);
      if (!placed(s, m) || o == null || o.generationStamp() != m.generationStamp() || o.length() != m.length()) {
        continue;
      }
      for (Site r : o.live()) {
        if (r.node().equals(m.plannedNode())) {
          pins.add(new Pin(u, m, r.node()));
        }
      }
      if (o.live().size() != 1 || o.live().get(0).node().equals(m.plannedNode())) {
        continue;
      }
      Site at = o.live().get(0);
      Site to = target(s, u, now, targets, at);
      if (to != null) {
        moves.add(new MoveBack(u, m, at, to));
      } else if (!at.rack().equals(m.plannedRack())) {
        stuck.add(new Stuck(u, m, o.live(), "no live DataNode of its planned rack " + m.plannedRack()
            + " can receive it"));
      }
    }
    return new Actions(pins, moves, stuck);
  }

  private static Site target(ArchivedStripe s, int unit, Map<Integer, Observed> now, List<Site> targets,
      Site at) {
    StripeMember m = s.member(unit);
    Set<String> holders = now.get(unit).holders();
    for (Site t : targets) {
      if (t.node().equals(m.plannedNode()) && !holders.contains(t.node())) {
        return t;
      }
    }
    if (at.rack().equals(m.plannedRack())) {
      return null;
    }
    Set<String> others = new HashSet<>();
    now.forEach((u, o) -> {
      if (u != unit) {
        o.live().forEach(r -> others.add(r.node()));
      }
    });
    return targets.stream()
        .filter(t -> t.rack().equals(m.plannedRack()) && !holders.contains(t.node()))
        .min(Comparator.comparing((Site t) -> others.contains(t.node())).thenComparing(Site::node))
        .orElse(null);
  }
}
