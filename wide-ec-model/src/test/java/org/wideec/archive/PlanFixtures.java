package org.wideec.archive;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.wideec.topology.Site;
import org.wideec.topology.Topology;

/** Topologies and replicated files for planner tests, drawn from a seed. */
final class PlanFixtures {
  static final long MIB = 1L << 20;

  private PlanFixtures() {}

  /** Racks /r0.. with the given node counts; nodes named r{rack}n{node}. */
  static Topology topology(int... nodesPerRack) {
    Map<String, List<String>> m = new LinkedHashMap<>();
    for (int r = 0; r < nodesPerRack.length; r++) {
      List<String> nodes = new ArrayList<>();
      for (int j = 0; j < nodesPerRack[r]; j++) {
        nodes.add("r" + r + "n" + j);
      }
      m.put("/r" + r, nodes);
    }
    return Topology.of(m);
  }

  /** A random topology: {@code racks} racks of {@code minNodes}..{@code maxNodes} nodes. */
  static Topology randomTopology(Random rnd, int racks, int minNodes, int maxNodes) {
    int[] nodes = new int[racks];
    for (int r = 0; r < racks; r++) {
      nodes[r] = minNodes + rnd.nextInt(maxNodes - minNodes + 1);
    }
    return topology(nodes);
  }

  /**
   * A file of {@code blocks} blocks of {@code blockSize} (the last {@code lastLength} long), replicas placed as HDFS's
   * default policy places a client's writes: the first on the writer's node (a fixed node, when given), the second
   * and third on two nodes of one other rack.
   */
  static SourceFile file(Random rnd, Topology t, String path, long inode, long firstBlockId, int blocks,
      long blockSize, long lastLength, String writer) {
    List<SourceFile.Block> list = new ArrayList<>();
    long length = 0;
    for (int i = 0; i < blocks; i++) {
      long len = i == blocks - 1 ? lastLength : blockSize;
      list.add(new SourceFile.Block(firstBlockId + i, 1000 + i, len, hdfsReplicas(rnd, t, writer)));
      length += len;
    }
    return new SourceFile(path, inode, length, blockSize, list);
  }

  static List<Site> hdfsReplicas(Random rnd, Topology t, String writer) {
    List<Site> out = new ArrayList<>();
    String firstRack;
    if (writer != null) {
      firstRack = rackOf(t, writer);
      out.add(new Site(writer, firstRack));
    } else {
      firstRack = t.racks().get(rnd.nextInt(t.rackCount()));
      List<String> nodes = t.nodes(firstRack);
      out.add(new Site(nodes.get(rnd.nextInt(nodes.size())), firstRack));
    }
    if (t.rackCount() > 1) {
      String other;
      do {
        other = t.racks().get(rnd.nextInt(t.rackCount()));
      } while (other.equals(firstRack));
      List<String> nodes = new ArrayList<>(t.nodes(other));
      java.util.Collections.shuffle(nodes, rnd);
      for (int i = 0; i < Math.min(2, nodes.size()); i++) {
        out.add(new Site(nodes.get(i), other));
      }
    }
    return out;
  }

  /** Replicas on random distinct nodes anywhere (up to {@code count}). */
  static List<Site> randomReplicas(Random rnd, Topology t, int count) {
    List<Site> all = new ArrayList<>();
    for (String rack : t.racks()) {
      for (String node : t.nodes(rack)) {
        all.add(new Site(node, rack));
      }
    }
    java.util.Collections.shuffle(all, rnd);
    return new ArrayList<>(all.subList(0, Math.min(count, all.size())));
  }

  static String rackOf(Topology t, String node) {
    for (String rack : t.racks()) {
      if (t.nodes(rack).contains(node)) {
        return rack;
      }
    }
    throw new IllegalArgumentException("no node " + node);
  }
}
