package org.wideec.placement;

import org.wideec.code.LinearCode;

/** One unit per rack: the classical placement (HDFS's rack-fault-tolerant policy, Azure). */
public final class FlatPlanner implements PlacementPlanner {
  @Override
  public String name() {
    return "flat";
  }

  @Override
  public PlacementPlan plan(LinearCode code) {
    return new PlacementPlan(name(), code, java.util.stream.IntStream.range(0, code.n()).toArray());
  }
}
