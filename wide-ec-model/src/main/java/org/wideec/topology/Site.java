package org.wideec.topology;

/**
 * A DataNode and its rack: where a replica is, where a unit is kept, read or written. The node is named as the
 * NameNode names it (its transfer address), the rack by its network location; both are always known for a live
 * DataNode, so a blank one is a caller's mistake, refused here once for every record that carries a site.
 */
public record Site(String node, String rack) {
  public Site {
    if (node == null || node.isBlank() || rack == null || rack.isBlank()) {
      throw new IllegalArgumentException("a site needs a node and a rack, got node " + node + ", rack " + rack);
    }
  }

  public boolean sameRack(Site o) {
    return rack.equals(o.rack);
  }

  @Override
  public String toString() {
    return node + " (" + rack + ")";
  }
}
