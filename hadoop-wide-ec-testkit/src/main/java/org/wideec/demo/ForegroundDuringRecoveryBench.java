package org.wideec.demo;

import java.io.IOException;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.wideec.datanode.BackgroundTraffic;
import org.wideec.demo.DegradedReadBench.Cells;
import org.wideec.demo.RepairBench.Settings;
import org.wideec.demo.RepairBench.Stripe;
import org.wideec.repair.BackgroundCaps;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.StripeRepair;

/**
 * Foreground reads while a recovery runs, with and without background caps, against idle: the user's read is the
 * normal read of a healthy cell over the slice port ({@link DegradedReadBench#normalRead}, one shaped stream, never
 * capped), the recovery every other live unit of the group rebuilt again and again at once by the DataNodes around
 * it, as background work (what a full-node recovery puts on the group's helpers), node links and rack uplinks shaped.
 * With caps, every DataNode's node cap is {@code capShare} of its emulated link and every rack's uplink cap the same
 * share of the emulated uplink; the figures are the foreground's
 * throughput under recovery over its throughput idle ({@code foregroundFractionWithCaps},
 * {@code foregroundFractionWithoutCaps}), each time the median of the reads ({@link ReadsDuringRepairs}). A
 * measurement, not a test: it prints and returns its figures.
 */
final class ForegroundDuringRecoveryBench {
  /** The node cap's share of the emulated node link: what leaves users at least 80% of it. */
  static final double CAP_SHARE = 0.2;
  private final ReadsDuringRepairs bench;

  ForegroundDuringRecoveryBench(ReadsDuringRepairs bench) {
    this.bench = bench;
  }

  Map<String, Object> run(MiniDFSCluster cluster, Stripe st, Cells c) throws Exception {
    return run(cluster, st, c, CAP_SHARE);
  }

  Map<String, Object> run(MiniDFSCluster cluster, Stripe st, Cells c, double capShare) throws Exception {
    Settings s = bench.settings();
    long cap = Math.max(1, (long) (s.nodeRate() * capShare));
    // The rack uplinks are the bottleneck of this cluster (1/oversubscription of a node link): a node cap alone never
    // binds there, so each rack's uplink is capped at the same share of its emulated rate.
    long rackCap = Math.max(1, (long) (s.nodeRate() / s.oversubscription() * capShare));
    DegradedReadBench.Timed read = () -> DegradedReadBench.normalRead(c.client(), c.endpoints(), c.me(), st, c.group(),
        c.healthy(), c.row(), c.slice(), c.healthyCell());
    ReadsDuringRepairs.Load recovery = () -> recovery(cluster, st, c);
    Map<String, Object> m = new LinkedHashMap<>();
    Map<DataNode, BackgroundCaps> configured = new LinkedHashMap<>();
    for (DataNode dn : cluster.getDataNodes()) {
      BackgroundTraffic b = EmbeddedGroups.plugin(dn).background();
      if (b != null) {
        configured.put(dn, b.caps());
      }
    }
    return bench.overShapedLinks("foreground reads of a healthy cell of " + st.label() + " during a recovery of its"
        + " group", String.format("; caps %,d bytes/s per node, %,d per rack uplink", cap, rackCap), () -> {
          try {
            setCaps(configured, BackgroundCaps.NONE);
            double idle = ReadsDuringRepairs.median(read);
            double uncapped = underRecovery(recovery, read, m, "repairsWithoutCaps");
            setCaps(configured, new BackgroundCaps(cap, rackCap));
            double capped = underRecovery(recovery, read, m, "repairsWithCaps");
            m.put("nodeCapBytesPerSecond", cap);
            m.put("rackCapBytesPerSecond", rackCap);
            m.put("idleReadSeconds", idle);
            m.put("readWithoutCapsSeconds", uncapped);
            m.put("readWithCapsSeconds", capped);
            m.put("foregroundFractionWithoutCaps", idle / uncapped);
            m.put("foregroundFractionWithCaps", idle / capped);
            bench.printf("  %-40s %7.3f s%n", "idle", idle);
            bench.printf("  %-40s %7.3f s  foreground at %5.1f%% of idle%n", "during recovery, no caps", uncapped,
                100 * idle / uncapped);
            bench.printf("  %-40s %7.3f s  foreground at %5.1f%% of idle (target >= 80%%)%n",
                "during recovery, capped", capped, 100 * idle / capped);
          } finally {
            setCaps(configured, null);
          }
          return m;
        });
  }

  /** Every DataNode's caps set to {@code caps}, or back to what each had when null. */
  private static void setCaps(Map<DataNode, BackgroundCaps> nodes, BackgroundCaps caps) {
    nodes.forEach((dn, was) -> {
      BackgroundCaps c = caps == null ? was : caps;
      EmbeddedGroups.plugin(dn).background().setNodeCap(c.nodeBytesPerSecond());
      EmbeddedGroups.plugin(dn).background().setRackCap(c.rackBytesPerSecond());
    });
  }

  /** The median read while the recovery runs; how many repairs completed meanwhile goes in {@code m}. */
  private static double underRecovery(ReadsDuringRepairs.Load recovery, DegradedReadBench.Timed read,
      Map<String, Object> m, String repairsKey) throws Exception {
    ReadsDuringRepairs.UnderLoad<Double> r =
        ReadsDuringRepairs.underLoad(recovery, () -> ReadsDuringRepairs.median(read));
    m.put(repairsKey, r.repairs());
    return r.measured();
  }

  /**
   * Every live unit of the group but the one read rebuilt again and again, each by a requestor outside the group
   * (round robin), as background work: the load a full-node recovery puts on the group's helpers and their uplinks.
   */
  private static RepeatedRepairs recovery(MiniDFSCluster cluster, Stripe st, Cells c) throws IOException {
    Set<String> inGroup = new HashSet<>();
    for (DatanodeInfo d : c.group().getLocations()) {
      inGroup.add(d.getXferAddr());
    }
    List<DataNode> requestors = cluster.getDataNodes().stream()
        .filter(dn -> !inGroup.contains(dn.getDatanodeId().getXferAddr())).toList();
    if (requestors.isEmpty()) {
      throw new IOException("no DataNode outside " + st.label() + "'s group to request its repairs");
    }
    RepeatedRepairs all = new RepeatedRepairs();
    int next = 0;
    for (byte unit : c.group().getBlockIndices()) {
      if (unit == c.healthy()) {
        continue;
      }
      DataNode req = requestors.get(next++ % requestors.size());
      StripeRepair r = EmbeddedGroups.repairOf(st.policy(), c.group(), unit, RepairScheme.RACK_AGGREGATED);
      all.add("bench recovery of unit " + unit, cluster, req, r, c.slice());
    }
    return all;
  }
}
