package org.wideec.datanode;

import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.wideec.repair.EndpointResolver;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Endpoint;

/**
 * The slice endpoints a request names (as its sender knew them when it sent it), and for a node forgotten since (it
 * failed, or moved: a DataNode restarted on a new slice port) where the node says it listens now. A request may name a
 * DataNode's endpoint from before its restart; the repair then asks the node where it listens instead of leaving it
 * out.
 */
final class NamedEndpoints implements EndpointResolver {
  private final Map<String, Endpoint> named;
  private final Set<String> forgotten = ConcurrentHashMap.newKeySet();
  private final EndpointResolver current;
  private final Function<String, IOException> unnamed;

  /**
   * @param current where a node listens now, by its own word ({@link ClusterDataNodes#current})
   * @param unnamed the failure for a node the request does not name
   */
  NamedEndpoints(Map<String, Endpoint> named, EndpointResolver current, Function<String, IOException> unnamed) {
    this.named = new ConcurrentHashMap<>(named);
    this.current = current;
    this.unnamed = unnamed;
  }

  @Override
  public Endpoint resolve(UnitLocation loc) throws IOException {
    Endpoint e = named.get(loc.node());
    if (e != null) {
      return e;
    }
    if (!forgotten.contains(loc.node())) {
      throw unnamed.apply(loc.node()); // only nodes the request names are ever dialled
    }
    return current.resolve(loc);
  }

  @Override
  public void forget(String node) {
    if (named.remove(node) != null) {
      forgotten.add(node);
    }
    current.forget(node);
  }
}
