package org.wideec.archive;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The way back of an archive, whatever its {@link StripeLayout}: the ordered steps that give a file its own
 * replicated copy again and then free what protected it, which steps a run takes from what it finds, and the checks
 * before each. The reverse of {@link StripeLifecycle}, with the same rule (DESIGN.md §3.2): nothing is released or
 * freed before the bytes it protects are whole and durable without it. The HDFS side executes the steps; this class
 * decides them.
 *
 * <p>Every step is idempotent, and the records a run frees last (the manifest, then the marks a rerun finds the
 * archive by) are what tell a rerun that the way back is unfinished: so a run stopped after any step is finished by
 * running again.
 */
public final class UnarchiveLifecycle {
  private UnarchiveLifecycle() {}

  /** The steps of taking an archive back, in the only order they may run. */
  public enum Step {
    /**
     * The data's own copy. Systematic: the file's blocks are that copy, each checked to have a live replica.
     * Non-systematic: every piece decoded from live codewords into a new file beside them, checked by CRC32C. A block
     * or piece with no live source refuses the run here, before anything changes.
     */
    RESTORE,
    /** The own copy raised to the wanted replication and waited for until the NameNode lists every block that often. */
    WAIT,
    /** The layout let go: the systematic pointers removed, or the restored file swapped in for the placeholder. */
    RELEASE,
    /** The stored units deleted: the parity, or the codewords and the reader's index. */
    FREE,
    /** The manifest deleted, then the marks a rerun finds the archive by: the last record of the archive. */
    FORGET;

    /**
     * True for the steps that change the archive's own records (layout, units, manifest): each runs only after the
     * run proves it still holds the archive's lock, as a run taken for dead must change nothing.
     */
    public boolean changesArchive() {
      return compareTo(RELEASE) >= 0;
    }
  }

  /** What a run finds of an archive at the path it is given. */
  public enum Found {
    /** No manifest, pointer or marker: never archived, or a rerun after the way back finished. */
    NOT_ARCHIVED,
    /** The layout is in effect (pointers, or the sealed placeholder) and its manifest names the units. */
    ARCHIVED,
    /**
     * The own copy is whole and was durable before a stopped run went on (the non-systematic restored file, set aside
     * for the swap or swapped in already): it is not decoded again, but waited for again before anything is freed.
     */
    RESTORED,
    /**
     * A pointer to a manifest that is gone (fsck: orphan-pointer): nothing protects the file, so its replicas come back
     * and the pointer goes; no manifest names units to free.
     */
    ORPHAN_POINTER
  }

  /** The steps a run takes, in order, for what it found. */
  public static List<Step> steps(Found found) {
    return switch (found) {
      case NOT_ARCHIVED -> List.of();
      case ARCHIVED -> List.of(Step.RESTORE, Step.WAIT, Step.RELEASE, Step.FREE, Step.FORGET);
      case RESTORED -> List.of(Step.WAIT, Step.RELEASE, Step.FREE, Step.FORGET);
      case ORPHAN_POINTER -> List.of(Step.RESTORE, Step.WAIT, Step.RELEASE);
    };
  }

  /**
   * Refuses a step before the ones it rests on: from {@link Step#WAIT} on, every earlier step down to WAIT must be
   * done by this run. So nothing is released or freed before this run saw the own copy whole and durable, the units
   * never go while the layout still points at them, and the manifest goes last.
   *
   * @param name the archived path, named in the refusal
   * @throws IllegalStateException naming the step and the one missing
   */
  public static void checkMayRun(Step next, Set<Step> done, String name) {
    for (Step before : next.compareTo(Step.WAIT) > 0 ? EnumSet.range(Step.WAIT, next) : EnumSet.noneOf(Step.class)) {
      if (before != next && !done.contains(before)) {
        throw new IllegalStateException("unarchive " + name + ": " + next + " before " + before + " is refused:"
            + " nothing is released or freed before the file's own copy is whole and durable");
      }
    }
    if (done.contains(next)) {
      throw new IllegalStateException("unarchive " + name + ": " + next + " is already done in this run");
    }
  }
}
