package org.wideec.demo;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.zip.CRC32C;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.engine.RepairEngine;
import org.wideec.minicluster.StripedGroups;
import org.wideec.placement.hdfs.LeavingStripes;
import org.wideec.protocol.StepRequest;
import org.wideec.repair.DecommissionPlan;
import org.wideec.repair.DecommissionPlanner;
import org.wideec.repair.LinkWeights;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;
import org.wideec.topology.hdfs.DataNodeSites;
import org.wideec.transport.Frame;
import org.wideec.transport.PeerStream;
import org.wideec.transport.SliceTransport;

/**
 * A measurement, not a test: the decommission of one DataNode holding a data unit of each of N block groups of an
 * Azure-LRC policy, done three ways on the same embedded cluster and links (the caller shapes them, as the repair
 * benchmark does with {@code TrafficShaper.emulate}), every unit to the same target each way (the decommission plan's):
 * <ul>
 *   <li><b>stock</b>: what HDFS does, each unit copied from the leaving node (a one-step stream of the unit, coefficient
 *       1, over the slice transport, so it crosses the same shaped links; HDFS's own transfer is not shaped);</li>
 *   <li><b>global</b>: reconstruction from k units, HDFS-17550's way: the target reads the first k surviving units in
 *       index order, as HDFS's reconstructor does, and decodes (star);</li>
 *   <li><b>ours</b>: each unit rebuilt from its local group along a pipelined chain, targets and helpers least recently
 *       selected ({@link DecommissionPlanner}).</li>
 * </ul>
 * All N transfers or rebuilds of a way start at once; a way's time is the last one's end. Each rebuilt unit is checked
 * against the CRC32C of the leaving replica. Reports {@code decommissionStockOverOurs} and
 * {@code decommissionGlobalOverLocal} (global / ours). Needs a cluster with our placement and workers that holds the
 * policy (k + m units over its racks) and has nodes to spare.
 */
final class DecommissionBench {
  private final PrintStream out;
  private final BenchProgress progress;

  DecommissionBench(PrintStream out, BenchProgress progress) {
    this.out = out;
    this.progress = progress;
  }

  /** One unit leaving: its group, index, target and the CRC32C its rebuilt bytes must have. */
  private record Leaving(LocatedStripedBlock group, int unit, DataNode target, long crc,
      DecommissionPlan.Rebuild plan) {}

  /**
   * @param codec our codec (azure-lrc-l2, say) with HDFS's k and m
   * @param groups N, the block groups with a data unit on the leaving node
   * @param blockBytes bytes per internal block
   * @param slice slice bytes of the repairs and copies
   */
  Map<String, Object> run(MiniDFSCluster cluster, DistributedFileSystem fs, String codec, int k, int m, int groups,
      long blockBytes, int slice) throws Exception {
    ErasureCodingPolicy policy = WideEcPolicies.addAndEnable(fs, WideEcPolicies.policy(codec, k, m, RepairBench.CELL));
    Path dir = new Path("/bench/decommission");
    fs.mkdirs(dir);
    fs.setErasureCodingPolicy(dir, policy.getName());
    List<Path> files = new ArrayList<>();
    for (int i = 0; i < groups * 3; i++) { // enough that one node holds a data unit of N groups
      Path f = new Path(dir, "g" + i);
      EmbeddedGroups.writeFile(fs, f, k * blockBytes, blockBytes);
      files.add(f);
    }
    StripedGroups.awaitSettled(cluster, fs, policy, files, 300_000);
    List<LocatedStripedBlock> all = new ArrayList<>();
    for (Path f : files) {
      all.addAll(StripedGroups.groups(fs, f));
    }
    String victim = busiestInDataUnits(all, k);
    DataNode leavingNode = datanode(cluster, victim);
    List<Leaving> leaving = plan(cluster, policy, all, victim, k, groups);
    long bytes = leaving.stream().mapToLong(l -> EmbeddedGroups.unitLength(policy, l.group(), l.unit())).sum();
    out.printf("decommission of %s: a data unit of each of %d groups of %s (%,d bytes)%n", victim, leaving.size(),
        policy.getName(), bytes);

    double stock = allAtOnce("stock copy from the leaving node", copies(cluster, policy, leaving, leavingNode, slice));
    double global = allAtOnce("reconstruction from k units", rebuilds(cluster, policy, leaving, victim, k, true, slice));
    double ours = allAtOnce("local reconstruction (ours)", rebuilds(cluster, policy, leaving, victim, k, false, slice));
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("groups", leaving.size());
    result.put("bytes", bytes);
    result.put("stockSeconds", stock);
    result.put("globalSeconds", global);
    result.put("oursSeconds", ours);
    result.put("decommissionStockOverOurs", stock / ours);
    result.put("decommissionGlobalOverLocal", global / ours);
    out.printf("  decommissionStockOverOurs %.2f, decommissionGlobalOverLocal %.2f%n", stock / ours, global / ours);
    return result;
  }

