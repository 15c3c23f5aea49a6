package org.wideec.update;

import java.util.Arrays;

/**
 * A rack-coordinated update solution with collector racks chosen by the caller (RackCU §III-B): each rack with
 * changed units sends its data deltas to the given collector, then the selective parity update runs from every
 * collector. Its cross-rack count is Eq. (4); the seed's Figure 3 (collectors R2 and R4, 10 chunks) is one.
 */
public final class RackCoordinatedUpdate implements UpdateScheme {
  private final int[] collectorOf;

  /**
   * @param collectorOf for each rack (plan index), the collector rack its data deltas go to; racks without
   *     changed units may map anywhere (-1). A collector with changed units of its own must collect them itself.
   */
  public RackCoordinatedUpdate(int[] collectorOf) {
    this.collectorOf = collectorOf.clone();
  }

  @Override
  public String name() {
    return "coordinated";
  }

  @Override
  public UpdatePlan plan(UpdatePattern pattern, UpdateHistory history) {
    if (collectorOf.length != pattern.racks()) {
      throw new IllegalArgumentException("collector choice " + Arrays.toString(collectorOf) + " covers "
          + collectorOf.length + " racks, the stripe has " + pattern.racks());
    }
    for (int r = 0; r < pattern.racks(); r++) {
      if (pattern.changedIn(r).length == 0) {
        continue;
      }
      int c = collectorOf[r];
      if (c < 0 || c >= pattern.racks()) {
        throw new IllegalArgumentException("rack " + pattern.rackName(r) + " has changed units but no collector rack");
      }
      // The seed's second assumption: a rack's deltas go to one collector, and a data rack that collects keeps its own.
      if (pattern.changedIn(c).length > 0 && collectorOf[c] != c) {
        throw new IllegalArgumentException("collector rack " + pattern.rackName(c) + " has changed units of its own but sends them to "
            + pattern.rackName(collectorOf[c]));
      }
    }
    return SelectiveParityUpdate.plan(name(), pattern, pattern.changed(), collectorOf);
  }
}
