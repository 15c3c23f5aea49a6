package org.wideec.topology;

/** Where a node's slice service listens ({@code host:port}), and which node and rack it is. */
public record Endpoint(String host, int port, Site site) {
  public Endpoint {
    if (site == null) {
      throw new IllegalArgumentException("the endpoint " + host + ":" + port + " needs a site");
    }
  }

  /** The DataNode's transfer address. */
  public String node() {
    return site.node();
  }

  public String rack() {
    return site.rack();
  }

  @Override
  public String toString() {
    return node() + " (" + rack() + ", slice port " + host + ":" + port + ")";
  }
}
