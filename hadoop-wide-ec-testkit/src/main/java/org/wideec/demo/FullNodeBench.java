package org.wideec.demo;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.zip.CRC32C;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.minicluster.StripedGroups;
import org.wideec.repair.FullNodeScheduler;
import org.wideec.engine.RepairEngine;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;
import org.wideec.demo.RepairBench.Settings;

/**
 * The repair benchmark's full-node recovery: every unit a lost DataNode held rebuilt at once, the helpers and
 * requestors chosen by the least-recently-selected scheduler (ECPipe's full-node recovery) against a random choice,
 * with the busiest link of each plan. Prints its lines and returns its figures for {@link RepairBench}'s report.
 */
final class FullNodeBench {
  private static final int CELL = RepairBench.CELL;
  private final PrintStream out;
  private final BenchProgress progress;
  private final Settings s;

  FullNodeBench(PrintStream out, BenchProgress progress, Settings s) {
    this.out = out;
    this.progress = progress;
    this.s = s;
  }

  /**
   * Full-node recovery (ECPipe §3.3): the DataNode holding most units of many RS(10,4) groups is taken as
   * lost; its units are rebuilt all at once by 1, 2 and 4 requestors, helpers chosen by node order (ECPipe's
   * baseline: the smallest node indexes) or least recently selected. Rate = lost bytes / wall time.
   */
  Map<String, Object> run(MiniDFSCluster cluster, DistributedFileSystem fs, int slice) throws Exception {
    ErasureCodingPolicy policy = WideEcPolicies.addAndEnable(fs, WideEcPolicies.policy(RepairBench.RS, 10, 4, CELL));
    Path dir = new Path("/bench/fullnode");
    fs.mkdirs(dir);
    fs.setErasureCodingPolicy(dir, policy.getName());
    List<LocatedStripedBlock> groups = writeGroups(cluster, fs, policy, dir);
    Map<String, Integer> load = new HashMap<>();
    for (LocatedStripedBlock g : groups) {
      for (DatanodeInfo d : g.getLocations()) {
        load.merge(d.getXferAddr(), 1, Integer::sum);
      }
    }
    String victim = load.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
    List<FullNodeScheduler.StripeLoss> losses = new ArrayList<>();
    Map<String, LocatedStripedBlock> byId = new HashMap<>();
    for (LocatedStripedBlock g : groups) {
      for (int i = 0; i < g.getLocations().length && losses.size() < s.fullNodeStripes(); i++) {
        if (g.getLocations()[i].getXferAddr().equals(victim)) {
          StripeRepair r = EmbeddedGroups.repairOf(policy, g, g.getBlockIndices()[i], RepairScheme.PIPELINED);
          losses.add(new FullNodeScheduler.StripeLoss(g.getBlock().getBlockName(), r.code(), r.lost()[0], r.survivors()));
          byId.put(g.getBlock().getBlockName(), g);
        }
      }
    }
    List<DataNode> candidates = new ArrayList<>(cluster.getDataNodes());
    candidates.removeIf(dn -> dn.getDatanodeId().getXferAddr().equals(victim));
    candidates.sort(Comparator.comparingInt((DataNode dn) -> load.getOrDefault(dn.getDatanodeId().getXferAddr(), 0)));
    long lostBytes = 0;
    for (FullNodeScheduler.StripeLoss l : losses) {
      lostBytes += EmbeddedGroups.unitLength(policy, byId.get(l.id()), l.lostUnit());
    }
    out.printf("full-node recovery: %d lost units (%,d bytes) of %s%n", losses.size(), lostBytes, victim);
    Map<String, Object> result = new LinkedHashMap<>();
    for (int q : new int[] {1, 2, 4}) {
      List<DataNode> requestors = requestors(cluster, candidates, q);
      List<UnitLocation> reqLocs = new ArrayList<>();
      requestors.forEach(dn -> reqLocs.add(EmbeddedGroups.where(cluster, dn)));
      Map<String, Object> row = new LinkedHashMap<>();
      for (boolean lrs : new boolean[] {false, true}) {
        List<FullNodeScheduler.Assignment> plan = new FullNodeScheduler(reqLocs, lrs, RepairScheme.PIPELINED).schedule(losses);
        double secs = runAll(cluster, policy, byId, plan, requestors, slice);
        progress.step("full-node recovery, " + q + " requestor(s)" + (lrs ? ", least recently selected" : ""));
        double mbps = lostBytes / secs / 1e6;
        row.put(lrs ? "recoveryMBpsWithScheduling" : "recoveryMBpsWithoutScheduling", mbps);
        int busiest = busiestLink(plan);
        row.put(lrs ? "busiestLinkUnitsWithScheduling" : "busiestLinkUnitsWithoutScheduling", busiest);
        out.printf("  %d requestor(s), %-26s %7.2f s  %7.2f MB/s  (busiest node link carries %d units)%n", q,
            lrs ? "least recently selected" : "node order", secs, mbps, busiest);
      }
      row.put("gain", (Double) row.get("recoveryMBpsWithScheduling") / (Double) row.get("recoveryMBpsWithoutScheduling"));
      result.put(String.valueOf(q), row);
    }
    return result;
  }

