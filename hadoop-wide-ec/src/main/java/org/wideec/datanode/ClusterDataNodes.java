package org.wideec.datanode;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.wideec.client.LiveDataNodes;
import org.wideec.repair.EndpointResolver;
import org.wideec.repair.ReplicaAccess;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Endpoint;
import org.wideec.topology.hdfs.DataNodeSites;

/**
 * Whether a slice port a request asks this DataNode to dial is one of this cluster's: the node it names is a live
 * DataNode as the NameNode lists it (its transfer address), and the host and port are that DataNode's slice port as
 * the DataNode itself publishes it. Anything else is refused before a connection is opened, so a request cannot
 * make a DataNode connect to an address of the asker's choosing. Both answers are cached (a minute, ten); a request
 * that disagrees with them asks again, at most once per {@link #RECHECK_MS} (a DataNode that joined or restarted on
 * another slice port must not be refused for ten minutes, and a hostile request must not make this node ask the
 * NameNode or a DataNode's web UI at every call).
 */
final class ClusterDataNodes {
  static final long RECHECK_MS = 1_000;
  private final LiveDataNodes live;
  private final JmxEndpointResolver endpoints;
  private long listRechecked;
  private final java.util.Map<String, Long> portRechecked = new java.util.concurrent.ConcurrentHashMap<>();

  ClusterDataNodes(LiveDataNodes live, JmxEndpointResolver endpoints) {
    this.live = live;
    this.endpoints = endpoints;
  }

  /** Throws a refusal naming the first endpoint that is not a slice port of a live DataNode of this cluster. */
  void check(List<Endpoint> named) throws IOException {
    for (Endpoint e : named) {
      check(e, true);
    }
  }

  /**
   * One endpoint. What was cached may be out of date (a DataNode restarted on other ports: the NameNode's list names
   * its old web port, the resolver its old slice port), so a disagreement or a failed lookup asks again once.
   */
  private void check(Endpoint e, boolean mayAskAgain) throws IOException {
    DatanodeInfo d = find(live.get(), e);
    if (d == null) {
      if (mayAskAgain && mayRecheckList()) {
        live.invalidate();
        check(e, false);
        return;
      }
      throw new ReplicaAccess.DeniedException("the request names slice port " + e.host() + ":" + e.port() + " of "
          + e.node() + ", which is not a live DataNode of this cluster; a DataNode dials only its cluster's DataNodes");
    }
    Endpoint real;
    try {
      real = endpoints.resolve(new UnitLocation(-1, DataNodeSites.of(d)), d);
    } catch (IOException lookup) {
      if (mayAskAgain && mayRecheckPort(d.getXferAddr())) {
        live.invalidate();
        endpoints.forget(d.getXferAddr());
        check(e, false);
        return;
      }
      throw lookup;
    }
    if (!same(real, e)) {
      if (mayAskAgain && mayRecheckPort(d.getXferAddr())) {
        live.invalidate(); // a restarted DataNode has a new web port too, which only a fresh list names
        endpoints.forget(d.getXferAddr());
        check(e, false);
        return;
      }
      throw new ReplicaAccess.DeniedException("the request names slice port " + e.host() + ":" + e.port() + " for "
          + "DataNode " + e.node() + ", whose slice port is " + real.host() + ":" + real.port()
          + "; a DataNode dials only its cluster's DataNodes");
    }
  }

  /**
   * Where each live DataNode of this cluster listens now, by its own word (its /jmx page), named by its transfer
   * address. A node forgotten (it failed, or moved) is looked up afresh, with a fresh list of the live DataNodes at
   * most once per {@link #RECHECK_MS} (a restarted DataNode may have a new web port too).
   */
  EndpointResolver current() {
    return new EndpointResolver() {
      @Override
      public Endpoint resolve(UnitLocation loc) throws IOException {
        return endpoints.resolve(loc, live.get().stream().filter(n -> n.getXferAddr().equals(loc.node())).findFirst()
            .orElse(null));
      }

      @Override
      public void forget(String node) {
        endpoints.forget(node);
        if (mayRecheckList()) {
          live.invalidate();
        }
      }
    };
  }

  private static DatanodeInfo find(List<DatanodeInfo> nodes, Endpoint e) {
    return nodes.stream().filter(n -> n.getXferAddr().equals(e.node())).findFirst().orElse(null);
  }

  private static boolean same(Endpoint real, Endpoint named) {
    return real.host().equals(named.host()) && real.port() == named.port();
  }

  private synchronized boolean mayRecheckList() {
    long now = System.currentTimeMillis();
    if (now - listRechecked < RECHECK_MS) {
      return false;
    }
    listRechecked = now;
    return true;
  }

  /** Bounded by the live DataNodes: only a node the NameNode lists gets here. */
  private boolean mayRecheckPort(String node) {
    long now = System.currentTimeMillis();
    Long last = portRechecked.get(node);
    if (last != null && now - last < RECHECK_MS) {
      return false;
    }
    portRechecked.put(node, now);
    return true;
  }

  void close() {
    live.close();
  }
}
