package org.wideec.datanode;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Slice bytes this DataNode sent over its rack's link to each other rack, by destination rack: what a full-node
 * recovery's plan puts on each link ({@link org.wideec.repair.FullNodeRecoveryPlanner}), counted where the slices
 * leave. Bytes within the rack cross no rack link and are not counted here.
 */
final class RackLinkBytes {
  private final Map<String, LongAdder> toRack = new ConcurrentHashMap<>();

  /** Counts {@code bytes} sent from a node in {@code fromRack} to one in {@code toRack}. */
  void sent(int bytes, String fromRack, String toRack) {
    if (!fromRack.equals(toRack)) {
      this.toRack.computeIfAbsent(toRack, r -> new LongAdder()).add(bytes);
    }
  }

  /** Bytes sent to each other rack since start, by rack name. */
  Map<String, Long> byDestination() {
    Map<String, Long> out = new TreeMap<>();
    toRack.forEach((rack, n) -> out.put(rack, n.sum()));
    return out;
  }
}
