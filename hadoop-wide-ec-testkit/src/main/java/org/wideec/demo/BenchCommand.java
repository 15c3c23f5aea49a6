package org.wideec.demo;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.StringUtils.TraditionalBinaryPrefix;
import org.wideec.cli.Json;
import org.wideec.cli.Options;
import org.wideec.cli.ResultsFile;

/** {@code wide-ec bench repair}: end-to-end repair benchmark on embedded clusters with shaped links; the other benchmarks are delegated. */
public final class BenchCommand {
  private final Configuration conf;
  private final PrintStream out;

  BenchCommand(Configuration conf, PrintStream out) {
    this.conf = conf;
    this.out = out;
  }

  /** {@code wide-ec bench}, found by the product's tool through META-INF/services. */
  public static final class Provider extends KitCommandProvider {
    public Provider() {
      super("bench", (conf, out, args) -> new BenchCommand(conf, out).run(args));
    }
  }

  int run(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("encode")) {
      return EncodeBench.run(java.util.Arrays.copyOfRange(args, 1, args.length), out);
    }
    if (args.length > 0 && args[0].equals("cluster")) {
      return org.wideec.cluster.ClusterBench.run(conf, java.util.Arrays.copyOfRange(args, 1, args.length), out);
    }
    if (args.length > 0 && args[0].equals("update")) {
      return UpdateBench.run(java.util.Arrays.copyOfRange(args, 1, args.length), out);
    }
    if (args.length > 0 && args[0].equals("archive")) {
      return ArchiveBench.run(java.util.Arrays.copyOfRange(args, 1, args.length), out);
    }
    if (args.length > 0 && args[0].equals("ops")) {
      return OpsBench.run(conf, java.util.Arrays.copyOfRange(args, 1, args.length), out);
    }
    Options o = new Options(args, Set.of("block-size", "node-rate", "oversubscription", "slices", "full-node-stripes",
        "full-node-block-size", "full-node-rate", "results"), Set.of("json", "quick", "no-stock", "full-node-only"));
    if (o.positional().size() != 1 || !o.positional().get(0).equals("repair")) {
      throw new Options.UsageException("bench takes one benchmark: repair, encode, archive, update, ops or cluster");
    }
    RepairBench.Settings s = repairSettings(o);
    if (s.blockBytes() % (1024 * 1024) != 0 || s.fullNodeBlockBytes() % (1024 * 1024) != 0) {
      throw new Options.UsageException("block sizes must be whole MiB (the benchmark's policies use 1 MiB cells)");
    }
    if (s.oversubscription() < 1 || s.nodeRate() <= 0 || s.fullNodeRate() <= 0) {
      throw new Options.UsageException("rates must be positive and --oversubscription at least 1");
    }
    Map<String, Object> result = new RepairBench(conf, out, s).run();
    if (o.has("results") && o.has("full-node-only")) {
      throw new Options.UsageException("--results records a complete run; drop --full-node-only");
    }
    if (o.has("results")) {
      ResultsFile.writeSection(java.nio.file.Path.of(o.get("results", "")), markdown(result, args));
      out.println("wrote the repair section of " + o.get("results", ""));
    }
    if (o.has("json")) {
      out.println(Json.write(result));
    }
    return 0;
  }

  /** The repair benchmark's settings from {@code bench repair}'s options (or their defaults, quick or not). */
  static RepairBench.Settings repairSettings(Options o) {
    boolean quick = o.has("quick");
    List<Integer> slices = new ArrayList<>();
    for (String sl : o.get("slices", quick ? "256k" : "64k,256k,1m").split(",")) {
      slices.add((int) bytes(sl.trim(), "slices"));
    }
    return new RepairBench.Settings(bytes(o.get("block-size", quick ? "8m" : "32m"), "block-size"),
        bytes(o.get("node-rate", "25m"), "node-rate"), (int) o.getLong("oversubscription", 10), slices,
        (int) o.getLong("full-node-stripes", quick ? 8 : 16), bytes(o.get("full-node-block-size", quick ? "2m" : "4m"),
        "full-node-block-size"), bytes(o.get("full-node-rate", "5m"), "full-node-rate"),
        !o.has("no-stock") && !o.has("full-node-only"), !o.has("full-node-only"));
  }

  /** The "# Repair benchmarks" section of benchmarks/RESULTS.md. */
  @SuppressWarnings("unchecked")
  static String markdown(Map<String, Object> r, String[] args) {
    StringBuilder md = new StringBuilder("# Repair benchmarks\n\n");
    md.append("Written by `bin/wide-ec bench ").append(String.join(" ", args)).append("` on ")
        .append(java.time.ZonedDateTime.now().withNano(0)).append(".\n\n");
    md.append("- machine: ").append(ResultsFile.machine()).append('\n');
    md.append(String.format(java.util.Locale.ROOT, "- units of %d MiB; node links %.1f MB/s; rack gateways %.2f MB/s "
        + "(in and out of a rack share one; racks are not shaped in the node-links runs); best slice %d KiB; every "
        + "rebuilt unit matched its replica's CRC32C%n",
        ((Number) r.get("blockBytes")).longValue() >> 20, ((Number) r.get("nodeBytesPerSecond")).doubleValue() / 1e6,
        ((Number) r.get("rackBytesPerSecond")).doubleValue() / 1e6, ((Number) r.get("bestSliceBytes")).intValue() / 1024));
    md.append("\n## Target ratios\n\n| ratio | value | target |\n|---|---|---|\n");
    Map<String, Object> nodeLinks = (Map<String, Object>) r.get("nodeLinks");
    for (Map.Entry<String, Object> code : nodeLinks.entrySet()) {
      Map<String, Object> pipe = (Map<String, Object>) ((Map<String, Object>) code.getValue()).get("pipelined");
      md.append(row("pipelined / direct send, " + code.getKey(), pipe.get("ratioToDirectSend"), "<= 1.2"));
    }
    md.append(row("conventional / pipelined, RS(10,4)", r.get("conventionalOverPipelinedRs"), ">= 6 (0.6 k)"));
    Map<String, Object> cl = (Map<String, Object>) ((Map<String, Object>) r.get("rackGatewaysCombinedLocalityLrc"))
        .get("rack_aggregated");
    md.append(row("cross-rack units, CL rack-aggregated, Azure-LRC(10,2,2)",
        ((Number) cl.get("crossRackBytes")).doubleValue() / ((Number) r.get("blockBytes")).doubleValue(), "= (r+1)/f - 1 = 1"));
    md.append(row("flat rack-aggregated / CL rack-aggregated", r.get("flatOverCombinedLocality"), ">= 2"));
    md.append(row("flat conventional / CL rack-aggregated", r.get("flatConventionalOverCombinedLocality"), ">= 2"));
    Map<String, Object> four = (Map<String, Object>) ((Map<String, Object>) r.get("fullNode")).get("4");
    md.append(row("full-node rate with / without LRS, 4 requestors", four.get("gain"), ">= 1.10"));
    md.append(row("full-node recovery over the racks / uplink bound, Azure-LRC(12,2,2), 6 racks of 4",
        r.get("fullNodeOverUplinkBound"), "<= 1.25"));
    md.append(row("degraded read (pipelined, WideEcFileSystem) / normal read, 1 MiB cell", r.get("degradedReadOverNormal"),
        "<= 1.3"));
    md.append(row("direct decode / pipelined degraded read, 1 MiB cell", r.get("degradedReadDirectOverPipelined"),
        "none (the star brings the client one range per helper)"));
    md.append(row("degraded read (WideEcFileSystem) during the unit's repair / normal read, 1 MiB cell, uplinks shaped",
        r.get("degradedReadDuringRepairOverNormal"), "<= 1.3"));
    md.append(row("foreground read during a group's recovery / idle, background capped at 0.2 of a node link and of a rack uplink",
        r.get("foregroundFractionWithCaps"), ">= 0.8"));
    md.append(row("foreground read during a group's recovery / idle, no caps", r.get("foregroundFractionWithoutCaps"),
        "none (the baseline of the capped figure)"));
    md.append("\n## Single-unit repair\n\n| links | code | scheme | seconds | x direct send | bytes across racks |\n"
        + "|---|---|---|---|---|---|\n");
    for (Map.Entry<String, Object> code : nodeLinks.entrySet()) {
      schemeRows(md, "node links", code.getKey(), (Map<String, Object>) code.getValue());
    }
    schemeRows(md, "rack gateways", "azure-lrc-l2(10,4) flat", (Map<String, Object>) r.get("rackGatewaysFlatLrc"));
    schemeRows(md, "rack gateways", "azure-lrc-l2(10,4) CL", (Map<String, Object>) r.get("rackGatewaysCombinedLocalityLrc"));
    if (r.containsKey("stockHdfs")) {
      md.append(String.format(java.util.Locale.ROOT, "| none | RS-10-4-1024k | HDFS stock reconstructor | %.2f | | |%n",
          ((Number) ((Map<String, Object>) r.get("stockHdfs")).get("repairSeconds")).doubleValue()));
    }
    md.append(degradedReads((Map<String, Object>) r.get("degradedRead")));
    md.append(String.format(java.util.Locale.ROOT, "%n## Full-node recovery (RS(10,4) groups, units of %d MiB, node links "
        + "%.1f MB/s, slices of %d KiB)%n%nAll lost units at once; without scheduling the helpers are the k with the "
        + "smallest node index (ECPipe §6's baseline).%n%n| requestors | MB/s node order | MB/s least recently selected "
        + "| gain | units on the busiest link (node order / LRS) |%n|---|---|---|---|---|%n",
        ((Number) r.get("fullNodeBlockBytes")).longValue() >> 20, ((Number) r.get("fullNodeBytesPerSecond")).doubleValue() / 1e6,
        ((Number) r.get("fullNodeSliceBytes")).intValue() / 1024));
    for (Map.Entry<String, Object> q : ((Map<String, Object>) r.get("fullNode")).entrySet()) {
      Map<String, Object> v = (Map<String, Object>) q.getValue();
      md.append(String.format(java.util.Locale.ROOT, "| %s | %.2f | %.2f | %.2f | %s / %s |%n", q.getKey(),
          ((Number) v.get("recoveryMBpsWithoutScheduling")).doubleValue(),
          ((Number) v.get("recoveryMBpsWithScheduling")).doubleValue(), ((Number) v.get("gain")).doubleValue(),
          v.get("busiestLinkUnitsWithoutScheduling"), v.get("busiestLinkUnitsWithScheduling")));
    }
    md.append(fullNodeRacks((Map<String, Object>) r.get("fullNodeRacks")));
    return md.toString();
  }

  /** The full-node recovery over racks: measured and predicted times against the uplink bound. */
  static String fullNodeRacks(Map<String, Object> f) {
    return String.format(java.util.Locale.ROOT, "%n## Full-node recovery over racks (Azure-LRC(12,2,2) under combined "
        + "locality, 6 racks of 4 DataNodes, rack gateways shaped)%n%nEvery unit of the DataNode holding the most (%d "
        + "units of %,d bytes) rebuilt at once by rack-aggregated chains; %,d bytes must cross racks.%n%n"
        + "| rebuilt in | seconds | predicted (busiest gateway) | x uplink bound |%n|---|---|---|---|%n"
        + "| racks the full-node planner spreads them over (%d racks) | %.2f | %.2f | %.2f |%n"
        + "| their planned racks | %.2f | %.2f | %.2f |%n| uplink bound | %.2f | | 1.00 |%n",
        ((Number) f.get("lostUnits")).intValue(), ((Number) f.get("unitBytes")).longValue(),
        ((Number) f.get("mustCrossRackBytes")).longValue(), ((Number) f.get("racksOfRebuiltUnits")).intValue(),
        ((Number) f.get("recoverySeconds")).doubleValue(), ((Number) f.get("predictedSeconds")).doubleValue(),
        ((Number) f.get("fullNodeOverUplinkBound")).doubleValue(),
        ((Number) f.get("recoverySecondsPlannedRacks")).doubleValue(),
        ((Number) f.get("predictedSecondsPlannedRacks")).doubleValue(),
        ((Number) f.get("plannedRacksOverUplinkBound")).doubleValue(), ((Number) f.get("uplinkBoundSeconds")).doubleValue());
  }

  /** The degraded-read table: shaped slice-stream times of one cell, and the same reads unshaped through HDFS. */
  @SuppressWarnings("unchecked")
  static String degradedReads(Map<String, Object> d) {
    double normal = ((Number) d.get("normalReadSeconds")).doubleValue();
    StringBuilder md = new StringBuilder(String.format(java.util.Locale.ROOT, "%n## Degraded reads (Azure-LRC(10,2,2) "
        + "placed by combined locality, a %d KiB cell of a lost data unit, %d KiB slices, node links shaped)%n%n"
        + "The client (WideEcFileSystem) is the requestor. HDFS's data transfer is not shaped by our shaper, so the normal "
        + "read and the direct decode are timed over the same shaped slice transport: the normal read as the healthy "
        + "unit's DataNode streaming its cell unchanged, the direct decode as the star of the same helpers to the client. "
        + "Medians of 5 runs after a warm-up.%n%n| read | seconds | x normal read |%n|---|---|---|%n",
        ((Number) d.get("rangeBytes")).intValue() / 1024, ((Number) d.get("sliceBytes")).intValue() / 1024));
    String[][] rows = {{"normal read (healthy unit, one stream)", "normalReadSeconds"},
        {"pipelined, through WideEcFileSystem", "pipelinedSeconds"},
        {"direct decode (star of the same helpers)", "directStarSeconds"}, {"cyclic (rotations of the chain)", "cyclicSeconds"}};
    for (String[] row : rows) {
      double v = ((Number) d.get(row[1])).doubleValue();
      md.append(String.format(java.util.Locale.ROOT, "| %s | %.3f | %.2f |%n", row[0], v, v / normal));
    }
    md.append(String.format(java.util.Locale.ROOT, "%nFixed costs (a %d-byte range, almost nothing to move): one stream "
        + "%.3f s, the chain %.3f s (each hop connects, authenticates and asks its upstream in turn).%n",
        ((Number) d.get("probeBytes")).intValue(), ((Number) d.get("streamSetupSeconds")).doubleValue(),
        ((Number) d.get("chainSetupSeconds")).doubleValue()));
    Map<String, Object> hdfs = (Map<String, Object>) d.get("unshapedHdfs");
    md.append(String.format(java.util.Locale.ROOT, "%nUnshaped, through HDFS (CPU-bound on one machine; for orientation): "
        + "normal read %.3f s, pipelined %.3f s, direct decode %.3f s.%n",
        ((Number) hdfs.get("normalReadSeconds")).doubleValue(), ((Number) hdfs.get("pipelinedSeconds")).doubleValue(),
        ((Number) hdfs.get("directDecodeSeconds")).doubleValue()));
    return md.toString();
  }

  private static String row(String what, Object value, String target) {
    return String.format(java.util.Locale.ROOT, "| %s | %.2f | %s |%n", what, ((Number) value).doubleValue(), target);
  }

  @SuppressWarnings("unchecked")
  private static void schemeRows(StringBuilder md, String links, String code, Map<String, Object> schemes) {
    md.append(String.format(java.util.Locale.ROOT, "| %s | %s | direct send | %.2f | 1.00 | |%n", links, code,
        ((Number) schemes.get("directSendSeconds")).doubleValue()));
    for (Map.Entry<String, Object> e : schemes.entrySet()) {
      if (e.getValue() instanceof Map<?, ?> m) {
        Map<String, Object> v = (Map<String, Object>) m;
        md.append(String.format(java.util.Locale.ROOT, "| %s | %s | %s | %.2f | %.2f | %,d |%n", links, code, e.getKey(),
            ((Number) v.get("repairSeconds")).doubleValue(), ((Number) v.get("ratioToDirectSend")).doubleValue(),
            ((Number) v.get("crossRackBytes")).longValue()));
      }
    }
  }

  static long bytes(String v, String name) {
    try {
      return TraditionalBinaryPrefix.string2long(v);
    } catch (IllegalArgumentException e) {
      throw new Options.UsageException("--" + name + " needs a size like 256k or 32m, got '" + v + "'");
    }
  }
}
