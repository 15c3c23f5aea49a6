package org.wideec.update;

import java.util.stream.IntStream;

/**
 * CAU's selective parity update as the seed runs it (RackCU §V-A, footnote 1: without CAU's data grouping and
 * interim replication): no delta collecting; each rack with changed units renews every parity rack itself, with
 * min(u_x, t_y) chunks (data deltas when it has no more changed units than the rack has parities).
 */
public final class CauUpdate implements UpdateScheme {
  @Override
  public String name() {
    return "cau";
  }

  @Override
  public UpdatePlan plan(UpdatePattern pattern, UpdateHistory history) {
    int[] ownRack = IntStream.range(0, pattern.racks()).toArray();
    return SelectiveParityUpdate.plan(name(), pattern, pattern.changed(), ownRack);
  }
}
