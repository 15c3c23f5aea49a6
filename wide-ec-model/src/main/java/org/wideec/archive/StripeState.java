package org.wideec.archive;

/**
 * Where one archived stripe is in its life (DESIGN.md §3.2): planned, encoding, parity written,
 * verified, committed (the manifest names the stripe authoritative), trimmed (data blocks down to the planned
 * replica). Every transition is recorded in the manifest before it takes effect, so a crashed run resumes from the
 * recorded state. Nothing may drop a data replica before {@link #parityVerified()}.
 *
 * <p>Each state has a fixed code in the manifest bytes; reordering the constants never changes the format.
 */
public enum StripeState {
  PLANNED(1),
  ENCODING(2),
  PARITY_WRITTEN(3),
  VERIFIED(4),
  COMMITTED(5),
  TRIMMED(6),
  /** A member changed after archival (append, truncate, overwrite, a new generation stamp): the parity is wrong. */
  STALE(7);

  private final int code;

  StripeState(int code) {
    this.code = code;
  }

  /** The state's byte in manifest format 1. */
  int code() {
    return code;
  }

  static StripeState ofCode(int code) {
    for (StripeState s : values()) {
      if (s.code == code) {
        return s;
      }
    }
    return null;
  }

  /**
   * True when the manifest may record {@code next} after this state. Forward one step at a time; back to PLANNED
   * only from ENCODING or PARITY_WRITTEN (a crashed or failed encoding is redone from scratch, its partial parity
   * discarded: nothing was trimmed yet); from anything to STALE; the same state again (a resumed run re-records
   * the step it was in). VERIFIED never rolls back: its parity is durable and checked. TRIMMED and STALE end a
   * stripe's life; a stale stripe is freed and its blocks re-archived as new stripes.
   */
  public boolean canBecome(StripeState next) {
    if (next == this || next == STALE) {
      return true;
    }
    return switch (this) {
      case PLANNED -> next == ENCODING;
      case ENCODING -> next == PARITY_WRITTEN || next == PLANNED;
      case PARITY_WRITTEN -> next == VERIFIED || next == PLANNED;
      case VERIFIED -> next == COMMITTED;
      case COMMITTED -> next == TRIMMED;
      case TRIMMED, STALE -> false;
    };
  }

  /** Throws IllegalStateException naming the stripe and both states unless {@link #canBecome} allows the step. */
  public void checkTransition(long stripeId, StripeState next) {
    if (!canBecome(next)) {
      throw new IllegalStateException("stripe " + stripeId + ": " + this + " -> " + next + " is not a transition"
          + " of the archival state machine (" + allowedAfter() + ")");
    }
  }

  /** The parity is written, read back and matched against its CRC: data replicas may now be trimmed. */
  public boolean parityVerified() {
    return this == VERIFIED || this == COMMITTED || this == TRIMMED;
  }

  /** The parity blocks exist (their ids, generation stamps and lengths are recorded). */
  public boolean parityWritten() {
    return this == PARITY_WRITTEN || parityVerified();
  }

  private String allowedAfter() {
    StringBuilder sb = new StringBuilder("after " + this + ": ");
    boolean first = true;
    for (StripeState s : values()) {
      if (canBecome(s)) {
        sb.append(first ? "" : ", ").append(s);
        first = false;
      }
    }
    return sb.toString();
  }
}
