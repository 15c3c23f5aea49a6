package org.wideec.demo;

import java.io.File;
import java.io.PrintStream;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.wideec.cli.Json;
import org.wideec.cli.Options;
import org.wideec.placement.StripedPlacement;
import org.wideec.transport.TrafficShaper;

/**
 * {@code wide-ec bench ops}: the day-two figures, each measured on its own embedded racked cluster in one run. Full-node
 * recovery against the uplink bound and foreground reads during a recovery come from the repair benchmark (its
 * combined-locality and real-rack clusters, whose figures are kept whole under {@code "repair"}); decommission from
 * {@link DecommissionBench} on the real cluster's racks; scrubbing from
 * {@link ScrubMeasurement} (silent corruptions injected, one scrubber pass, repair from the units that agree). The last
 * line is one JSON object with the ratios at its top level.
 */
final class OpsBench {
  private OpsBench() {}

  static int run(Configuration conf, String[] args, PrintStream out) throws Exception {
    Options o = new Options(args, Set.of("scrub-corruptions", "scrub-block-size", "decommission-groups"), Set.of("json", "quick"));
    if (!o.positional().isEmpty()) {
      throw new Options.UsageException("bench ops takes options only, got '" + o.positional().get(0) + "'");
    }
    boolean quick = o.has("quick");
    int corruptions = (int) o.getLong("scrub-corruptions", quick ? 4 : 16);
    int groups = (int) o.getLong("decommission-groups", quick ? 12 : 50);
    long scrubBlock = BenchCommand.bytes(o.get("scrub-block-size", quick ? "1m" : "4m"), "scrub-block-size");
    if (corruptions < 1) {
      throw new Options.UsageException("--scrub-corruptions must be at least 1");
    }
    if (groups < 1) {
      throw new Options.UsageException("--decommission-groups must be at least 1");
    }
    Map<String, Object> j = new LinkedHashMap<>();
    // The repair benchmark's own defaults (quick or not), without HDFS's reconstructor: no ops figure uses it.
    RepairBench.Settings settings = BenchCommand.repairSettings(new Options(
        quick ? new String[] {"--quick", "--no-stock"} : new String[] {"--no-stock"}, Set.of(), Set.of("quick",
            "no-stock")));
    Map<String, Object> repair = new RepairBench(conf, out, settings).run();
    for (String key : List.of("fullNodeOverUplinkBound", "foregroundFractionWithCaps", "foregroundFractionWithoutCaps")) {
      j.put(key, repair.get(key));
    }
    File dir = Files.createTempDirectory("wide-ec-bench-ops").toFile();
    Map<String, Object> decommission;
    try {
      decommission = decommission(conf, new File(dir, "decommission"), settings, groups, out);
      j.put("decommissionStockOverOurs", decommission.get("decommissionStockOverOurs"));
      j.put("decommissionGlobalOverLocal", decommission.get("decommissionGlobalOverLocal"));
      j.putAll(ScrubMeasurement.run(new File(dir, "scrub"), corruptions, scrubBlock, out));
    } finally {
      FileUtil.fullyDelete(dir);
    }
    j.put("repair", repair);
    j.put("decommission", decommission);
    out.printf("%ndecommission stock / ours %.2f (target >= 3), from k units / ours %.2f (target >= 1.5); full-node"
            + " recovery / uplink bound %.2f (target <= 1.25); foreground during recovery %.2f of idle with"
            + " caps (target >= 0.80), %.2f without; scrub found %s of %s injected, repaired %s, cross-rack %.4f of the"
            + " stripes' bytes (target <= 0.01)%n", num(j, "decommissionStockOverOurs"),
        num(j, "decommissionGlobalOverLocal"), num(j, "fullNodeOverUplinkBound"), num(j, "foregroundFractionWithCaps"),
        num(j, "foregroundFractionWithoutCaps"), j.get("scrubDetected"), j.get("scrubInjected"), j.get("scrubRepaired"),
        num(j, "scrubCrossRackFraction"));
    if (o.has("json")) {
      out.println(Json.write(j));
    }
    return 0;
  }

  /**
   * One DataNode's units of {@code groups} Azure-LRC(12,2,2) groups moved off it three ways ({@link DecommissionBench})
   * on the real cluster's racks (6 of 4 DataNodes, combined locality) with the repair benchmark's node links and rack
   * uplinks: stock copy from the leaving node, reconstruction from k units, local reconstruction.
   */
  private static Map<String, Object> decommission(Configuration conf, File dir, RepairBench.Settings s, int groups,
      PrintStream out) throws Exception {
    long unit = 1024 * 1024;
    int slice = s.sliceSizes().stream().min(Integer::compare).orElseThrow();
    MiniDFSCluster cluster = RepairBench.start(conf, out, dir, StripedPlacement.AUTO, FullNodeSpreadBench.RACKS,
        FullNodeSpreadBench.PER_RACK, slice, false, unit);
    try {
      TrafficShaper.emulate(new long[] {s.nodeRate(), s.nodeRate() / s.oversubscription()});
      return new DecommissionBench(out, new BenchProgress(System.err, "bench ops: decommission", 3)).run(cluster,
          cluster.getFileSystem(), RepairBench.LRC, 12, 4, groups, unit, slice);
    } finally {
      TrafficShaper.emulate(null);
      cluster.shutdown();
    }
  }

  private static double num(Map<String, Object> j, String key) {
    return ((Number) j.get(key)).doubleValue();
  }
}
