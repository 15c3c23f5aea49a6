package org.wideec.update;

/**
 * Picks between a delta update and re-encoding the stripe ({@link ReEncoding}): whichever crosses racks less. On a
 * tie the delta update wins, since re-encoding also reads every live unit from disk. A code whose coefficients no
 * on-disk format pins is never re-encoded (no stored stripe uses it, and the chain encoder refuses it).
 */
public final class UpdateChooser {
  private final UpdateScheme delta;
  private final ReEncoding reEncoding = new ReEncoding();

  public UpdateChooser(UpdateScheme delta) {
    this.delta = delta;
  }

  public UpdatePlan choose(UpdatePattern pattern, UpdateHistory history) {
    UpdatePlan d = delta.plan(pattern, history);
    if (!ReEncoding.runs(pattern.code())) {
      return d;
    }
    UpdatePlan r = reEncoding.plan(pattern, history);
    return prefersReEncoding(r.crossRackChunks(), d.crossRackChunks()) ? r : d;
  }

  /**
   * The rule, for any pricing of the two in the same unit (chunks, bytes): re-encode only when it crosses racks
   * strictly less.
   */
  public static boolean prefersReEncoding(long reEncodeCrossRack, long deltaCrossRack) {
    return reEncodeCrossRack < deltaCrossRack;
  }

  public UpdatePlan choose(UpdatePattern pattern) {
    return choose(pattern, UpdateHistory.NONE);
  }
}
