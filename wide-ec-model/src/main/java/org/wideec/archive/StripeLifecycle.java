package org.wideec.archive;

/**
 * The one life of an archived stripe, whatever its {@link StripeLayout}: which step comes next from each recorded
 * {@link StripeState}, and the checks every layout must pass before a step. The HDFS side executes the steps; this
 * class decides them, so archive, seal, trim and resume share one set of rules (DESIGN.md §3.2: nothing is deleted
 * before the units that protect it are durable and verified).
 *
 * <p>The order of a stripe's life: PLANNED → ENCODING (its unit directory recorded and emptied) → the encoder writes
 * the units → PARITY_WRITTEN → every unit read back against its CRC and the data checked unchanged → VERIFIED →
 * COMMITTED → the layout takes effect (pointers, or the placeholder swap) → TRIMMED. A resumed run never re-plans:
 * it continues from the recorded state, and an encoding a crash interrupted is rolled back and redone.
 */
public final class StripeLifecycle {
  private StripeLifecycle() {}

  /** The step a run takes next for a stripe, from its recorded state. */
  public enum Step {
    /** ENCODING or PARITY_WRITTEN found by a run: a crash may have left any part of the units, so redo from PLANNED. */
    ROLL_BACK,
    /** PLANNED: check the data unchanged, record ENCODING, empty the unit directory, encode, record PARITY_WRITTEN. */
    ENCODE,
    /** PARITY_WRITTEN: read every unit back against its CRC, check the data unchanged, record VERIFIED. */
    VERIFY,
    /** VERIFIED: record COMMITTED (the manifest names the stripe authoritative). */
    COMMIT,
    /** COMMITTED or TRIMMED: the layout takes (or has taken) effect; nothing more is encoded. */
    TAKE_EFFECT,
    /** STALE: left as it is; its blocks are archived again as new stripes. */
    NONE
  }

  /** The next step within a run for a stripe in {@code state}. */
  public static Step next(StripeState state) {
    return switch (state) {
      case ENCODING -> Step.ROLL_BACK;
      case PLANNED -> Step.ENCODE;
      case PARITY_WRITTEN -> Step.VERIFY;
      case VERIFIED -> Step.COMMIT;
      case COMMITTED, TRIMMED -> Step.TAKE_EFFECT;
      case STALE -> Step.NONE;
    };
  }

  /**
   * The first step of a run that finds a stripe recorded in {@code state}: as {@link #next}, except that a unit
   * set found PARITY_WRITTEN is rolled back too (a crash between the encoder's writes and the verification may have
   * left any part of it; only VERIFIED units are trusted).
   */
  public static Step resume(StripeState state) {
    return state == StripeState.PARITY_WRITTEN ? Step.ROLL_BACK : next(state);
  }

  /**
   * A resumed run must carry on with the recorded code: asking for another is refused, naming the stripe and how to
   * resume.
   *
   * @param name the archived path, {@code manifestPath} where its manifest is
   */
  public static void checkResumable(StripeManifest manifest, String codeSpec, String name, String manifestPath) {
    for (ArchivedStripe s : manifest.stripes()) {
      if (!s.codeSpec().equals(codeSpec)) {
        throw new IllegalArgumentException(name + " is already being archived with " + s.codeSpec() + " (manifest "
            + manifestPath + ", stripe " + s.stripeId() + "); rerun with --code " + s.codeSpec() + " to resume it");
      }
    }
  }

  /**
   * Once an archive's layout took effect with units that are the only copy of its bytes (a swapped-in placeholder),
   * every stripe must be VERIFIED or later: a manifest that says otherwise is corrupt or edited by hand, and nothing
   * may be re-encoded, marked STALE or deleted on its word.
   *
   * @return why the manifest cannot be trusted, naming the stripe and its state, or null
   */
  public static String onlyCopyUnverified(StripeManifest manifest, String name, String manifestPath) {
    for (ArchivedStripe s : manifest.stripes()) {
      if (!s.state().parityVerified()) {
        return name + " is sealed, but its manifest " + manifestPath + " records stripe " + s.stripeId() + " as "
            + s.state() + "; nothing was changed. Run wide-ec fsck " + name
            + " (its reader's index holds a copy of the manifest)";
      }
    }
    return null;
  }

  /**
   * True when the file's layout may take effect: every stripe holding a block of it is COMMITTED or TRIMMED (a
   * pointer, or the swap, names stripes whose units are verified and authoritative, never one still encoding).
   */
  public static boolean mayTakeEffect(StripeManifest manifest, long inode) {
    long[] ids = manifest.stripesOf(inode);
    if (ids.length == 0) {
      return false;
    }
    for (long id : ids) {
      if (!committed(manifest.stripe(id).state())) {
        return false;
      }
    }
    return true;
  }

  /** True when every stripe of the manifest is COMMITTED or TRIMMED. */
  public static boolean allCommitted(StripeManifest manifest) {
    return manifest.stripes().stream().allMatch(s -> committed(s.state()));
  }

  /**
   * Whether the stored units of a stripe turning STALE may be deleted: only while the data they were computed from
   * still has every replica it had before archival. A systematic stripe's files may be lowered from COMMITTED on (a
   * trim that stopped part way), so its parity is then all that protects its unchanged blocks and stays; a
   * non-systematic file keeps every replica until the swap, after which its codewords are its only copy.
   *
   * @param tookEffect the layout took effect already (the placeholder is in)
   */
  public static boolean unitsMayGo(StripeLayout layout, StripeState before, boolean tookEffect) {
    return switch (layout) {
      case SYSTEMATIC -> !committed(before);
      case NON_SYSTEMATIC -> !tookEffect;
    };
  }

  /** The record of the next state, checked against the state machine: the record precedes the effect. */
  public static StripeManifest record(StripeManifest manifest, ArchivedStripe next) {
    ArchivedStripe now = manifest.stripe(next.stripeId());
    if (now == null) {
      throw new IllegalArgumentException("manifest of " + manifest.archivedPath() + " has no stripe "
          + next.stripeId());
    }
    now.state().checkTransition(next.stripeId(), next.state());
    return manifest.with(next);
  }

  private static boolean committed(StripeState s) {
    return s == StripeState.COMMITTED || s == StripeState.TRIMMED;
  }
}
