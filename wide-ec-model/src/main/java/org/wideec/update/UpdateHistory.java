package org.wideec.update;

import java.util.BitSet;

/**
 * Which data units of one stripe were updated before: the state Parix keeps across a trace (its parity nodes
 * log a unit's original content on the first update only, RackCU §V-A). Immutable; a replayer passes the
 * history returned by {@link #after} into the next update of the same stripe.
 */
public final class UpdateHistory {
  public static final UpdateHistory NONE = new UpdateHistory(new BitSet());

  private final BitSet updated;

  private UpdateHistory(BitSet updated) {
    this.updated = updated;
  }

  public static UpdateHistory of(int... units) {
    BitSet b = new BitSet();
    for (int u : units) {
      b.set(u);
    }
    return new UpdateHistory(b);
  }

  public boolean updatedBefore(int unit) {
    return updated.get(unit);
  }

  /** This history with the pattern's changed units recorded. */
  public UpdateHistory after(UpdatePattern pattern) {
    BitSet b = (BitSet) updated.clone();
    for (int u : pattern.changed()) {
      b.set(u);
    }
    return new UpdateHistory(b);
  }

  @Override
  public String toString() {
    return "updated before " + updated;
  }
}
