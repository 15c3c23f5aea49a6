package org.wideec.update;

import java.util.ArrayList;
import java.util.List;
import org.wideec.update.Transfer.Kind;
import org.wideec.update.Transfer.Phase;

/**
 * Parix's speculative partial writes as the seed models them (RackCU §V-A): a unit updated for the first time
 * sends its old and new content to every global parity node (two chunks each), which logs them; a unit updated
 * before sends its new content only (one chunk). The parity node derives the delta from its log. Whether a unit
 * was updated before is the caller's {@link UpdateHistory}, carried across a trace.
 */
public final class ParixUpdate implements UpdateScheme {
  @Override
  public String name() {
    return "parix";
  }

  @Override
  public UpdatePlan plan(UpdatePattern pattern, UpdateHistory history) {
    List<Transfer> ts = new ArrayList<>();
    for (int d : pattern.changed()) {
      Kind kind = history.updatedBefore(d) ? Kind.NEW_DATA : Kind.OLD_AND_NEW_DATA;
      for (int p : pattern.globalParities()) {
        ts.add(new Transfer(Phase.PARITY_UPDATE, Place.unit(d, pattern.rackOf(d)), Place.unit(p, pattern.rackOf(p)),
            kind, new int[] {d}, new int[] {p}));
      }
    }
    ts.addAll(LocalParityUpdate.transfers(pattern, pattern.changed(), null));
    return new UpdatePlan(name(), pattern, new int[0], ts, false);
  }
}
