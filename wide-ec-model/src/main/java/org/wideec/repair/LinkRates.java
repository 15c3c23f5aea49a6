package org.wideec.repair;

/**
 * The speeds a {@link RackLinkLoad} is timed at: every DataNode's NIC (each direction) and every rack's link to the
 * core (each direction, or its one gateway). With racks oversubscribed (ECWide §2.2: 1:5 to 1:20) a rack link is
 * slower than the NICs behind it together, which is what makes a copy from one node cheaper than a rebuild across
 * racks for a small node, and the rebuild cheaper once the node's own NIC would carry too much.
 *
 * @param nodeBytesPerSecond one direction of one DataNode's NIC
 * @param rackBytesPerSecond one direction of one rack's uplink (or its gateway, {@link RackLinkLoad.Links})
 */
public record LinkRates(double nodeBytesPerSecond, double rackBytesPerSecond) {
  public LinkRates {
    if (!(nodeBytesPerSecond > 0) || !(rackBytesPerSecond > 0)) {
      throw new IllegalArgumentException("link rates must be positive: node " + nodeBytesPerSecond + " bytes/s, rack "
          + rackBytesPerSecond + " bytes/s");
    }
  }
}
