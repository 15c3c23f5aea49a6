package org.wideec.repair;

import java.io.IOException;
import org.wideec.topology.Endpoint;

/** Finds a node's slice service (DataNodes publish theirs over JMX; tests keep a map). */
@FunctionalInterface
public interface EndpointResolver {
  Endpoint resolve(UnitLocation location) throws IOException;

  /** Drops what is remembered about a node that failed (it may come back elsewhere, e.g. restarted). */
  default void forget(String node) {}
}
