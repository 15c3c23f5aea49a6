package org.wideec.transport;

/** What a node's transport reports as it sends slices (implemented by the DataNode's metrics). */
public interface TrafficCounters {
  void sliceSent(int bytes, boolean crossRack);

  TrafficCounters NONE = (bytes, crossRack) -> {};
}