  /** The node holding a data unit of the most groups. */
  private static String busiestInDataUnits(List<LocatedStripedBlock> groups, int k) {
    Map<String, Integer> load = new HashMap<>();
    for (LocatedStripedBlock g : groups) {
      for (int i = 0; i < g.getBlockIndices().length; i++) {
        if (g.getBlockIndices()[i] < k) {
          load.merge(g.getLocations()[i].getXferAddr(), 1, Integer::sum);
        }
      }
    }
    return load.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
  }

  /** Up to N groups with a data unit on the victim, each with the target our decommission plan gives it. */
  private List<Leaving> plan(MiniDFSCluster cluster, ErasureCodingPolicy policy, List<LocatedStripedBlock> all,
      String victim, int k, int n) throws Exception {
    List<DecommissionPlanner.LeavingStripe> stripes = new ArrayList<>();
    Map<String, LocatedStripedBlock> byName = new HashMap<>();
    for (LocatedStripedBlock g : all) {
      Map<Integer, DatanodeInfo> units = new HashMap<>();
      int onVictim = -1;
      for (int i = 0; i < g.getBlockIndices().length; i++) {
        units.put((int) g.getBlockIndices()[i], g.getLocations()[i]);
        onVictim = g.getLocations()[i].getXferAddr().equals(victim) ? g.getBlockIndices()[i] : onVictim;
      }
      if (onVictim >= 0 && onVictim < k && stripes.size() < n) {
        DecommissionPlanner.LeavingStripe s = LeavingStripes.of(g.getBlock().getBlockId(), g.getBlockSize(), policy,
            units, org.wideec.placement.StripedPlacement.AUTO);
        stripes.add(s);
        byName.put(s.name(), g);
      }
    }
    List<Site> candidates = new ArrayList<>();
    for (DataNode dn : cluster.getDataNodes()) {
      candidates.add(DataNodeSites.of(EmbeddedGroups.descriptor(cluster, dn)));
    }
    DecommissionPlan plan = new DecommissionPlanner(RepairScheme.PIPELINED).plan(Set.of(victim), stripes, candidates);
    List<Leaving> out = new ArrayList<>();
    for (DecommissionPlan.Rebuild r : plan.rebuilds()) {
      LocatedStripedBlock g = byName.get(r.stripe());
      DataNode target = datanode(cluster, r.target().node());
      out.add(new Leaving(g, r.unit(), target, EmbeddedGroups.crcOf(cluster, policy, g, r.unit(), target), r));
    }
    if (out.isEmpty()) {
      throw new IllegalStateException("no block group has a data unit on " + victim + " that a target can take");
    }
    return out;
  }

  /** Each unit streamed whole from the leaving node to its target: HDFS's decommission copy, on the shaped links. */
  private static List<Callable<Void>> copies(MiniDFSCluster cluster, ErasureCodingPolicy policy, List<Leaving> leaving,
      DataNode from, int slice) throws Exception {
    List<Callable<Void>> work = new ArrayList<>();
    for (Leaving l : leaving) {
      long len = EmbeddedGroups.unitLength(policy, l.group(), l.unit());
      SliceTransport t = EmbeddedGroups.plugin(l.target()).transport();
      Endpoint e = EmbeddedGroups.resolver(cluster, l.target())
          .resolve(new UnitLocation(l.unit(), DataNodeSites.of(EmbeddedGroups.descriptor(cluster, from))));
      StepRequest req = new StepRequest(EmbeddedGroups.ref(l.group(), l.unit(), len), 1, len, slice, 0, 1, List.of());
      UnitLocation at = EmbeddedGroups.where(cluster, l.target());
      work.add(() -> {
        CRC32C crc = new CRC32C();
        try (PeerStream in = t.open(e, at.node(), at.rack(), 1, req.toBytes())) {
          for (int sl = 0; sl < req.slices(); sl++) {
            Frame f = in.next(sl);
            try {
              byte[] b = new byte[f.payload().readableBytes()];
              f.payload().getBytes(f.payload().readerIndex(), b);
              crc.update(b);
            } finally {
              f.release();
            }
            in.credit();
          }
          in.awaitEnd();
        }
        if (crc.getValue() != l.crc()) {
          throw new java.io.IOException("copy of unit " + l.unit() + " of " + l.group().getBlock() + " differs");
        }
        return null;
      });
    }
    return work;
  }

