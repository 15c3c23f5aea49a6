package org.wideec.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.StringUtils.TraditionalBinaryPrefix;
import org.wideec.demo.RepairBench;

/** {@code wide-ec bench repair}: end-to-end repair benchmark on embedded clusters with shaped links. */
final class BenchCommand {
  private final Configuration conf;
  private final PrintStream out;

  BenchCommand(Configuration conf, PrintStream out) {
    this.conf = conf;
    this.out = out;
  }

  int run(String[] args) throws Exception {
    Options o = new Options(args, Set.of("block-size", "node-rate", "oversubscription", "slices", "full-node-stripes",
        "full-node-block-size", "full-node-rate"), Set.of("json", "quick", "no-stock"));
    if (o.positional().size() != 1 || !o.positional().get(0).equals("repair")) {
      throw new Options.UsageException("bench takes one benchmark: repair");
    }
    boolean quick = o.has("quick");
    List<Integer> slices = new ArrayList<>();
    for (String sl : o.get("slices", quick ? "256k" : "64k,256k,1m").split(",")) {
      slices.add((int) bytes(sl.trim(), "slices"));
    }
    RepairBench.Settings s = new RepairBench.Settings(bytes(o.get("block-size", quick ? "8m" : "32m"), "block-size"),
        bytes(o.get("node-rate", "25m"), "node-rate"), (int) o.getLong("oversubscription", 10), slices,
        (int) o.getLong("full-node-stripes", quick ? 8 : 16), bytes(o.get("full-node-block-size", quick ? "2m" : "4m"),
        "full-node-block-size"), bytes(o.get("full-node-rate", "5m"), "full-node-rate"), !o.has("no-stock"));
    if (s.blockBytes() % (1024 * 1024) != 0 || s.fullNodeBlockBytes() % (1024 * 1024) != 0) {
      throw new Options.UsageException("block sizes must be whole MiB (the benchmark's policies use 1 MiB cells)");
    }
    if (s.oversubscription() < 1 || s.nodeRate() <= 0 || s.fullNodeRate() <= 0) {
      throw new Options.UsageException("rates must be positive and --oversubscription at least 1");
    }
    Map<String, Object> result = new RepairBench(conf, out, s).run();
    if (o.has("json")) {
      out.println(Json.write(result));
    }
    return 0;
  }

  private static long bytes(String v, String name) {
    try {
      return TraditionalBinaryPrefix.string2long(v);
    } catch (IllegalArgumentException e) {
      throw new Options.UsageException("--" + name + " needs a size like 256k or 32m, got '" + v + "'");
    }
  }
}
