package org.wideec.archive;

import org.wideec.code.LinearCode;

/**
 * How a stripe's units sit beside (or instead of) the file's bytes: the part of the {@link StripeLifecycle} that
 * differs between the two archival layouts of DESIGN.md §3.2.
 *
 * <ul>
 *   <li>{@link #SYSTEMATIC}: the file's own blocks are the data units and stay where they are; the parity units are
 *       written beside them; taking effect means a pointer on each file, and the trim lowers each data block to the
 *       replica the plan keeps (moving it there first when the plan says so).</li>
 *   <li>{@link #NON_SYSTEMATIC}: every stored unit is a codeword (RapidRAID: Xu et al., §3), none is the file's bytes;
 *       taking effect means swapping a placeholder in for the file, after which the codewords are the only copy.</li>
 * </ul>
 */
public enum StripeLayout {
  SYSTEMATIC("parity", "parity directory"),
  NON_SYSTEMATIC("codewords", "codeword directory");

  private final String units;
  private final String unitDirectory;

  StripeLayout(String units, String unitDirectory) {
    this.units = units;
    this.unitDirectory = unitDirectory;
  }

  /** The layout a code's stripes take. */
  public static StripeLayout of(LinearCode code) {
    return code.isSystematic() ? SYSTEMATIC : NON_SYSTEMATIC;
  }

  /** The layout a recorded stripe is in (its source pieces say it is non-systematic). */
  public static StripeLayout of(ArchivedStripe stripe) {
    return stripe.sealed() ? NON_SYSTEMATIC : SYSTEMATIC;
  }

  /** What the layout's stored units are called in messages ("parity", "codewords"). */
  public String units() {
    return units;
  }

  /** What a stripe's unit directory is called in messages. */
  public String unitDirectory() {
    return unitDirectory;
  }

  /**
   * True when a change to one block makes every stripe of the archive STALE: a non-systematic archive is one file
   * whose codewords mix all of its bytes into each stripe's units in turn and take effect only together (one swap).
   */
  public boolean changeStalesEveryStripe() {
    return this == NON_SYSTEMATIC;
  }
}
