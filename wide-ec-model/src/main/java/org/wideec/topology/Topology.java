package org.wideec.topology;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Racks and the nodes in them. Built explicitly, uniformly, or (by the HDFS adapter) from Hadoop's
 * {@code NetworkTopology}. Immutable; racks keep the order they were given.
 */
public final class Topology {
  private final List<String> racks;
  private final Map<String, List<String>> nodes;

  private Topology(Map<String, List<String>> nodesByRack) {
    Map<String, List<String>> copy = new LinkedHashMap<>();
    for (Map.Entry<String, List<String>> e : nodesByRack.entrySet()) {
      if (e.getValue().isEmpty()) {
        continue;
      }
      copy.put(e.getKey(), Collections.unmodifiableList(new ArrayList<>(e.getValue())));
    }
    this.nodes = Collections.unmodifiableMap(copy);
    this.racks = List.copyOf(copy.keySet());
  }

  /** Racks (in order) and their nodes; racks without nodes are dropped. */
  public static Topology of(Map<String, List<String>> nodesByRack) {
    return new Topology(nodesByRack);
  }

  /** {@code racks} racks named /rack0.. with {@code nodesPerRack} nodes each, named rackI-nodeJ. */
  public static Topology uniform(int racks, int nodesPerRack) {
    if (racks < 1 || nodesPerRack < 1) {
      throw new IllegalArgumentException("a topology needs at least one rack and one node per rack, got "
          + racks + " x " + nodesPerRack);
    }
    Map<String, List<String>> m = new LinkedHashMap<>();
    for (int r = 0; r < racks; r++) {
      List<String> ns = new ArrayList<>();
      for (int j = 0; j < nodesPerRack; j++) {
        ns.add("rack" + r + "-node" + j);
      }
      m.put("/rack" + r, ns);
    }
    return new Topology(m);
  }

  public List<String> racks() {
    return racks;
  }

  public int rackCount() {
    return racks.size();
  }

  public List<String> nodes(String rack) {
    List<String> n = nodes.get(rack);
    if (n == null) {
      throw new IllegalArgumentException("no rack " + rack + " in topology " + racks);
    }
    return n;
  }

  public int nodeCount() {
    return nodes.values().stream().mapToInt(List::size).sum();
  }

  @Override
  public String toString() {
    return racks.size() + " racks, " + nodeCount() + " nodes";
  }
}
