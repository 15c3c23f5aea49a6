package org.wideec.cluster;

import java.io.IOException;
import java.util.Arrays;
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
import org.wideec.code.LinearCode;
import org.wideec.minicluster.StripedGroups;

/**
 * Which DataNode a node loss of the cluster bench strikes, chosen the same way for every policy so that "one node's
 * loss" is the same work for stock RS and for our LRC: among the live nodes holding a data unit of a full group (the
 * reads phase reads a range of it), the node whose units' repairs read, in all, closest to what {@code
 * --victim-units} units of the code read on average (the helpers of every unit's repair plan, averaged over its
 * units). Striking whoever held unit 0 of the first group instead compared a node of 5 units with one of 7.
 *
 * <p>Repairs, not units, because what a unit's repair reads differs by position: an Azure-LRC 12+2+2's global parity
 * reads all 12 data units, its other units their local group of 6. A production DataNode holds units of thousands of
 * groups, every position about equally often, but a bench node holds a few: 4-unit victims of that code cost 101 to
 * 181 MB across racks from run to run (one holding both global parities 178 MB), and an 8-unit victim chosen by its
 * count held only local-group units. Then the node whose unit count is closest to the target, then the one whose
 * repairs read more (never the cheaper one for us), then the first name in natural order (dn2 before dn10). Every unit
 * of an MDS code reads k helpers, so for stock RS the rule is the unit count and the name.
 */
final class VictimChoice {
  /** dn2 before dn10: shorter names first, then the names' order. */
  static final Comparator<String> NATURAL =
      Comparator.comparingInt(String::length).thenComparing(Comparator.naturalOrder());

  /** What a node holds of a workload: its units, and the helpers the code's repair plans of those units read in all. */
  record Holding(int units, int repairReads) {}

  private VictimChoice() {}

  /**
   * The node of {@code eligible} whose repair reads in {@code held} are closest to {@code target} units times {@code
   * meanReads} (the code's mean over its units); then the one whose unit count is closest to {@code target}; then the
   * one whose repairs read more; then the first in {@link #NATURAL} order.
   *
   * @throws IllegalArgumentException when no eligible node holds a unit
   */
  static String closest(Map<String, Holding> held, Set<String> eligible, int target, double meanReads) {
    Comparator<String> order = Comparator.<String>comparingDouble(n -> Math.abs(held.get(n).repairReads()
            - target * meanReads))
        .thenComparingInt(n -> Math.abs(held.get(n).units() - target))
        .thenComparing(Comparator.<String>comparingInt(n -> held.get(n).repairReads()).reversed())
        .thenComparing(NATURAL);
    return eligible.stream()
        .filter(n -> held.containsKey(n) && held.get(n).units() > 0)
        .min(order)
        .orElseThrow(() -> new IllegalArgumentException("no DataNode holds a data unit of a full group (nodes "
            + new java.util.TreeMap<>(held) + ")"));
  }

  /** The helpers the code's repair plan of each of its units reads, by unit index. */
  static int[] repairReads(LinearCode code) {
    int[] reads = new int[code.n()];
    for (int u = 0; u < reads.length; u++) {
      reads[u] = code.repairPlan(u).helpers().length;
    }
    return reads;
  }

  /** The victim among the live DataNodes, counting the units of {@code files}' block groups. */
  static DatanodeInfo of(DistributedFileSystem fs, ErasureCodingPolicy policy, List<Path> files, int target)
      throws IOException {
    Map<String, DatanodeInfo> live = new HashMap<>();
    for (DatanodeInfo d : fs.getDataNodeStats(DatanodeReportType.LIVE)) {
      live.put(d.getXferAddr(), d);
    }
    int[] reads = repairReads(ClusterBed.codeOf(policy));
    Map<String, DatanodeInfo> byName = new HashMap<>();
    Map<String, Holding> held = new HashMap<>();
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
          int unit = g.getBlockIndices()[i];
          held.merge(name, new Holding(1, reads[unit]),
              (a, b) -> new Holding(a.units() + b.units(), a.repairReads() + b.repairReads()));
          if (g.getBlockSize() >= fullGroup && unit < policy.getNumDataUnits()) {
            eligible.add(name);
          }
        }
      }
    }
    try {
      return byName.get(closest(held, eligible, target, Arrays.stream(reads).average().orElse(0)));
    } catch (IllegalArgumentException e) {
      throw new IOException(policy.getName() + ": " + e.getMessage(), e);
    }
  }
}
