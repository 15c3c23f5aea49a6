package org.wideec.demo;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.wideec.cli.Json;
import org.wideec.cli.Options;
import org.wideec.update.SeedSimulation;
import org.wideec.update.SyntheticVolume;
import org.wideec.update.TraceUpdate;
import org.wideec.update.UpdateScheme;
import org.wideec.update.UpdateTraceReplayer;
import org.wideec.transport.TrafficShaper;

/**
 * {@code wide-ec bench update}, the paper-faithful layer (RackCU §V-C): RS(12,4) with 4 KiB chunks on 16 nodes in 8
 * racks of 2, every node a real slice transport in this process, cross-rack links shaped at each swept rate and node
 * links --oversubscription times faster; each volume's synthetic trace replayed under baseline, CAU, Parix and
 * RackCU, every chunk of every plan moved over the transport. Reports per scheme the cross-rack bytes the transports
 * counted (checked against the plans' chunks) and the update throughput, and checks every parity against a fresh
 * encode after each replay.
 *
 * <p>{@code wide-ec bench update [--quick] [--json] [--volumes vol-4.3k,...] [--updates 1000]
 * [--cross-rack-rates 100m,200m,500m,1g] [--oversubscription 10] [--concurrency 4] [--seed 1]}; rates in bits per
 * second, as the seed's Mb/s. {@code --product} (or {@code --layers product}) runs the product-workload layer instead
 * ({@link ProductUpdateBench}, with {@code --executor client|datanode} to override wide-ec.update.executor), {@code
 * --layers both} runs the two, the product layer's figures under the last line's {@code product} object.
 */
final class UpdateBench {
  static final String LAYER = "paper-faithful, embedded (in-process slice transports, shaped cross-rack links)";
  static final List<String> SCHEMES = List.of("baseline", "cau", "parix", "rackcu");

  /** Run settings; rates in bits per second. */
  record Settings(List<SyntheticVolume> volumes, int updates, List<Long> crossRackBitsPerSecond, int oversubscription,
      int concurrency, long seed) {}

  private final Settings s;
  private final PrintStream out;
  private final BenchProgress progress;

  UpdateBench(Settings s, PrintStream out, PrintStream err) {
    this.s = s;
    this.out = out;
    this.progress = new BenchProgress(err, "bench update", s.crossRackBitsPerSecond().size() * s.volumes().size()
        * SCHEMES.size());
  }

  static int run(String[] args, PrintStream out) throws Exception {
    Settings paper = settings(args); // refuses a positional argument or a bad value of either layer's options
    Options o = new Options(args, VALUED, SWITCHES);
    String layers = layers(o);
    Map<String, Object> result = new LinkedHashMap<>();
    if (!layers.equals("product")) {
      result.putAll(new UpdateBench(paper, out, System.err).run());
    }
    if (!layers.equals("paper")) {
      String executor = o.get("executor", null);
      if (executor != null && !Set.of("client", "datanode").contains(executor)) {
        throw new Options.UsageException("--executor must be client or datanode, got '" + executor + "'");
      }
      ProductUpdateBench.Settings ps = ProductUpdateBench.Settings.of(o.has("quick"), executor);
      result.put("product", new ProductUpdateBench(ps, out, System.err).run());
    }
    if (o.has("json")) {
      out.println(Json.write(result));
    }
    return 0;
  }

  private static final Set<String> VALUED = Set.of("volumes", "updates", "cross-rack-rates", "oversubscription",
      "concurrency", "seed", "layers", "executor");
  private static final Set<String> SWITCHES = Set.of("quick", "json", "product");

  /** paper (the default), product ({@code --product} for short) or both. */
  static String layers(Options o) {
    String layers = o.get("layers", o.has("product") ? "product" : "paper");
    if (!Set.of("paper", "product", "both").contains(layers)
        || (o.has("product") && !layers.equals("product") && !layers.equals("both"))) {
      throw new Options.UsageException("--layers must be paper, product or both (--product is --layers product), got '"
          + layers + "'");
    }
    return layers;
  }

