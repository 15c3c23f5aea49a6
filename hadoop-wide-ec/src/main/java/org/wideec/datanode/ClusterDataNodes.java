package org.wideec.datanode;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.wideec.client.LiveDataNodes;
import org.wideec.repair.ReplicaAccess;
import org.wideec.repair.UnitLocation;
import org.wideec.transport.Endpoint;

/**
 * Whether a slice port a request asks this DataNode to dial is one of this cluster's: the node it names is a live
 * DataNode as the NameNode lists it (its transfer address), and the host and port are that DataNode's slice port as
 * the DataNode itself publishes it. Anything else is refused before a connection is opened, so a request cannot
 * make a DataNode connect to an address of the asker's choosing. Both answers are cached (a minute, ten).
 */
final class ClusterDataNodes {
  private final LiveDataNodes live;
  private final JmxEndpointResolver endpoints;

  ClusterDataNodes(LiveDataNodes live, JmxEndpointResolver endpoints) {
    this.live = live;
    this.endpoints = endpoints;
  }

  /** Throws a refusal naming the first endpoint that is not a slice port of a live DataNode of this cluster. */
  void check(List<Endpoint> named) throws IOException {
    List<DatanodeInfo> nodes = null;
    for (Endpoint e : named) {
      nodes = nodes == null ? live.get() : nodes;
      DatanodeInfo d = nodes.stream().filter(n -> n.getXferAddr().equals(e.node())).findFirst().orElse(null);
      if (d == null) {
        throw new ReplicaAccess.DeniedException("the request names slice port " + e.host() + ":" + e.port() + " of "
            + e.node() + ", which is not a live DataNode of this cluster; a DataNode dials only its cluster's DataNodes");
      }
      Endpoint real = endpoints.resolve(new UnitLocation(-1, d.getXferAddr(), d.getNetworkLocation()), d);
      if (!real.host().equals(e.host()) || real.port() != e.port()) {
        throw new ReplicaAccess.DeniedException("the request names slice port " + e.host() + ":" + e.port() + " for "
            + "DataNode " + e.node() + ", whose slice port is " + real.host() + ":" + real.port()
            + "; a DataNode dials only its cluster's DataNodes");
      }
    }
  }

  void close() {
    live.close();
  }
}