  /**
   * Each unit rebuilt on its target without the leaving node: from the first k surviving units in index order, star
   * (HDFS's reconstructor), or from its local group along a chain in the plan's helper order (ours).
   */
  private static List<Callable<Void>> rebuilds(MiniDFSCluster cluster, ErasureCodingPolicy policy,
      List<Leaving> leaving, String victim, int k, boolean firstK, int slice) throws Exception {
    List<Callable<Void>> work = new ArrayList<>();
    for (Leaving l : leaving) {
      StripeRepair full = EmbeddedGroups.repairOf(policy, l.group(), l.unit(), RepairScheme.PIPELINED)
          .without(Set.of(victim));
      StripeRepair r = firstK ? firstKUnits(full, k) : inPlanOrder(full, l.plan());
      // Ours is background work, as the worker runs decommission rebuilds. The k-unit reconstruction stands for
      // HDFS's reconstructor, whose block readers are plain TCP streams that no window of ours limits: it stays
      // unmarked, sent as a user's stream is (as the stock copy above is).
      RepairEngine stock = new RepairEngine(EmbeddedGroups.plugin(l.target()).transport(),
          EmbeddedGroups.resolver(cluster, l.target()), EmbeddedGroups.plugin(l.target()).metrics(), 1);
      RepairEngine e = firstK ? stock : stock.asBackground();
      UnitLocation at = EmbeddedGroups.where(cluster, l.target());
      work.add(() -> {
        e.repair(r, at, (u, len) -> new CrcSink(l.crc()), slice);
        return null;
      });
    }
    return work;
  }

  /**
   * HDFS's reconstructor's input: the first k surviving units in index order. Without the lost data unit's local
   * parity among them (it sits after the global parities), the local group cannot serve, and the k units are read.
   */
  private static StripeRepair firstKUnits(StripeRepair full, int k) {
    Map<Integer, UnitLocation> firstK = new LinkedHashMap<>();
    full.survivors().keySet().stream().sorted().limit(k).forEach(u -> firstK.put(u, full.survivors().get(u)));
    Map<Integer, org.wideec.repair.BlockRef> blocks = new HashMap<>(full.blocks());
    blocks.keySet().retainAll(firstK.keySet());
    return new StripeRepair(full.name(), full.code(), full.lost(), full.lostLengths(), firstK, blocks,
        full.zeroUnits(), RepairScheme.CONVENTIONAL, LinkWeights.UNIFORM, java.util.Comparator.naturalOrder());
  }

  private static StripeRepair inPlanOrder(StripeRepair full, DecommissionPlan.Rebuild plan) {
    List<Integer> order = plan.helpers().stream().map(UnitLocation::unit).toList();
    return new StripeRepair(full.name(), full.code(), full.lost(), full.lostLengths(), full.survivors(), full.blocks(),
        full.zeroUnits(), RepairScheme.PIPELINED, LinkWeights.UNIFORM,
        java.util.Comparator.comparingInt((Integer u) -> order.contains(u) ? order.indexOf(u) : Integer.MAX_VALUE)
            .thenComparingInt(u -> u));
  }

  private double allAtOnce(String way, List<Callable<Void>> work) throws Exception {
    double secs = FullNodeBench.allAtOnce(work);
    out.printf("  %-36s %7.2f s%n", way, secs);
    progress.step("decommission, " + way);
    return secs;
  }

  private static DataNode datanode(MiniDFSCluster cluster, String xferAddr) {
    return cluster.getDataNodes().stream().filter(d -> d.getDatanodeId().getXferAddr().equals(xferAddr)).findFirst()
        .orElseThrow(() -> new IllegalStateException("no DataNode " + xferAddr));
  }
}