  /** @throws Options.UsageException naming the option and the value it refuses */
  static Settings settings(String[] args) {
    Options o = new Options(args, VALUED, SWITCHES);
    if (!o.positional().isEmpty()) {
      throw new Options.UsageException("bench update takes options only, got '" + o.positional().get(0) + "'");
    }
    boolean quick = o.has("quick");
    List<SyntheticVolume> volumes = new ArrayList<>();
    Map<String, SyntheticVolume> known = new LinkedHashMap<>();
    SyntheticVolume.figure6Range().forEach(v -> known.put(v.name(), v));
    for (String name : o.get("volumes", String.join(",", known.keySet())).split(",")) {
      SyntheticVolume v = known.get(name.trim());
      if (v == null) {
        throw new Options.UsageException("--volumes: no volume '" + name.trim() + "' (known: "
            + String.join(", ", known.keySet()) + ")");
      }
      volumes.add(v);
    }
    List<Long> rates = new ArrayList<>();
    for (String r : o.get("cross-rack-rates", quick ? "1g" : "100m,200m,500m,1g").split(",")) {
      rates.add(bitsPerSecond(r.trim()));
    }
    Settings s = new Settings(volumes, (int) o.getLong("updates", quick ? 100 : 1000), rates,
        (int) o.getLong("oversubscription", 10), (int) o.getLong("concurrency", 4), o.getLong("seed", 1));
    if (s.updates() < 1 || s.oversubscription() < 1 || s.concurrency() < 1) {
      throw new Options.UsageException("--updates, --oversubscription and --concurrency must be at least 1, got "
          + s.updates() + ", " + s.oversubscription() + ", " + s.concurrency());
    }
    return s;
  }

  /** A rate such as 100m or 1g: network rates are decimal (1g = 10^9 bits per second). */
  static long bitsPerSecond(String v) {
    String lower = v.toLowerCase(Locale.ROOT);
    int unit = lower.isEmpty() ? -1 : "kmg".indexOf(lower.charAt(lower.length() - 1));
    long scale = unit < 0 ? 1 : (long) Math.pow(1000, unit + 1);
    long b;
    try {
      b = Long.parseLong(unit < 0 ? lower : lower.substring(0, lower.length() - 1)) * scale;
    } catch (NumberFormatException e) {
      b = -1;
    }
    if (b < 8) {
      throw new Options.UsageException("--cross-rack-rates needs rates in bits per second such as 100m or 1g, got '"
          + v + "'");
    }
    return b;
  }

  Map<String, Object> run() throws Exception {
    Map<String, Map<String, Long>> bytes = new LinkedHashMap<>(); // scheme -> volume -> transport cross-rack bytes
    Map<String, Map<String, Object>> byRate = new LinkedHashMap<>();
    boolean allChecked = true;
    UpdateTraceReplayer model = UpdateTraceReplayer.paperFaithful();
    try (UpdateTestbed bed = new UpdateTestbed(model.placement(), 4096);
        TraceOnTestbed replayer = new TraceOnTestbed(bed, s.concurrency())) {
      warmUp(bed, replayer);
      for (long rate : s.crossRackBitsPerSecond()) {
        long rackBytes = rate / 8;
        TrafficShaper.emulate(new long[] {rackBytes * s.oversubscription(), rackBytes});
        Map<String, long[]> totals = new LinkedHashMap<>(); // scheme -> updates, nanos
        for (SyntheticVolume v : s.volumes()) {
          List<TraceUpdate> trace = v.generate(s.updates(), s.seed());
          bed.clear();
          Set<Long> stripes = replayer.writeStripes(trace, s.seed());
          for (String name : SCHEMES) {
            TraceOnTestbed.Replay r = replayer.replay(trace, UpdateScheme.byName(name), stripes, s.seed());
            boolean exact = r.transportCrossRackBytes() == r.planCrossRackChunks() * bed.chunkBytes();
            boolean whole = r.consistentStripes() == r.stripes();
            allChecked &= exact && whole;
            if (!exact || !whole) {
              out.printf(Locale.ROOT, "CHECK FAILED %s %s: transport %,d B, plans %,d chunks; %d of %d stripes "
                  + "consistent%n", v.name(), name, r.transportCrossRackBytes(), r.planCrossRackChunks(),
                  r.consistentStripes(), r.stripes());
            }
            bytes.computeIfAbsent(name, x -> new LinkedHashMap<>()).put(v.name(), r.transportCrossRackBytes());
            long[] t = totals.computeIfAbsent(name, x -> new long[2]);
            t[0] += r.updates();
            t[1] += (long) (r.seconds() * 1e9);
            progress.step(mbps(rate) + " " + v.name() + " " + name);
          }
        }
        byRate.put(mbps(rate), rateTable(rate, totals, bytes));
      }
    } finally {
      TrafficShaper.emulate(null);
    }
    return summary(bytes, byRate, allChecked);
  }

