package org.wideec.placement.hdfs;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Which units our workers rebuild on the NameNode's order, so HDFS does not copy or reconstruct them meanwhile: units
 * on leaving DataNodes (our decommission) and units of our block groups lost with their DataNode ({@link
 * LostUnitRebuilds} over {@link DeadNodeUnits}).
 *
 * <p>Leaving units. HDFS's
 * decommission queues every block of a leaving node for redundancy work and, for a striped group whose every unit is
 * present, copies the unit from the leaving node (and so does it for a block whose only replica is there); the
 * placement policies ask here before choosing a target for such work and choose none while we claim the unit, so
 * the RedundancyMonitor leaves it queued (HDFS retries an unscheduled block every cycle, no patch needed).
 *
 * <p>A claim holding back HDFS's copy is safe only while our work on that unit really happens, so a claim covers
 * exactly what the last leaving pass published: the block groups it planned or has in flight, and the archived blocks
 * it ordered or found lost on a leaving node and rebuildable by the repair monitor, and every group on a leaving node
 * whose blocks the walk has not all looked at yet. Nothing else is claimed (a group the walk passed over, an archived
 * block of a stale or unprotected stripe: HDFS copies those as always). The
 * claims hold only for a lease after the last leaving pass ended: a monitor that stops running passes (its NameNode
 * waiting for block reports, say) leaves every unit to HDFS within the lease. A unit we could not rebuild, or whose
 * plan says only the leaving node has it, is given back for at least its retry back-off. Read from NameNode threads
 * (the RedundancyMonitor): every method is a lookup that cannot throw.
 *
 * <p>Lost units. When a DataNode dies, HDFS queues each group that lost a unit and the RedundancyMonitor asks the
 * placement policy for targets of a batch every few seconds; while we claim the group it gets none and stays queued.
 * A claim covers the groups the last pass planned or has in flight, and every group of ours that pass did not see at
 * all (lost since it looked): the claim wakes the monitor, whose pass then plans it or leaves it to HDFS. A group
 * queued only for its racks is not seen ({@link WhyQueued#RACKS}): HDFS's request to copy a unit to another rack
 * names no lost unit and never meets a claim, and a unit the group loses later is claimed until a pass takes it. A
 * group the pass saw and did not plan (HDFS reconstructs one of its units already, or has a corrupt, stale or leaving
 * replica of it to deal with) is HDFS's; so is every group a pass could not look at whole (then only what it planned
 * is claimed), and everything once the lease lapses.
 */
public final class RebuildClaims {
  private static volatile boolean active;
  private static volatile Runnable wake = () -> { };
  /**
   * What a pass published, the leaving DataNodes (transfer addresses) it looked at, and until when it holds unless the
   * next pass renews it (System.nanoTime).
   */
  private record Lease(Set<Long> ids, Set<String> nodes, long endNanos) {}

  private static final Lease NONE = new Lease(Set.of(), Set.of(), 0);
  /** Block groups the last leaving pass planned or has in flight. */
  private static volatile Lease groups = NONE;
  /** Archived blocks on leaving nodes the repair monitor ordered or will order, as of its last pass. */
  private static volatile Lease archived = NONE;
  /**
   * Block groups with lost units the last pass planned or has in flight ({@code ids}), and those it saw ({@code seen};
   * null when it could not look at every queued group: then nothing unseen is claimed).
   */
  private record LostLease(Set<Long> ids, Set<Long> seen, long endNanos) {}

  private static final LostLease NO_LOST = new LostLease(Set.of(), null, 0);
  private static volatile LostLease lost = NO_LOST;
  private static volatile long leaseNanos;
  /**
   * The shortest lease: a pass over many manifests may take longer than a short interval, and a claim lapsing between
   * two healthy passes would let HDFS copy units our workers are rebuilding.
   */
  static final long MIN_LEASE_MS = 30_000;
  /** When a claim may wake the monitor again (System.nanoTime): at most once per pass interval. */
  private static volatile long nextWake;
  private static volatile long wakeEveryNanos;
  /** Block groups and archived blocks given back to HDFS, until when (System.nanoTime). */
  private static final Map<Long, Long> returned = new ConcurrentHashMap<>();

  private RebuildClaims() {}

  /**
   * The archive repair monitor runs our decommission (wide-ec.decommission.enabled) or our rebuild of lost units
   * (wide-ec.lost-units.enabled), or both; {@code wake} runs it soon.
   *
   * @param intervalMs the monitor's pass interval: claims hold for two of them (at least {@link #MIN_LEASE_MS}) after
   *     a pass, and wake it at most once per interval
   */
  static void start(Runnable wakeMonitor, long intervalMs, boolean leavingUnits, boolean lostUnits) {
    returned.clear();
    wake = wakeMonitor;
    wakeEveryNanos = TimeUnit.MILLISECONDS.toNanos(intervalMs);
    leaseNanos = intervalMs <= 0 ? 0 : Math.max(2 * wakeEveryNanos, TimeUnit.MILLISECONDS.toNanos(MIN_LEASE_MS));
    // An empty lease until the first pass: a node that starts leaving before it (the first pass waits an interval
    // for the DataNodes' block reports) is claimed and wakes the monitor, instead of being copied by HDFS unseen; if
    // no pass follows, the lease lapses and HDFS copies everything, as it always did.
    groups = leavingUnits ? lease(Set.of(), Set.of()) : NONE;
    archived = leavingUnits ? lease(Set.of(), Set.of()) : NONE;
    // Likewise every lost group is claimed until the first pass has seen it.
    lost = lostUnits ? new LostLease(Set.of(), Set.of(), System.nanoTime() + leaseNanos) : NO_LOST;
    nextWake = System.nanoTime();
    active = true;
  }

  static void stop() {
    active = false;
    wake = () -> { };
    groups = NONE;
    archived = NONE;
    lost = NO_LOST;
    returned.clear();
  }

  /**
   * A leaving pass has ended: these block groups are planned or in flight, and these leaving DataNodes have had every
   * block looked at (the others' groups stay claimed until a walk has reached them all); the claims hold for another
   * lease.
   */
  static void claimGroups(Set<Long> planned, Set<String> leavingNodes) {
    groups = lease(planned, leavingNodes);
  }

  /** A repair pass over these leaving DataNodes has ended: these archived blocks on them are ordered or will be. */
  static void claimArchived(Set<Long> leaving, Set<String> leavingNodes) {
    archived = lease(leaving, leavingNodes);
  }

  /**
   * A pass over the groups with lost units has ended: these are planned or in flight; these were seen, or null when
   * the pass could not look at every one.
   */
  static void claimLost(Set<Long> planned, Set<Long> seen) {
    if (lost != NO_LOST) {
      dropExpiredGiveBacks();
      lost = new LostLease(Set.copyOf(planned), seen == null ? null : Set.copyOf(seen),
          System.nanoTime() + leaseNanos);
    }
  }

  private static Lease lease(Set<Long> ids, Set<String> nodes) {
    dropExpiredGiveBacks();
    return new Lease(Set.copyOf(ids), Set.copyOf(nodes), System.nanoTime() + leaseNanos);
  }

  private static void dropExpiredGiveBacks() {
    long now = System.nanoTime();
    returned.values().removeIf(until -> now - until >= 0); // expired give-backs nobody asked about again
  }

  /** HDFS copies this group's or block's leaving units for the next {@code ms} at least, as it always did. */
  static void giveBack(long id, long ms) {
    returned.merge(id, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms), (a, b) -> a - b > 0 ? a : b);
  }

  /** Whether HDFS copies this group's or block's leaving units now. */
  static boolean givenBack(long id) {
    Long until = returned.get(id);
    if (until == null) {
      return false;
    }
    if (System.nanoTime() - until < 0) {
      return true;
    }
    returned.remove(id, until);
    return false;
  }

  /**
   * Whether our decommission rebuilds the leaving units of this block group of our codecs now, held on {@code from};
   * when it does, the repair monitor is woken (at most once per interval), so it gets to them before HDFS's next
   * cycles ask again.
   */
  public static boolean claimsGroup(long groupId, Set<String> from) {
    return claims(groups, groupId, from);
  }

  /** Whether our decommission rebuilds this archived block, whose live replicas are all on {@code from}, leaving. */
  public static boolean claimsArchivedBlock(long blockId, Set<String> from) {
    return claims(archived, blockId, from);
  }

  /**
   * Whether our workers rebuild the lost units of this block group of our codecs now (no leaving node holds them); when
   * they do, the repair monitor is woken (at most once per interval).
   */
  public static boolean claimsLostGroup(long groupId) {
    LostLease l = lost;
    long now = System.nanoTime();
    boolean ours = active && l != NO_LOST && now - l.endNanos() < 0
        && (l.ids().contains(groupId) || (l.seen() != null && !l.seen().contains(groupId))) && !givenBack(groupId);
    return ours && woken(now);
  }

  /**
   * Claimed when the last pass published it, or when one of its leaving nodes is one that pass had not looked at
   * whole (it started leaving since, or the walk over its blocks has not reached them all): the passes, woken now,
   * decide; without this HDFS would copy a fresh decommission's units before our walk could reach them.
   */
  private static boolean claims(Lease published, long id, Set<String> from) {
    long now = System.nanoTime();
    boolean ours = active && published != NONE && now - published.endNanos() < 0
        && (published.ids().contains(id) || !published.nodes().containsAll(from)) && !givenBack(id);
    return ours && woken(now);
  }

  /** Wakes the monitor unless it was woken less than an interval ago; true. */
  private static boolean woken(long now) {
    if (now - nextWake >= 0) {
      nextWake = now + wakeEveryNanos;
      wake.run();
    }
    return true;
  }
}
