package org.wideec.archive;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The life of a parity update of an archive's systematic stripes (DESIGN.md §3.3; seed "Optimal Rack-Coordinated
 * Updates" §II-C): the ordered steps, which of them a run takes from what it finds, and the checks before each. The
 * HDFS side executes the steps; this class decides them, beside {@link StripeLifecycle} and {@link UnarchiveLifecycle}.
 *
 * <p>A finalized replica is never rewritten (DESIGN.md §2), so an update writes its new parity as new blocks beside the
 * old and switches the stripe to them in one commit: the rename of the manifest's next version over the current one.
 * Before that rename nothing a reader or repair uses has changed, so a crash rolls back (the new parity blocks are
 * deleted; the changes still pending are planned again). After it the new version is authoritative, so a crash rolls
 * forward: only the freeing of what the old version used is left, and that waits a grace period, as a read or repair
 * that started on the old version still reads its units.
 */
public final class UpdateLifecycle {
  private UpdateLifecycle() {}

  /** Where an update is, in the only order it moves. */
  public enum State {
    /** The changes to apply are fixed: which stripes, which data units leave or change, which parities are rewritten. */
    PLANNED,
    /** Every rewritten parity is a new, closed block (old parity plus the parity delta), its CRC32C known. */
    PARITY_WRITTEN,
    /** A decode from a random k-subset holding every rewritten parity gave back every remaining data unit. */
    VERIFIED,
    /** The next manifest version was renamed over the current one: the new parity is authoritative. */
    COMMITTED,
    /** After the grace period: the superseded parity and the removed members' blocks deleted. */
    FREED;

    /** Forward one step at a time; nothing moves back (a crash before COMMITTED is a roll-back of the run, not a state). */
    public boolean canBecome(State next) {
      return next.ordinal() == ordinal() + 1;
    }

    /** Throws IllegalStateException naming the archive and both states unless {@link #canBecome} allows the step. */
    public void checkTransition(State next, String name) {
      if (!canBecome(next)) {
        throw new IllegalStateException("update of " + name + ": " + this + " -> " + next + " is not a step of the"
            + " update lifecycle (PLANNED, PARITY_WRITTEN, VERIFIED, COMMITTED, FREED in order)");
      }
    }
  }

  /** The steps a run may take. */
  public enum Step {
    /** New parity of a version that was never committed (a crashed run): deleted; the current manifest stays. */
    ROLL_BACK,
    /** The pending changes read and the stripes' next members decided: reaches {@link State#PLANNED}. */
    PLAN,
    /** The parity deltas applied to the old parity and written as new blocks: {@link State#PARITY_WRITTEN}. */
    WRITE_PARITY,
    /** The decode check: {@link State#VERIFIED}. */
    VERIFY,
    /** The next manifest version written aside and renamed over the current one: {@link State#COMMITTED}. */
    COMMIT,
    /** What superseded versions used, deleted once the grace period after the commit has passed: {@link State#FREED}. */
    FREE;

    /** The state this step reaches, or null for the roll-back (which reaches none). */
    public State reaches() {
      return switch (this) {
        case ROLL_BACK -> null;
        case PLAN -> State.PLANNED;
        case WRITE_PARITY -> State.PARITY_WRITTEN;
        case VERIFY -> State.VERIFIED;
        case COMMIT -> State.COMMITTED;
        case FREE -> State.FREED;
      };
    }
  }

  /**
   * What a run finds of an archive's updates.
   *
   * @param uncommitted parity blocks of a manifest version above the current one (a run stopped before its commit)
   * @param pending changes not yet in the manifest (members set aside whose stripes still hold them)
   * @param superseded units only an earlier manifest version uses (a committed update not yet freed)
   */
  public record Found(boolean uncommitted, boolean pending, boolean superseded) {}

  /** The steps a run takes, in order, for what it found. */
  public static List<Step> steps(Found found) {
    List<Step> out = new ArrayList<>();
    if (found.uncommitted()) {
      out.add(Step.ROLL_BACK);
    }
    if (found.pending()) {
      out.addAll(List.of(Step.PLAN, Step.WRITE_PARITY, Step.VERIFY, Step.COMMIT));
    }
    if (found.pending() || found.superseded()) {
      out.add(Step.FREE);
    }
    return out;
  }

  /**
   * Refuses a step before the ones it rests on: a new version is planned only after the leftovers of an uncommitted
   * one are rolled back (two versions' blocks never mix), parity is written only as planned, nothing is committed
   * unverified, and a run that planned frees only after its commit.
   *
   * @param rolledBackNeeded the run found uncommitted parity
   * @throws IllegalStateException naming the archive, the step and the one missing
   */
  public static void checkMayRun(Step next, Set<Step> done, boolean rolledBackNeeded, String name) {
    if (done.contains(next)) {
      throw new IllegalStateException("update of " + name + ": " + next + " is already done in this run");
    }
    Step before = switch (next) {
      case ROLL_BACK -> null;
      case PLAN -> rolledBackNeeded ? Step.ROLL_BACK : null;
      case WRITE_PARITY -> Step.PLAN;
      case VERIFY -> Step.WRITE_PARITY;
      case COMMIT -> Step.VERIFY;
      case FREE -> done.contains(Step.PLAN) ? Step.COMMIT : null;
    };
    if (before != null && !done.contains(before)) {
      throw new IllegalStateException("update of " + name + ": " + next + " before " + before + " is refused: a"
          + " stripe's parity switches only to new blocks that were written and verified, in one commit");
    }
  }

  /**
   * True when what a commit superseded may be freed: the grace period has passed since the commit, so a degraded
   * read or repair that began on the old version (and pinned its units) has had that long to finish.
   *
   * @param committedAt when the current manifest version was written (ms since the epoch)
   */
  public static boolean freeDue(long committedAt, long now, long graceMs) {
    if (graceMs < 0) {
      throw new IllegalArgumentException("the update grace period is at least 0 ms, got " + graceMs);
    }
    return now - committedAt >= graceMs;
  }
}