  /**
   * Every scheme once, unshaped and untimed, on the first volume's first updates: the first scheme timed would
   * otherwise pay for the JIT and for dialing every node pair (connections are kept for the timed runs).
   */
  private void warmUp(UpdateTestbed bed, TraceOnTestbed replayer) throws Exception {
    TrafficShaper.emulate(null);
    List<TraceUpdate> trace = s.volumes().get(0).generate(Math.min(s.updates(), 100), s.seed() + 1);
    Set<Long> stripes = replayer.writeStripes(trace, s.seed() + 1);
    for (String name : SCHEMES) {
      replayer.replay(trace, UpdateScheme.byName(name), stripes, s.seed() + 1);
    }
  }

  private Map<String, Object> rateTable(long rate, Map<String, long[]> totals, Map<String, Map<String, Long>> bytes) {
    out.printf(Locale.ROOT, "%ncross-rack %s, node links %dx faster; %d updates per volume, %s%n", mbps(rate),
        s.oversubscription(), s.updates(), volumeNames());
    out.printf("%-9s %18s %12s%n", "scheme", "cross-rack bytes", "updates/s");
    Map<String, Object> perScheme = new LinkedHashMap<>();
    for (Map.Entry<String, long[]> e : totals.entrySet()) {
      double ups = e.getValue()[0] / (e.getValue()[1] / 1e9);
      long b = bytes.get(e.getKey()).values().stream().mapToLong(Long::longValue).sum();
      out.printf(Locale.ROOT, "%-9s %,18d %12.1f%n", e.getKey(), b, ups);
      perScheme.put(e.getKey(), ups);
    }
    return perScheme;
  }

