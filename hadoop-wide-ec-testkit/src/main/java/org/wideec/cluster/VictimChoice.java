package org.wideec.cluster;

import java.io.IOException;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.wideec.minicluster.StripedGroups;

/**
 * Which DataNode a node loss of the cluster bench strikes, chosen the same way for every policy so that "one node's
 * loss" is the same work for stock RS and for our LRC: the live node holding the number of the policy's units closest
 * to a target ({@code --victim-units}), among the nodes holding a data unit of a full group (the reads phase reads a
 * range of it); ties go to the first name in natural order (dn2 before dn10). Striking whoever held unit 0 of the
 * first group instead compared a node of 5 units with one of 7.
 */
final class VictimChoice {
  /** dn2 before dn10: shorter names first, then the names' order. */
  static final Comparator<String> NATURAL =
      Comparator.comparingInt(String::length).thenComparing(Comparator.naturalOrder());

  private VictimChoice() {}

  /**
   * The node of {@code eligible} whose count in {@code units} is closest to {@code target}, ties to the first in
   * {@link #NATURAL} order.
   *
   * @throws IllegalArgumentException when no eligible node holds a unit
   */
  static String closest(Map<String, Integer> units, Set<String> eligible, int target) {
    return eligible.stream()
        .filter(n -> units.getOrDefault(n, 0) > 0)
        .min(Comparator.<String>comparingInt(n -> Math.abs(units.get(n) - target)).thenComparing(NATURAL))
        .orElseThrow(() -> new IllegalArgumentException("no DataNode holds a data unit of a full group (nodes "
            + units + ")"));
  }

  /** The victim among the live DataNodes, counting the units of {@code files}' block groups. */
  static DatanodeInfo of(DistributedFileSystem fs, ErasureCodingPolicy policy, List<Path> files, int target)
      throws IOException {
    Map<String, DatanodeInfo> live = new HashMap<>();
    for (DatanodeInfo d : fs.getDataNodeStats(DatanodeReportType.LIVE)) {
      live.put(d.getXferAddr(), d);
    }
    Map<String, DatanodeInfo> byName = new HashMap<>();
    Map<String, Integer> units = new HashMap<>();
    Set<String> eligible = new HashSet<>();
    long fullGroup = (long) policy.getNumDataUnits() * policy.getCellSize();
    for (Path f : files) {
      for (LocatedStripedBlock g : StripedGroups.groups(fs, f)) {
        for (int i = 0; i < g.getLocations().length; i++) {
          DatanodeInfo d = live.get(g.getLocations()[i].getXferAddr());
          if (d == null) {
            continue;
          }
          String name = ClusterScript.nodeName(d);
          byName.put(name, d);
          units.merge(name, 1, Integer::sum);
          if (g.getBlockSize() >= fullGroup && g.getBlockIndices()[i] < policy.getNumDataUnits()) {
            eligible.add(name);
          }
        }
      }
    }
    try {
      return byName.get(closest(units, eligible, target));
    } catch (IllegalArgumentException e) {
      throw new IOException(policy.getName() + ": " + e.getMessage(), e);
    }
  }
}
