package org.wideec.archive;

import org.wideec.code.LinearCode;

/**
 * The replication each remaining unit of an archived stripe needs once some of its members changed for good, so that
 * the stripe still survives the node losses its code claims (DESIGN.md §2 "protection follows the stripe").
 *
 * <p>A member deleted, truncated or appended after archival is no longer what the parity covers: its unit is lost to
 * the stripe permanently ({@code d} such units), while a unit whose block is merely missing is rebuilt under its own
 * id and does not count. A trimmed stripe keeps one replica per unit and relies on its code to survive {@code f}
 * losses (the code's guaranteed tolerance: every pattern of {@code f} erasures decodes). With {@code d} units gone for
 * good, {@code f} more losses would take it to {@code f + d} erasures, beyond what is decodable.
 *
 * <p>Why replication restores it: give every remaining unit {@code r} replicas, each replica on a node of its own
 * (no node holding replicas of two units). A unit is lost only when all {@code r} of its nodes are, so {@code f} node
 * losses remove at most {@code floor(f / r)} units. The stripe then has at most {@code floor(f / r) + d} erasures and
 * decodes whenever {@code floor(f / r) + d <= f}: every remaining member is then read from a replica or rebuilt. The
 * smallest such {@code r} is chosen: {@code r = 1} when {@code d = 0} (nothing changed, the trim stands); when
 * {@code d > f} no {@code r} makes the stripe decode, so each remaining block must survive {@code f} losses alone:
 * {@code r = f + 1}. The count assumes the replicas of different units sit on different nodes; HDFS places the added
 * replicas by its own policy, independently per block, so an added replica of one unit may land on a node holding
 * another unit's: {@link StripeReprotection} checks the replicas as listed and raises the units that share nodes.
 *
 * @param tolerance {@code f}, the node losses the stripe's code claims to survive
 * @param unitsGone {@code d}, units the stripe lost for good (deleted or changed members)
 * @param replication {@code r}, the replication every remaining unit needs
 */
public record StripeProtection(int tolerance, int unitsGone, int replication) {
  public StripeProtection {
    if (tolerance < 0 || unitsGone < 0) {
      throw new IllegalArgumentException("a stripe's tolerance (" + tolerance + ") and units gone (" + unitsGone
          + ") are never negative");
    }
  }

  /** The protection of a stripe of a code that claims {@code tolerance} losses and lost {@code unitsGone} units. */
  public static StripeProtection of(int tolerance, int unitsGone) {
    return new StripeProtection(tolerance, unitsGone, replication(tolerance, unitsGone));
  }

  /** The protection of a stripe of this code ({@link #toleranceOf}) that lost {@code unitsGone} units. */
  public static StripeProtection of(LinearCode code, int unitsGone) {
    return of(toleranceOf(code), unitsGone);
  }

  /**
   * The losses a code claims: its guaranteed tolerance, or for a code whose tolerance was never established, its
   * parity count (no linear code survives more, so the replication asked for is never too small).
   */
  public static int toleranceOf(LinearCode code) {
    int f = code.guaranteedTolerance();
    return f >= 0 ? f : code.n() - code.k();
  }

  /** The smallest {@code r} with {@code floor(f / r) + d <= f}; {@code f + 1} when {@code d > f}. */
  static int replication(int f, int d) {
    if (d == 0) {
      return 1;
    }
    if (d > f) {
      return f + 1;
    }
    int r = 1;
    while (f / r + d > f) {
      r++;
    }
    return r;
  }

  /**
   * What happened to a member that changed since archival, in an operator's words: {@code deleted} (its file is
   * gone), {@code truncated} (its file no longer holds the block, or holds fewer bytes of it), {@code appended} (more
   * bytes), {@code rewritten} (as many bytes under another generation stamp: a recovered or rewritten block).
   */
  public static String change(StripeMember m, boolean fileExists, boolean blockExists, long lengthNow) {
    if (!fileExists) {
      return "deleted";
    }
    if (!blockExists || lengthNow < m.length()) {
      return "truncated";
    }
    return lengthNow > m.length() ? "appended" : "rewritten";
  }

  /** Units were lost for good: the remaining ones need more than the trim's one replica. */
  public boolean belowCode() {
    return unitsGone > 0;
  }

  /**
   * The remaining units {@code f} node losses may take with the stripe still decodable: {@code f - d} (the code
   * decodes any {@code f} erasures, {@code d} of them spent), none once {@code d >= f}.
   */
  public int unitsItMayLose() {
    return Math.max(0, tolerance - unitsGone);
  }

  /**
   * The replication a changed member's own file needs: the parity does not cover its bytes, so they survive
   * {@code f} losses only as {@code f + 1} replicas.
   */
  public int changedMemberReplication() {
    return tolerance + 1;
  }
}
