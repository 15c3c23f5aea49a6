package org.wideec.repair;

/**
 * What background traffic (repair, decommission rebuilds, archival encodes) one DataNode may send, in bytes per
 * second, 0 meaning no cap: a cap on the node's own link, and a cap on its rack's uplink. A rack's uplink is shared
 * by every node of the rack and no node sees the others' traffic, so each takes an equal share of the rack's cap for
 * its cross-rack slices: the rack cap over the live nodes in its rack. The shares add up to the rack cap whatever
 * each node sends, with no coordination between nodes (a node that sends nothing leaves its share idle; that is the
 * price of needing no shared state across processes).
 *
 * @param nodeBytesPerSecond what the node may send in all, 0: no cap
 * @param rackBytesPerSecond what the nodes of one rack may send out of it together, 0: no cap
 */
public record BackgroundCaps(long nodeBytesPerSecond, long rackBytesPerSecond) {
  public static final BackgroundCaps NONE = new BackgroundCaps(0, 0);

  public BackgroundCaps {
    if (nodeBytesPerSecond < 0 || rackBytesPerSecond < 0) {
      throw new IllegalArgumentException("background caps must be >= 0 bytes/s (0: no cap), not node "
          + nodeBytesPerSecond + ", rack " + rackBytesPerSecond);
    }
  }

  /** This node's share of its rack's uplink cap, with {@code liveNodesInRack} live nodes there (itself included). */
  public long rackShare(int liveNodesInRack) {
    if (rackBytesPerSecond == 0) {
      return 0;
    }
    return Math.max(1, rackBytesPerSecond / Math.max(1, liveNodesInRack));
  }

  /**
   * The node cap scaled by the back-off's factor (0 < factor <= 1); 0 (no cap) stays 0, and a scaled cap is at
   * least one byte per second.
   */
  public long nodeCap(double factor) {
    return nodeBytesPerSecond == 0 ? 0 : Math.max(1, (long) (nodeBytesPerSecond * factor));
  }

  public BackgroundCaps withNode(long bytesPerSecond) {
    return new BackgroundCaps(bytesPerSecond, rackBytesPerSecond);
  }

  public BackgroundCaps withRack(long bytesPerSecond) {
    return new BackgroundCaps(nodeBytesPerSecond, bytesPerSecond);
  }
}
