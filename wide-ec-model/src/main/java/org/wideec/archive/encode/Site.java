package org.wideec.archive.encode;

/** A node and its rack: where a data unit is read or a parity unit is written. */
public record Site(String node, String rack) {
  public Site {
    if (node == null || node.isEmpty() || rack == null || rack.isEmpty()) {
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
