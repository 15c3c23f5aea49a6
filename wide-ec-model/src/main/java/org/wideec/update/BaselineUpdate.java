package org.wideec.update;

import java.util.ArrayList;
import java.util.List;
import org.wideec.update.Transfer.Kind;
import org.wideec.update.Transfer.Phase;

/**
 * The baseline delta update (RackCU §II-C, §V-A): every changed unit sends each global parity its own parity
 * delta, Eq. (2), so a rack-blind update crosses racks once per changed unit per parity in another rack.
 */
public final class BaselineUpdate implements UpdateScheme {
  @Override
  public String name() {
    return "baseline";
  }

  @Override
  public UpdatePlan plan(UpdatePattern pattern, UpdateHistory history) {
    List<Transfer> ts = new ArrayList<>();
    for (int d : pattern.changed()) {
      for (int p : pattern.globalParities()) {
        ts.add(new Transfer(Phase.PARITY_UPDATE, Place.unit(d, pattern.rackOf(d)), Place.unit(p, pattern.rackOf(p)),
            Kind.PARITY_DELTA, new int[] {d}, new int[] {p}));
      }
    }
    ts.addAll(LocalParityUpdate.transfers(pattern, pattern.changed(), null));
    return new UpdatePlan(name(), pattern, new int[0], ts, false);
  }
}
