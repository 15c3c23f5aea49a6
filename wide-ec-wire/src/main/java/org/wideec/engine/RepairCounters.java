package org.wideec.engine;

import org.wideec.transport.TrafficCounters;
import org.wideec.repair.RepairScheme;

/** What the repair worker counts (the DataNode publishes them through metrics2). */
public interface RepairCounters extends TrafficCounters {
  default void repairStarted(RepairScheme scheme) {}

  default void repairSucceeded(long millis) {}

  default void repairFailed() {}

  default void retried() {}

  /** A rebuilt unit's sample was decoded again and matched. */
  default void validated() {}

  /** A rebuilt unit's second decode disagreed with the first: nothing was stored. */
  default void validationFailed() {}

  default void readLocally(long bytes) {}

  /**
   * A role of a parity update delivered one transfer's rows to the role that fetched them ({@code crossRack}: the
   * fetcher is in another rack): the traffic the update plan counts.
   */
  default void updateRowsSent(long bytes, boolean crossRack) {}

  /** A replica's CRC32C was composed from its stored chunk checksums and sent, its bytes not read. */
  default void digestComposed() {}

  /** A scrub's summary of a local replica was folded and sent. */
  default void summaryServed() {}

  @Override
  default void sliceSent(int bytes, boolean crossRack) {}

  RepairCounters NONE = new RepairCounters() {};
}
