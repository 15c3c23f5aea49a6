package org.wideec.topology;

/** Where a node's slice service listens, and which node and rack it is (node = the DataNode's transfer address). */
public record Endpoint(String host, int port, String node, String rack) {
  @Override
  public String toString() {
    return node + " (" + rack + ", slice port " + host + ":" + port + ")";
  }
}