  private Map<String, Object> summary(Map<String, Map<String, Long>> bytes, Map<String, Map<String, Object>> byRate,
      boolean allChecked) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("layer", LAYER);
    json.put("code", "rs:k=12,m=4");
    json.put("chunkBytes", 4096);
    json.put("racks", "8 racks of 2 nodes");
    json.put("updatesPerVolume", s.updates());
    json.put("volumes", volumeNames());
    json.put("oversubscription", s.oversubscription());
    json.put("crossRackRatesMbps", new ArrayList<>(byRate.keySet()));
    json.put("concurrency", s.concurrency());
    Map<String, Object> schemes = new LinkedHashMap<>();
    for (String name : SCHEMES) {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("crossRackBytes", bytes.get(name).values().stream().mapToLong(Long::longValue).sum());
      j.put("crossRackBytesByVolume", bytes.get(name));
      Map<String, Object> ups = new LinkedHashMap<>();
      byRate.forEach((rate, m) -> ups.put(rate, m.get(name)));
      j.put("updatesPerSecondByRate", ups);
      j.put("updatesPerSecond", meanOverRates(byRate, name, null));
      schemes.put(name, j);
    }
    json.put("schemes", schemes);
    json.put("baselineOverRackcuTraffic", meanRatioOverVolumes(bytes, "baseline", "rackcu"));
    json.put("cauOverRackcuTraffic", meanRatioOverVolumes(bytes, "cau", "rackcu"));
    json.put("rackcuOverBaselineThroughput", meanOverRates(byRate, "rackcu", "baseline"));
    json.put("rackcuOverCauThroughput", meanOverRates(byRate, "rackcu", "cau"));
    json.put("transportBytesEqualPlansAndParitiesEqualFreshEncode", allChecked);
    simulation(json);
    out.printf(Locale.ROOT, "%ncross-rack traffic, mean over volumes: baseline / rackcu %.2f (target >= 2.4), cau / "
        + "rackcu %.2f (target >= 1.4); throughput rackcu / baseline %.2f (target >= 1.3, 1:%d), mean over rates; "
        + "transport bytes = plans' chunks x 4 KiB and every parity = fresh encode: %s%n",
        json.get("baselineOverRackcuTraffic"), json.get("cauOverRackcuTraffic"), json.get("rackcuOverBaselineThroughput"),
        s.oversubscription(), allChecked ? "yes" : "NO");
    return json;
  }

  /**
   * The same volumes in the seed's simulation setting (§V-B, where its average reductions come from: 10 racks of 20
   * nodes, a drawn layout per stripe, ten runs), counted by the model as the seed's simulation counts them, with no
   * transport: {@code simulation} and its two traffic ratios at the top level.
   */
  private void simulation(Map<String, Object> json) {
    SeedSimulation.Result r = SeedSimulation.run(s.volumes(), s.updates(), s.seed(), SIMULATION_RUNS);
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("layer", "the seed's simulation (RackCU §V-B): model only, RS(12,4) in 10 racks of 20 nodes, a drawn layout"
        + " per stripe with data and parity racks apart");
    j.put("runs", r.runs());
    Map<String, Object> bytes = new LinkedHashMap<>();
    r.crossRackChunks().forEach((scheme, chunks) -> bytes.put(scheme, chunks * 4096));
    j.put("crossRackBytes", bytes);
    j.put("reductionOverBaseline", round(r.reductionOverBaseline()));
    j.put("reductionOverCau", round(r.reductionOverCau()));
    j.put("baselineOverRackcuTraffic", round(r.baselineOverRackcu()));
    j.put("cauOverRackcuTraffic", round(r.cauOverRackcu()));
    json.put("simulation", j);
    json.put("simulationBaselineOverRackcuTraffic", j.get("baselineOverRackcuTraffic"));
    json.put("simulationCauOverRackcuTraffic", j.get("cauOverRackcuTraffic"));
    out.printf(Locale.ROOT, "the seed's simulation setting (10 racks of 20, drawn layouts, %d runs, model only): "
        + "baseline / rackcu %.2f, cau / rackcu %.2f (reductions %.1f %% and %.1f %%; the seed's 58.9 %% and 29.8 %%)%n",
        r.runs(), r.baselineOverRackcu(), r.cauOverRackcu(), 100 * r.reductionOverBaseline(),
        100 * r.reductionOverCau());
  }

  /** The seed repeats each simulation ten times (§V-B). */
  private static final int SIMULATION_RUNS = 10;

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }

  /** The mean over rates of a scheme's updates/s, or of its ratio to another scheme's. */
  private static double meanOverRates(Map<String, Map<String, Object>> byRate, String scheme, String over) {
    double sum = 0;
    for (Map<String, Object> m : byRate.values()) {
      double v = (Double) m.get(scheme);
      sum += over == null ? v : v / (Double) m.get(over);
    }
    return sum / byRate.size();
  }

  private static double meanRatioOverVolumes(Map<String, Map<String, Long>> bytes, String a, String b) {
    double sum = 0;
    for (Map.Entry<String, Long> e : bytes.get(a).entrySet()) {
      sum += (double) e.getValue() / bytes.get(b).get(e.getKey());
    }
    return sum / bytes.get(a).size();
  }

  private String volumeNames() {
    return String.join(",", s.volumes().stream().map(SyntheticVolume::name).toList());
  }

  private static String mbps(long bitsPerSecond) {
    return String.format(Locale.ROOT, "%d Mb/s", bitsPerSecond / 1_000_000);
  }
}
