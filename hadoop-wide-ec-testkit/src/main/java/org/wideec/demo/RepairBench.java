package org.wideec.demo;

import static org.wideec.demo.EmbeddedGroups.crcOf;
import static org.wideec.demo.EmbeddedGroups.crossRackBytes;
import static org.wideec.demo.EmbeddedGroups.plugin;
import static org.wideec.demo.EmbeddedGroups.rackOf;
import static org.wideec.demo.EmbeddedGroups.ref;
import static org.wideec.demo.EmbeddedGroups.repairOf;
import static org.wideec.demo.EmbeddedGroups.resolver;
import static org.wideec.demo.EmbeddedGroups.spareInRack;
import static org.wideec.demo.EmbeddedGroups.unitLength;
import static org.wideec.demo.EmbeddedGroups.where;
import static org.wideec.demo.EmbeddedGroups.writeFile;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.protocol.SystemErasureCodingPolicies;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.wideec.topology.hdfs.DataNodeSites;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.minicluster.MiniClusters;
import org.wideec.minicluster.StripedGroups;
import org.wideec.placement.StripedPlacement;
import org.wideec.engine.RepairEngine;
import org.wideec.repair.RepairScheme;
import org.wideec.protocol.StepRequest;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Endpoint;
import org.wideec.transport.Frame;
import org.wideec.transport.PeerStream;
import org.wideec.transport.SliceTransport;
import org.wideec.transport.TrafficShaper;

/**
 * {@code wide-ec bench repair}: repairs measured on embedded clusters whose links are shaped like the papers'
 * testbeds. Every repair runs through the DataNodes' own repair workers (slice services, verified reads) with a
 * DataNode acting as requestor; the rebuilt unit is checked against the CRC32C of the real replica, which
 * stays in place so every scheme repairs the same unit. Each time is divided by the time of sending one unit
 * over the bottleneck link ("direct send"), measured in the same run.
 */
public final class RepairBench {
  /** Run settings; rates in bytes per second. */
  public record Settings(long blockBytes, long nodeRate, int oversubscription, List<Integer> sliceSizes, int fullNodeStripes,
      long fullNodeBlockBytes, long fullNodeRate, boolean stockBaseline, boolean singleUnit) {}

  static final String RS = "wide-rs";
  static final String LRC = "azure-lrc-l2";
  static final int CELL = 1024 * 1024;
  private final Configuration base;
  private final PrintStream out;
  private final Settings s;
  private final Map<String, Object> json = new LinkedHashMap<>();
  private final BenchProgress progress;

  public RepairBench(Configuration base, PrintStream out, Settings s) {
    this.base = base;
    this.out = out;
    this.s = s;
    this.progress = new BenchProgress(System.err, "bench repair", plannedSteps(s));
  }

  /**
   * The measured steps a run takes, for the progress estimate: single-unit runs time a direct send and each slice size,
   * then per code a direct send and every scheme, then the rack-gateway pair, then (on the combined-locality cluster) a
   * direct send, a repair, the degraded reads, the degraded reads during a repair and the foreground reads during a
   * recovery with and without caps; every run has six full-node recoveries and, if asked, HDFS's own reconstructor,
   * and ends with the full-node recoveries over racks.
   */
  static int plannedSteps(Settings s) {
    int fullNode = 3 * 2 + FullNodeSpreadBench.steps();
    if (!s.singleUnit()) {
      return fullNode;
    }
    int bestSlice = 1 + s.sliceSizes().size();
    int schemes = 2 * (1 + RepairScheme.values().length);
    int gateways = 1 + 2;
    int combinedLocality = 5;
    return bestSlice + schemes + gateways + fullNode + (s.stockBaseline() ? 1 : 0) + combinedLocality;
  }

