package org.wideec.repair;

import java.io.IOException;
import org.wideec.topology.Endpoint;

/** Finds a node's slice service (DataNodes publish theirs over JMX; tests keep a map). */
@FunctionalInterface
public interface EndpointResolver {
  Endpoint resolve(UnitLocation location) throws IOException;

  /** Drops what is remembered about a node that failed (it may come back elsewhere, e.g. restarted). */
  default void forget(String node) {}

  /**
   * Where the node of {@code used} listens now, looked up afresh, when that is not {@code used}; null when it still
   * names {@code used} or cannot be found. A DataNode restarted on its HDFS ports opens a new slice port when its
   * port is 0 (any free port): an endpoint remembered from before the restart is refused although the node is well.
   */
  default Endpoint moved(Endpoint used) {
    forget(used.node());
    return movedFrom(used);
  }

  /**
   * The endpoint the node of {@code used} has as far as this resolver knows now, without asking again, when that is
   * not {@code used}; null when it is, or when the node cannot be found.
   */
  default Endpoint movedFrom(Endpoint used) {
    try {
      Endpoint now = resolve(new UnitLocation(-1, used.site()));
      return now.host().equals(used.host()) && now.port() == used.port() ? null : now;
    } catch (IOException e) {
      return null;
    }
  }
}
