package org.wideec.placement.hdfs;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.metrics2.lib.MutableGaugeLong;
import org.wideec.repair.RackLinkLoad;

/**
 * The orders for units of block groups under way ({@link LostUnitRebuilds}): the units each stores (internal block
 * id) with their group, what each puts on the links ({@link LinksInFlight}, the load the next plans share), and how
 * many run, published as the source's gauge of orders running. Written by the monitor's thread and the rebuild
 * threads.
 */
final class UnitsInFlight {
  private final AtomicInteger orders = new AtomicInteger();
  /** Units of block groups being rebuilt now (internal block id), with their group. */
  private final Map<Long, Long> units = new ConcurrentHashMap<>();
  private final LinksInFlight links;
  private final MutableGaugeLong running;

  /**
   * @param links what orders under way put on the links, shared with other plans of the same links
   * @param running the gauge of orders running
   */
  UnitsInFlight(LinksInFlight links, MutableGaugeLong running) {
    this.links = links;
    this.running = running;
  }

  /** An order storing {@code internals} (units of {@code group}, the first the one it is filed under) started. */
  void started(long group, long[] internals, RackLinkLoad flows) {
    for (long internal : internals) {
      units.put(internal, group);
    }
    links.started(internals[0], flows);
    running.set(orders.incrementAndGet());
  }

  /** The order storing {@code internals} ended (stored, failed or never run). */
  void ended(long[] internals) {
    for (long internal : internals) {
      units.remove(internal);
    }
    links.ended(internals[0]);
    running.set(orders.decrementAndGet());
  }

  int orders() {
    return orders.get();
  }

  /** The group of a unit being rebuilt now, or null. */
  Long groupOf(long internal) {
    return units.get(internal);
  }

  /** The groups with a unit being rebuilt now (a group once per such unit). */
  Collection<Long> groups() {
    return units.values();
  }

  boolean hasGroup(long group) {
    return units.containsValue(group);
  }

  /** The sum of what every order under way puts on the links, this source's and the others sharing them. */
  RackLinkLoad links() {
    return links.load();
  }
}