  /** Three times the stripes a run recovers, written as one-group files of RS(10,4) under {@code dir}; their groups. */
  private List<LocatedStripedBlock> writeGroups(MiniDFSCluster cluster, DistributedFileSystem fs,
      ErasureCodingPolicy policy, Path dir) throws Exception {
    List<Path> files = new ArrayList<>();
    for (int i = 0; i < s.fullNodeStripes() * 3; i++) {
      Path f = new Path(dir, "s" + i);
      EmbeddedGroups.writeFile(fs, f, 10 * s.fullNodeBlockBytes(), s.fullNodeBlockBytes());
      files.add(f);
    }
    StripedGroups.awaitSettled(cluster, fs, policy, files, 300_000);
    List<LocatedStripedBlock> groups = new ArrayList<>();
    for (Path f : files) {
      groups.addAll(StripedGroups.groups(fs, f));
    }
    return groups;
  }

  /** {@code q} requestors, spread over racks as a NameNode spreads targets, least loaded first. */
  private static List<DataNode> requestors(MiniDFSCluster cluster, List<DataNode> candidates, int q) {
    List<DataNode> requestors = new ArrayList<>();
    java.util.Set<String> racks = new java.util.HashSet<>();
    for (DataNode dn : candidates) {
      if (requestors.size() < q && racks.add(EmbeddedGroups.rackOf(cluster, dn))) {
        requestors.add(dn);
      }
    }
    return requestors;
  }

  /** Units the busiest node link (in or out) carries under a schedule: what bounds its time. */
  private static int busiestLink(List<FullNodeScheduler.Assignment> plan) {
    Map<String, Integer> load = new HashMap<>();
    for (FullNodeScheduler.Assignment a : plan) {
      List<org.wideec.repair.RepairStep> steps = a.graph().steps();
      for (org.wideec.repair.RepairStep st : steps) {
        String to = st.next() == org.wideec.repair.RepairStep.REQUESTOR ? a.requestor().node() : steps.get(st.next()).helper().node();
        if (!to.equals(st.helper().node())) {
          load.merge("out:" + st.helper().node(), 1, Integer::sum);
          load.merge("in:" + to, 1, Integer::sum);
        }
      }
    }
    return load.values().stream().max(Integer::compare).orElse(0);
  }

  private double runAll(MiniDFSCluster cluster, ErasureCodingPolicy policy, Map<String, LocatedStripedBlock> byId,
      List<FullNodeScheduler.Assignment> plan, List<DataNode> requestors, int slice) throws Exception {
    // Plan every repair (and learn the CRC32C its result must have) first; then run them all at once, as
    // ECPipe's full-node experiment does (§6).
    List<java.util.concurrent.Callable<Void>> repairs = new ArrayList<>();
    for (FullNodeScheduler.Assignment a : plan) {
      LocatedStripedBlock g = byId.get(a.stripe().id());
      DataNode req = requestors.stream().filter(dn -> dn.getDatanodeId().getXferAddr().equals(a.requestor().node()))
          .findFirst().orElseThrow();
      StripeRepair full = EmbeddedGroups.repairOf(policy, g, a.stripe().lostUnit(), RepairScheme.PIPELINED);
      // Exactly the scheduled helpers, in the scheduled order.
      Map<Integer, UnitLocation> chosen = new HashMap<>();
      List<Integer> order = new ArrayList<>();
      a.graph().steps().forEach(st -> {
        chosen.put(st.helper().unit(), st.helper());
        order.add(st.helper().unit());
      });
      StripeRepair r = new StripeRepair(full.name(), full.code(), full.lost(), full.lostLengths(), chosen, full.blocks(),
          full.zeroUnits(), RepairScheme.PIPELINED, org.wideec.repair.LinkWeights.UNIFORM,
          Comparator.comparingInt(order::indexOf));
      long crc = EmbeddedGroups.crcOf(cluster, policy, g, a.stripe().lostUnit(), req);
      // Background work, as the worker runs a node's recovery.
      RepairEngine e = new RepairEngine(EmbeddedGroups.plugin(req).transport(), EmbeddedGroups.resolver(cluster, req),
          EmbeddedGroups.plugin(req).metrics(), 1).asBackground();
      UnitLocation at = EmbeddedGroups.where(cluster, req);
      repairs.add(() -> {
        e.repair(r, at, (u, len) -> new CrcSink(crc), slice);
        return null;
      });
    }
    return allAtOnce(repairs);
  }

  /** Seconds from starting every repair at once, each on its own thread, to the last one done. */
  static double allAtOnce(List<java.util.concurrent.Callable<Void>> repairs) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, repairs.size()));
    try {
      long t0 = System.nanoTime();
      for (Future<Void> f : pool.invokeAll(repairs)) {
        f.get();
      }
      return (System.nanoTime() - t0) / 1e9;
    } finally {
      pool.shutdownNow();
    }
  }
}
