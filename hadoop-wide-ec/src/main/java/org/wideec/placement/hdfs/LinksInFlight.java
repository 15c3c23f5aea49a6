package org.wideec.placement.hdfs;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.wideec.repair.RackLinkLoad;

/**
 * What the decommission's orders under way put on the links, by the block each stores (a block group's internal block
 * or an archived block), at their whole size: the load each new plan of a decommission shares the links with, so the
 * block groups' units and the archived blocks on leaving nodes are priced against one another's copies and rebuilds.
 * Written by the monitor's thread and the rebuild threads.
 */
final class LinksInFlight {
  private final Map<Long, RackLinkLoad> flows = new ConcurrentHashMap<>();

  /** An order storing {@code block} started with these flows. */
  void started(long block, RackLinkLoad f) {
    flows.put(block, f);
  }

  /** The order storing {@code block} ended (stored, failed or never sent). */
  void ended(long block) {
    flows.remove(block);
  }

  boolean has(long block) {
    return flows.containsKey(block);
  }

  /** Forgets the orders of blocks {@code running} no longer holds (an order that ended without telling). */
  void retain(java.util.function.LongPredicate running) {
    flows.keySet().removeIf(b -> !running.test(b));
  }

  /** The sum of what every order under way puts on the links. */
  RackLinkLoad load() {
    RackLinkLoad sum = new RackLinkLoad(RackLinkLoad.Links.FULL_DUPLEX);
    flows.values().forEach(f -> sum.add(f, 1));
    return sum;
  }
}
