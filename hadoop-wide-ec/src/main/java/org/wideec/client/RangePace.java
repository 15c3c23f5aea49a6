package org.wideec.client;

import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.wideec.config.ConfigValues;
import org.wideec.repair.DegradedReadShape;
import org.wideec.repair.LinkRates;
import org.wideec.repair.StripeRepair;

/**
 * The time a degraded read's range should take over its helpers' path, against which its chain is judged
 * ({@link ChainProgress}). From the rack link model when the client is told the links' rates ({@link #NODE_RATE},
 * {@link #RACK_RATE}): the busiest link's seconds over the plan the chain runs ({@link DegradedReadShape#idleSeconds}),
 * times {@link #LINK_SHARE}. Otherwise from the recent pace of this FileSystem's healthy reads of one range from one
 * DataNode (direct decode's fetches), each range at that pace; before any, not known.
 */
final class RangePace {
  /** One direction of a DataNode's NIC, in bytes per second, for the link model; 0: not known. */
  static final String NODE_RATE = "wide-ec.client.degraded-read.link.node.bytes-per-second";
  /** One direction of a rack's link to the core, in bytes per second, for the link model; 0: not known. */
  static final String RACK_RATE = "wide-ec.client.degraded-read.link.rack.bytes-per-second";
  /** Both rates unknown by default: a client is not told its network, so the measured pace serves. */
  static final long NODE_RATE_DEFAULT = 0;
  static final long RACK_RATE_DEFAULT = 0;
  /**
   * The link model times a path with nothing else on it, but a lost unit's chain shares its helpers' links with the
   * rebuild of that very unit, which the NameNode orders as soon as the unit is lost (ECPipe §3.2's degraded reads
   * happen during repairs): with the links shared fairly between the two, the chain gets half of each.
   */
  static final double LINK_SHARE = 2;
  /** Weight of the newest measurement in the recent pace (an exponentially weighted mean). */
  static final double NEWEST = 0.25;

  private final LinkRates rates;
  /** Recent pace of healthy range reads, in bytes per second, as the bits of a double; 0: none yet. */
  private final AtomicLong recentBits = new AtomicLong();

  RangePace(Configuration conf) {
    long node = ConfigValues.longAtLeast(conf, NODE_RATE, NODE_RATE_DEFAULT, 0);
    long rack = ConfigValues.longAtLeast(conf, RACK_RATE, RACK_RATE_DEFAULT, 0);
    if ((node == 0) != (rack == 0)) {
      throw new IllegalArgumentException("the link model of degraded reads needs both " + NODE_RATE + " and "
          + RACK_RATE + " (or neither, for the measured pace of healthy reads); got " + node + " and " + rack);
    }
    this.rates = node == 0 ? null : new LinkRates(node, rack);
  }

  /**
   * Nanoseconds {@code bytes} of lost unit {@code repair} (scheme set as the chain runs) should take to reach the
   * client at {@code clientNode} in {@code clientRack}; 0 when not known.
   */
  long expectedNanos(StripeRepair repair, String clientNode, String clientRack, long bytes) {
    if (rates != null) {
      return (long) (LINK_SHARE * DegradedReadShape.idleSeconds(repair, clientNode, clientRack, bytes, rates) * 1e9);
    }
    double pace = Double.longBitsToDouble(recentBits.get());
    return pace > 0 ? (long) (bytes / pace * 1e9) : 0;
  }

  /** A healthy read of {@code bytes} (> 0) from one DataNode took {@code nanos}. */
  void healthyRead(long bytes, long nanos) {
    if (bytes <= 0 || nanos <= 0) {
      return;
    }
    double pace = bytes * 1e9 / nanos;
    recentBits.getAndUpdate(bits -> {
      double old = Double.longBitsToDouble(bits);
      return Double.doubleToLongBits(old > 0 ? old + NEWEST * (pace - old) : pace);
    });
  }
}