  public Map<String, Object> run() throws Exception {
    json.put("blockBytes", s.blockBytes());
    json.put("nodeBytesPerSecond", s.nodeRate());
    json.put("rackBytesPerSecond", s.nodeRate() / s.oversubscription());
    json.put("fullNodeBlockBytes", s.fullNodeBlockBytes());
    json.put("fullNodeBytesPerSecond", s.fullNodeRate());
    File dir = Files.createTempDirectory("wide-ec-bench").toFile();
    try {
      flatCluster(new File(dir, "flat"));
      if (s.singleUnit()) {
        combinedLocalityCluster(new File(dir, "cl"));
      }
      realClusterRacks(new File(dir, "racks"));
    } finally {
      TrafficShaper.emulate(null);
      FileUtil.fullyDelete(dir);
    }
    return json;
  }

  private MiniDFSCluster start(File dir, String scheme, int racks, int perRack, int sliceBytes) throws IOException {
    return start(base, out, dir, scheme, racks, perRack, sliceBytes, false, s.blockBytes());
  }

  /** An embedded cluster of the benchmarks: our placement ({@code scheme}) and repair worker on every DataNode. */
  static MiniDFSCluster start(Configuration base, PrintStream out, File dir, String scheme, int racks, int perRack,
      int sliceBytes, boolean blockTokens, long blockBytes) throws IOException {
    Configuration conf = MiniClusters.withWideEcRepair(MiniClusters.withWideEcPlacement(base));
    conf.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, blockTokens);
    conf.set(StripedPlacement.SCHEME_KEY, scheme);
    conf.setInt("wide-ec.transport.slice.bytes", sliceBytes);
    conf.setInt("wide-ec.transport.stall.timeout.ms", 120_000);
    out.printf("starting %d DataNodes in %d racks (%s placement)%n", racks * perRack, racks, scheme);
    return MiniClusters.start(conf, dir, racks, perRack, blockBytes);
  }

  // ECPipe's testbed: every node's link shaped, racks not; then ECWide's: rack gateways 1/oversubscription.
  private void flatCluster(File dir) throws Exception {
    MiniDFSCluster cluster = start(dir, "flat", 17, 2, s.sliceSizes().get(0));
    try {
      DistributedFileSystem fs = cluster.getFileSystem();
      if (!s.singleUnit()) {
        TrafficShaper.emulate(new long[] {s.fullNodeRate(), 0});
        json.put("fullNode", new FullNodeBench(out, progress, s).run(cluster, fs, smallestSlice()));
        return;
      }
      Stripe rs = write(out, cluster, fs, RS, 10, 4, "/bench/rs", s.blockBytes());
      Stripe lrc = write(out, cluster, fs, LRC, 12, 4, "/bench/lrc-flat", s.blockBytes());
      Map<String, Object> nodeLinks = new LinkedHashMap<>();
      TrafficShaper.emulate(new long[] {s.nodeRate(), 0});
      int best = bestSlice(cluster, rs);
      json.put("bestSliceBytes", best);
      for (Stripe st : List.of(rs, lrc)) {
        double direct = directSend(cluster, st, false, best);
        Map<String, Object> schemes = new LinkedHashMap<>();
        schemes.put("directSendSeconds", direct);
        for (RepairScheme scheme : RepairScheme.values()) {
          schemes.put(scheme.name().toLowerCase(), measure(cluster, st, scheme, best, direct));
        }
        nodeLinks.put(st.label, schemes);
      }
      json.put("nodeLinks", nodeLinks);
      Map<String, Object> rsSchemes = (Map<String, Object>) nodeLinks.get(rs.label);
      double conv = seconds(rsSchemes.get("conventional"));
      double pipe = seconds(rsSchemes.get("pipelined"));
      json.put("conventionalOverPipelinedRs", conv / pipe);
      out.printf("RS(10,4) conventional / pipelined = %.2f (target >= %.1f)%n", conv / pipe, 0.6 * 10);

      // ECWide's comparison uses Azure-LRC(10,2,2): local groups of r + 1 = 6, f = 3 per rack under combined
      // locality, so a data unit's repair crosses racks exactly once ((r+1)/f - 1 = 1).
      TrafficShaper.emulate(null);
      Stripe wide = write(out, cluster, fs, LRC, 10, 4, "/bench/lrc10-flat", s.blockBytes());
      TrafficShaper.emulate(new long[] {s.nodeRate(), s.nodeRate() / s.oversubscription()});
      Map<String, Object> gw = new LinkedHashMap<>();
      double direct = directSend(cluster, wide, true, best);
      gw.put("directSendSeconds", direct);
      gw.put("rack_aggregated", measure(cluster, wide, RepairScheme.RACK_AGGREGATED, best, direct));
      gw.put("conventional", measure(cluster, wide, RepairScheme.CONVENTIONAL, best, direct));
      json.put("rackGatewaysFlatLrc", gw);

      TrafficShaper.emulate(new long[] {s.fullNodeRate(), 0});
      json.put("fullNode", new FullNodeBench(out, progress, s).run(cluster, fs, smallestSlice()));
      if (s.stockBaseline()) {
        TrafficShaper.emulate(null);
        json.put("stockHdfs", stock(cluster, fs));
      }
    } finally {
      TrafficShaper.emulate(null);
      cluster.shutdown();
    }
  }

  private void combinedLocalityCluster(File dir) throws Exception {
    // Block tokens on: the degraded-read client, which holds no cluster secret, proves them to the slice ports. The
    // degraded reads end on this cluster and keep their unit lost while they read.
    MiniDFSCluster cluster = start(DegradedReadBench.withLostUnitsKept(base), out, dir, "cl", 8, 4,
        s.sliceSizes().get(0), true, s.blockBytes());
    try {
      DistributedFileSystem fs = cluster.getFileSystem();
      Stripe lrc = write(out, cluster, fs, LRC, 10, 4, "/bench/lrc10-cl", s.blockBytes());
      int best = (Integer) json.get("bestSliceBytes");
      TrafficShaper.emulate(new long[] {s.nodeRate(), s.nodeRate() / s.oversubscription()});
      Map<String, Object> gw = new LinkedHashMap<>();
      double direct = directSend(cluster, lrc, true, best);
      gw.put("directSendSeconds", direct);
      Map<String, Object> ra = measure(cluster, lrc, RepairScheme.RACK_AGGREGATED, best, direct);
      gw.put("rack_aggregated", ra);
      json.put("rackGatewaysCombinedLocalityLrc", gw);
      Map<String, Object> flat = (Map<String, Object>) ((Map<String, Object>) json.get("rackGatewaysFlatLrc")).get("rack_aggregated");
      Map<String, Object> flatConv = (Map<String, Object>) ((Map<String, Object>) json.get("rackGatewaysFlatLrc")).get("conventional");
      json.put("flatOverCombinedLocality", seconds(flat) / seconds(ra));
      json.put("flatConventionalOverCombinedLocality", seconds(flatConv) / seconds(ra));
      out.printf("Azure-LRC(10,2,2) flat / CL, both rack-aggregated = %.2f; flat conventional / CL = %.2f (target >= 2)%n",
          seconds(flat) / seconds(ra), seconds(flatConv) / seconds(ra));
      json.put("degradedRead", new DegradedReadBench(out, json, progress, s).run(cluster, fs, lrc));
    } finally {
      TrafficShaper.emulate(null);
      cluster.shutdown();
    }
  }

  /** The real cluster's racks (6 of 4 DataNodes): our full-node recovery against the uplink bound. */
  private void realClusterRacks(File dir) throws Exception {
    MiniDFSCluster cluster = start(dir, StripedPlacement.AUTO, FullNodeSpreadBench.RACKS, FullNodeSpreadBench.PER_RACK,
        s.sliceSizes().get(0));
    try {
      Map<String, Object> racks = new FullNodeSpreadBench(out, progress, s).run(cluster, cluster.getFileSystem(),
          smallestSlice());
      json.put("fullNodeRacks", racks);
      json.put("fullNodeOverUplinkBound", racks.get("fullNodeOverUplinkBound"));
    } finally {
      TrafficShaper.emulate(null);
      cluster.shutdown();
    }
  }

  // Full-node units are small; the smallest slice keeps the pipelines' fill short.
  private int smallestSlice() {
    int slice = s.sliceSizes().stream().min(Integer::compare).orElseThrow();
    json.put("fullNodeSliceBytes", slice);
    return slice;
  }

  private static double seconds(Object scheme) {
    return (Double) ((Map<String, Object>) scheme).get("repairSeconds");
  }

  /** One block group written under a policy: its layout, the unit we repair and where the requestor is. */
  record Stripe(String label, Path file, ErasureCodingPolicy policy, LocatedStripedBlock group, int lost,
      DataNode requestor, long lostCrc) {}

  /**
   * One full block group written under {@code codec(k,m)} at {@code path}, unit 0 to be repaired by a spare DataNode
   * in its rack; printed to {@code out}.
   */
  static Stripe write(PrintStream out, MiniDFSCluster cluster, DistributedFileSystem fs, String codec, int k, int m,
      String path, long blockBytes) throws Exception {
    ErasureCodingPolicy policy = WideEcPolicies.addAndEnable(fs, WideEcPolicies.policy(codec, k, m, CELL));
    Path file = new Path(path);
    fs.mkdirs(file.getParent());
    fs.setErasureCodingPolicy(file.getParent(), policy.getName());
    writeFile(fs, file, (long) k * blockBytes, blockBytes); // one full group
    StripedGroups.awaitSettled(cluster, fs, policy, List.of(file), 300_000);
    LocatedStripedBlock g = StripedGroups.groups(fs, file).get(0);
    int lost = 0;
    DatanodeInfo lostAt = StripedGroups.location(g, lost);
    DataNode requestor = spareInRack(cluster, g, lostAt.getNetworkLocation());
    long crc = crcOf(cluster, policy, g, lost, requestor);
    String label = codec + "(" + k + "," + m + ")";
    out.printf("%s: wrote %s, repairing unit %d (on %s, %s) at %s%n", label, file, lost, lostAt.getXferAddr(),
        lostAt.getNetworkLocation(), requestor.getDisplayName());
    return new Stripe(label, file, policy, g, lost, requestor, crc);
  }

  /** Rebuilds the stripe's unit with one scheme; checks it; returns time, cross-rack bytes and ratio. */
  private Map<String, Object> measure(MiniDFSCluster cluster, Stripe st, RepairScheme scheme, int slice, double direct)
      throws Exception {
    StripeRepair r = repairOf(st.policy, st.group, st.lost, scheme);
    // Background work, as the DataNode's worker runs every repair, whichever scheme it is configured with: its helpers
    // grant it the configured window of slices per hop, not a user's.
    RepairEngine engine = new RepairEngine(plugin(st.requestor).transport(), resolver(cluster, st.requestor),
        plugin(st.requestor).metrics(), 1).asBackground();
    CrcSink sink = new CrcSink(st.lostCrc);
    long cross = crossRackBytes(cluster);
    long t0 = System.nanoTime();
    RepairEngine.Result res = engine.repair(r, where(cluster, st.requestor), (u, len) -> sink, slice);
    double secs = (System.nanoTime() - t0) / 1e9;
    long crossBytes = crossRackBytes(cluster) - cross;
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("repairSeconds", secs);
    m.put("crossRackBytes", crossBytes);
    m.put("ratioToDirectSend", secs / direct);
    m.put("helpers", res.helpers());
    out.printf("  %-24s %-16s %7.2f s  %6.2fx direct send  %,14d bytes across racks  %d helpers%n", st.label,
        scheme.name().toLowerCase(), secs, secs / direct, crossBytes, res.helpers());
    progress.step(st.label + " " + scheme.name().toLowerCase());
    return m;
  }

  private double directSend(MiniDFSCluster cluster, Stripe st, boolean crossRack, int slice) throws Exception {
    String rack = rackOf(cluster, st.requestor);
    for (int i = 0; i < st.group.getBlockIndices().length; i++) {
      int unit = st.group.getBlockIndices()[i];
      DatanodeInfo at = st.group.getLocations()[i];
      if (unit == st.lost || (crossRack && at.getNetworkLocation().equals(rack))) {
        continue;
      }
      long len = unitLength(st.policy, st.group, st.lost);
      if (unitLength(st.policy, st.group, unit) < len) {
        continue;
      }
      SliceTransport t = plugin(st.requestor).transport();
      Endpoint e = resolver(cluster, st.requestor).resolve(new UnitLocation(unit, DataNodeSites.of(at)));
      StepRequest req = new StepRequest(ref(st.group, unit, unitLength(st.policy, st.group, unit)), 1, len, slice, 0, 1,
          List.of());
      long t0 = System.nanoTime();
      try (PeerStream in = t.open(e, where(cluster, st.requestor).node(), rack, 1, req.toBytes())) {
        for (int sl = 0; sl < req.slices(); sl++) {
          Frame f = in.next(sl);
          f.release();
          in.credit();
        }
        in.awaitEnd();
      }
      double secs = (System.nanoTime() - t0) / 1e9;
      out.printf("  %-24s %-16s %7.2f s  (%s link)%n", st.label, "direct send", secs, crossRack ? "cross-rack" : "node");
      progress.step(st.label + " direct send");
      return secs;
    }
    throw new IOException("no helper to time a direct send from");
  }

  private int bestSlice(MiniDFSCluster cluster, Stripe rs) throws Exception {
    int best = s.sliceSizes().get(0);
    double bestTime = Double.MAX_VALUE;
    double direct = directSend(cluster, rs, false, best);
    for (int slice : s.sliceSizes()) {
      out.printf("slice %d KiB:%n", slice / 1024);
      double t = seconds(measure(cluster, rs, RepairScheme.PIPELINED, slice, direct));
      if (t < bestTime) {
        bestTime = t;
        best = slice;
      }
    }
    out.printf("best slice: %d KiB%n", best / 1024);
    return best;
  }

  /** HDFS's own reconstructor, unshaped, for RS-10-4-1024k: stop the DataNode with unit 0, time the rebuild. */
  private Map<String, Object> stock(MiniDFSCluster cluster, DistributedFileSystem fs) throws Exception {
    ErasureCodingPolicy policy = SystemErasureCodingPolicies.getByID(SystemErasureCodingPolicies.RS_10_4_POLICY_ID);
    fs.enableErasureCodingPolicy(policy.getName());
    Path dir = new Path("/bench/stock");
    fs.mkdirs(dir);
    fs.setErasureCodingPolicy(dir, policy.getName());
    Path f = new Path(dir, "rs");
    writeFile(fs, f, 10 * s.blockBytes(), s.blockBytes());
    StripedGroups.awaitSettled(cluster, fs, policy, List.of(f), 300_000);
    DatanodeInfo at = StripedGroups.location(StripedGroups.groups(fs, f).get(0), 0);
    DataNode dn = cluster.getDataNodes().stream().filter(d -> d.getXferPort() == at.getXferPort()).findFirst().orElseThrow();
    long t0 = System.nanoTime();
    cluster.stopDataNode(cluster.getDataNodes().indexOf(dn));
    cluster.setDataNodeDead(dn.getDatanodeId());
    StripedGroups.awaitComplete(fs, f, policy, 600_000);
    double secs = (System.nanoTime() - t0) / 1e9;
    out.printf("  stock HDFS reconstructor, RS-10-4-1024k, unshaped: %.2f s from node loss to complete group "
        + "(includes the NameNode noticing and scheduling)%n", secs);
    progress.step("stock HDFS reconstructor");
    return Map.of("repairSeconds", secs);
  }

}
