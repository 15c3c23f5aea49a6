package org.wideec.scrub;

import java.util.Arrays;

/**
 * What the parity check on one stripe's summaries found.
 *
 * @param outcome consistent, one unit at fault, or a mismatch the summaries cannot pin on one unit
 * @param suspects the unit at fault (one entry), or for an undecidable mismatch the units any single fault could be
 *     (empty when no single unit explains it: more than one unit is corrupt)
 */
public record ScrubVerdict(Outcome outcome, int[] suspects) {
  public enum Outcome { CONSISTENT, UNIT_AT_FAULT, UNDECIDABLE }

  public static final ScrubVerdict CONSISTENT = new ScrubVerdict(Outcome.CONSISTENT, new int[0]);

  public ScrubVerdict {
    suspects = suspects.clone();
    if (outcome == Outcome.UNIT_AT_FAULT && suspects.length != 1) {
      throw new IllegalArgumentException("a unit at fault names exactly one unit, got " + Arrays.toString(suspects));
    }
  }

  public static ScrubVerdict unitAtFault(int unit) {
    return new ScrubVerdict(Outcome.UNIT_AT_FAULT, new int[] {unit});
  }

  @Override
  public int[] suspects() {
    return suspects.clone();
  }

  public boolean consistent() {
    return outcome == Outcome.CONSISTENT;
  }

  /** The unit at fault; throws when the verdict names none. */
  public int unitAtFault() {
    if (outcome != Outcome.UNIT_AT_FAULT) {
      throw new IllegalStateException("verdict " + this + " names no single unit at fault");
    }
    return suspects[0];
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ScrubVerdict v && v.outcome == outcome && Arrays.equals(v.suspects, suspects);
  }

  @Override
  public int hashCode() {
    return 31 * outcome.hashCode() + Arrays.hashCode(suspects);
  }

  @Override
  public String toString() {
    return outcome == Outcome.CONSISTENT ? "consistent" : outcome + " " + Arrays.toString(suspects);
  }
}
