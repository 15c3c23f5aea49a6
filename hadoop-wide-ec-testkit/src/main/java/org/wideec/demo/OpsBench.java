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
import org.wideec.cli.Json;
import org.wideec.cli.Options;

/**
 * {@code wide-ec bench ops}: the day-two figures, each measured on its own embedded racked cluster in one run. Full-node
 * recovery against the uplink bound and foreground reads during a recovery come from the repair benchmark (its
 * combined-locality and real-rack clusters, whose figures are kept whole under {@code "repair"}); scrubbing from
 * {@link ScrubMeasurement} (silent corruptions injected, one scrubber pass, repair from the units that agree). The last
 * line is one JSON object with the ratios at its top level.
 */
final class OpsBench {
  private OpsBench() {}

  static int run(Configuration conf, String[] args, PrintStream out) throws Exception {
    Options o = new Options(args, Set.of("scrub-corruptions", "scrub-block-size"), Set.of("json", "quick"));
    if (!o.positional().isEmpty()) {
      throw new Options.UsageException("bench ops takes options only, got '" + o.positional().get(0) + "'");
    }
    boolean quick = o.has("quick");
    int corruptions = (int) o.getLong("scrub-corruptions", quick ? 4 : 16);
    long scrubBlock = BenchCommand.bytes(o.get("scrub-block-size", quick ? "1m" : "4m"), "scrub-block-size");
    if (corruptions < 1) {
      throw new Options.UsageException("--scrub-corruptions must be at least 1");
    }
    Map<String, Object> j = new LinkedHashMap<>();
    // The repair benchmark's own defaults (quick or not), without HDFS's reconstructor: no ops figure uses it.
    Map<String, Object> repair = new RepairBench(conf, out, BenchCommand.repairSettings(new Options(
        quick ? new String[] {"--quick", "--no-stock"} : new String[] {"--no-stock"}, Set.of(), Set.of("quick",
            "no-stock")))).run();
    for (String key : List.of("fullNodeOverUplinkBound", "foregroundFractionWithCaps", "foregroundFractionWithoutCaps")) {
      j.put(key, repair.get(key));
    }
    File dir = Files.createTempDirectory("wide-ec-bench-ops").toFile();
    try {
      j.putAll(ScrubMeasurement.run(new File(dir, "scrub"), corruptions, scrubBlock, out));
    } finally {
      FileUtil.fullyDelete(dir);
    }
    j.put("repair", repair);
    out.printf("%nfull-node recovery / uplink bound %.2f (target <= 1.25); foreground during recovery %.2f of idle with"
            + " caps (target >= 0.80), %.2f without; scrub found %s of %s injected, repaired %s, cross-rack %.4f of the"
            + " stripes' bytes (target <= 0.01)%n", num(j, "fullNodeOverUplinkBound"), num(j, "foregroundFractionWithCaps"),
        num(j, "foregroundFractionWithoutCaps"), j.get("scrubDetected"), j.get("scrubInjected"), j.get("scrubRepaired"),
        num(j, "scrubCrossRackFraction"));
    if (o.has("json")) {
      out.println(Json.write(j));
    }
    return 0;
  }

  private static double num(Map<String, Object> j, String key) {
    return ((Number) j.get(key)).doubleValue();
  }
}
