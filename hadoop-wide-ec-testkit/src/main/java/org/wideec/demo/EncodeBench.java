package org.wideec.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.zip.CRC32C;
import org.apache.hadoop.util.StringUtils.TraditionalBinaryPrefix;
import org.wideec.engine.EncodeExecutor;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.archive.encode.EncodePlanner;
import org.wideec.archive.encode.EncodeStripe;
import org.wideec.topology.Site;
import org.wideec.cli.Options;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.coder.ErasureCoder;
import org.wideec.placement.CombinedLocalityPlanner;
import org.wideec.repair.BlockRef;
import org.wideec.transport.TrafficShaper;
import org.wideec.transport.TransportConf;

/**
 * The first encoding measurement: one wide stripe archived by the classic encoder (one node pulls k units and
 * encodes) and by the chain (ECWide §4.2 multi-node encoding), on in-process nodes whose slice transports are real
 * (loopback, authenticated and tagged frames) and whose links are shaped as in the repair benchmark: every node's NIC
 * at --node-rate each way, rack uplinks at node-rate / --oversubscription when given (racks unshaped otherwise, like
 * the repair benchmark's node-link runs). The stripe is laid out by combined locality, unit u on node n{u}. A parity
 * sent from a collector to a target on another node (HDFS: a block written there) reserves the same emulated links.
 *
 * <p>Each encoder is warmed up unshaped, then timed: the median of --runs shaped runs. Every run's parities are checked
 * (CRC32C) against the Java coder's encode of the same data, and every run's cross-rack bytes (counted by the
 * transports, plus deliveries) against the plan's prediction: a mismatch stops the benchmark.
 *
 * <p>{@code java ... org.wideec.demo.EncodeBench [--quick] [--unit-size 64m] [--node-rate 25m] [--oversubscription N]
 * [--slice 64k] [--classic-slice 256k] [--runs 3] [--codes SPEC,SPEC] [--encoders classic,chain,rack-tree]
 * [--auth hmac|none] [--json]}
 */
public final class EncodeBench {
  static final long MIB = 1 << 20;
  /** Distinct random units kept in memory at most; units beyond share them (the parity check still holds). */
  static final long DATA_BUDGET = 1L << 30;
  static final byte[] SECRET = "wide-ec encode benchmark secret".getBytes(StandardCharsets.UTF_8);

  /** Run settings; rates in bytes per second (rack 0 = unshaped). */
  public record Settings(List<String> codes, long unitBytes, long nodeRate, long rackRate, int chainSlice,
      int classicSlice, int runs, boolean auth, List<String> encoders) {}

  private final Settings s;
  private final PrintStream out;
  private final BenchProgress progress;

  public EncodeBench(Settings s, PrintStream out) {
    this(s, out, null);
  }

  /** @param progress where steps are reported (null: a progress of this benchmark's own) */
  EncodeBench(Settings s, PrintStream out, BenchProgress progress) {
    this.s = s;
    this.out = out;
    if (progress != null) {
      this.progress = progress;
      return;
    }
    // Every code runs each chosen encoder once unshaped (warm-up), then s.runs() times shaped.
    long encoders = s.encoders().stream().filter(ENCODERS::contains).distinct().count();
    this.progress = new BenchProgress(System.err, "bench encode", (int) (s.codes().size() * encoders * (s.runs() + 1)));
  }

  private static final List<String> ENCODERS = List.of("classic", "chain", "rack-tree");

  public static void main(String[] args) throws Exception {
    run(args, System.out);
  }

  /** {@code wide-ec bench encode [options]} (and {@link #main}): runs and prints, JSON last with --json. */
  static int run(String[] args, PrintStream out) throws Exception {
    Options o = new Options(args, Set.of("unit-size", "node-rate", "oversubscription", "slice", "classic-slice", "runs",
        "codes", "auth", "encoders"), Set.of("quick", "json"));
    if (!o.positional().isEmpty()) {
      throw new Options.UsageException("bench encode takes options only, got '" + o.positional().get(0) + "'");
    }
    boolean quick = o.has("quick");
    long nodeRate = bytes(o.get("node-rate", "25m"));
    long over = o.getLong("oversubscription", 0);
    Settings s = new Settings(List.of(o.get("codes", "rs:k=64,m=4,azure-lrc:k=64,l=4,g=4").split(",(?=[a-z+-]+:)")),
        bytes(o.get("unit-size", quick ? "8m" : "64m")), nodeRate, over > 0 ? nodeRate / over : 0,
        (int) bytes(o.get("slice", "64k")), (int) bytes(o.get("classic-slice", "256k")),
        (int) o.getLong("runs", 3), !o.get("auth", "hmac").equals("none"),
        List.of(o.get("encoders", "classic,chain,rack-tree").split(",")));
    for (String e : s.encoders()) {
      if (!ENCODERS.contains(e)) {
        throw new Options.UsageException("--encoders takes classic, chain or rack-tree, not '" + e + "'");
      }
    }
    Map<String, Object> result = new EncodeBench(s, out).run();
    if (o.has("json")) {
      out.println(new ObjectMapper().writeValueAsString(result));
    }
    return 0;
  }

  static long bytes(String v) {
    return TraditionalBinaryPrefix.string2long(v.trim());
  }

  public Map<String, Object> run() throws Exception {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("unitBytes", s.unitBytes());
    json.put("nodeBytesPerSecond", s.nodeRate());
    json.put("rackBytesPerSecond", s.rackRate());
    json.put("chainSliceBytes", s.chainSlice());
    json.put("classicSliceBytes", s.classicSlice());
    json.put("runs", s.runs());
    json.put("frameAuthentication", s.auth());
    json.put("coder", org.wideec.coder.Kernels.describe());
    Map<String, Object> codes = new LinkedHashMap<>();
    for (String spec : s.codes()) {
      codes.put(spec, code(Codes.pinnedFromSpec(spec)));
    }
    json.put("codes", codes);
    Map<String, Object> first = (Map<String, Object>) codes.values().iterator().next();
    json.put("classicOverChain", first.get("classicOverChain"));
    return json;
  }

  /** One code's stripe encoded by each chosen encoder (the archive benchmark's wide scenario too). */
  Map<String, Object> code(LinearCode code) throws Exception {
    long[] lengths = new long[code.k()];
    java.util.Arrays.fill(lengths, s.unitBytes());
    EncodeStripe stripe = EncodeStripe.placed("bench-" + code.spec(), new CombinedLocalityPlanner().plan(code), lengths,
        u -> "n" + u);
    byte[][] data = data(code.k());
    out.printf("%s: %d data units of %d MiB in %d racks, node links %.1f MB/s, %s; computing the expected parities%n",
        code.spec(), code.k(), s.unitBytes() / MIB, stripe.holders().values().stream().map(Site::rack).distinct().count(),
        s.nodeRate() / 1e6, s.rackRate() > 0 ? String.format("rack uplinks %.2f MB/s", s.rackRate() / 1e6)
            : "racks unshaped");
    long[] expected = expectedCrcs(code, data);
    List<EncodePlan> plans = List.of(EncodePlanner.classic(stripe, s.classicSlice(), frameBytes()),
        EncodePlanner.chain(stripe, EncodePlan.Shape.CHAIN, s.chainSlice(), frameBytes()),
        EncodePlanner.chain(stripe, EncodePlan.Shape.RACK_TREE, s.chainSlice(), frameBytes()));
    Map<String, Object> result = new LinkedHashMap<>();
    try (BenchNodes nodes = new BenchNodes(conf())) {
      for (int u = 0; u < code.n(); u++) {
        Site site = u < code.k() ? stripe.holders().get(u) : stripe.targets().get(u);
        nodes.start(site, u < code.k() ? Map.of((long) u, data[u]) : Map.of());
      }
      for (EncodePlan plan : plans) {
        if (s.encoders().contains(label(plan).equals("rackTree") ? "rack-tree" : label(plan))) {
          result.put(label(plan), measure(nodes, plan, expected));
        }
      }
    } finally {
      TrafficShaper.emulate(null);
    }
    // Theory: the busiest link's time, classic over chain (k over the chain's row-streams when only nodes are shaped).
    double theory = plans.get(0).busiestLinkSeconds(s.nodeRate(), s.rackRate())
        / plans.get(1).busiestLinkSeconds(s.nodeRate(), s.rackRate());
    result.put("theoryClassicOverChain", theory);
    if (result.containsKey("classic")) {
      double classic = seconds(result, "classic");
      for (String chain : List.of("chain", "rackTree")) {
        if (result.containsKey(chain)) {
          result.put("classicOver" + Character.toUpperCase(chain.charAt(0)) + chain.substring(1),
              classic / seconds(result, chain));
          out.printf("%s: classic / %s = %.2f (theory, busiest links classic / chain: %.2f; target >= 8)%n",
              code.spec(), chain, classic / seconds(result, chain), theory);
        }
      }
    }
    return result;
  }

  private static double seconds(Map<String, Object> result, String encoder) {
    return (double) ((Map<String, Object>) result.get(encoder)).get("seconds");
  }

  private static String label(EncodePlan plan) {
    return plan.encoder() == EncodePlan.Encoder.CLASSIC ? "classic"
        : plan.shape() == EncodePlan.Shape.CHAIN ? "chain" : "rackTree";
  }

  private int frameBytes() {
    return 4 << 20; // wide-ec.transport.max-frame.bytes' default
  }

  private TransportConf conf() {
    return new TransportConf("127.0.0.1", 0, s.auth() ? SECRET : null, s.classicSlice(), 4, frameBytes(), 300_000,
        10_000, TrafficShaper.OFF, null);
  }

  /** Random units, as many distinct as the memory budget allows (the others repeat them). */
  private byte[][] data(int k) {
    int distinct = (int) Math.max(1, Math.min(k, DATA_BUDGET / s.unitBytes()));
    byte[][] pool = new byte[distinct][];
    Random r = new Random(13);
    for (int i = 0; i < distinct; i++) {
      pool[i] = new byte[(int) s.unitBytes()];
      r.nextBytes(pool[i]);
    }
    byte[][] d = new byte[k][];
    for (int u = 0; u < k; u++) {
      d[u] = pool[u % distinct];
    }
    return d;
  }

  /** CRC32C of every parity as the Java coder computes it, a MiB at a time. */
  private long[] expectedCrcs(LinearCode code, byte[][] data) {
    ErasureCoder coder = ErasureCoder.java(code);
    int p = code.n() - code.k();
    CRC32C[] crcs = new CRC32C[p];
    ByteBuffer[] parity = new ByteBuffer[p];
    for (int i = 0; i < p; i++) {
      crcs[i] = new CRC32C();
      parity[i] = ByteBuffer.allocate((int) MIB);
    }
    ByteBuffer[] in = new ByteBuffer[code.k()];
    for (long off = 0; off < s.unitBytes(); off += MIB) {
      int n = (int) Math.min(MIB, s.unitBytes() - off);
      for (int u = 0; u < in.length; u++) {
        in[u] = ByteBuffer.wrap(data[u], (int) off, n).slice();
      }
      for (int i = 0; i < p; i++) {
        parity[i].clear().limit(n);
      }
      coder.encode(in, parity);
      for (int i = 0; i < p; i++) {
        crcs[i].update(parity[i].array(), 0, n);
      }
    }
    return java.util.Arrays.stream(crcs).mapToLong(CRC32C::getValue).toArray();
  }

  private Map<String, Object> measure(BenchNodes nodes, EncodePlan plan, long[] expected) throws Exception {
    String name = plan.encoder() == EncodePlan.Encoder.CLASSIC ? "classic" : "chain (" + plan.shape().name()
        .toLowerCase().replace('_', '-') + ")";
    TrafficShaper.emulate(null);
    once(nodes, plan, expected); // warm-up, unshaped: JIT, connections kept for the timed runs
    progress.step(plan.stripe().code().spec() + " " + name + " warm-up");
    List<Double> runs = new ArrayList<>();
    List<Double> cpu = new ArrayList<>();
    long cross = 0;
    for (int r = 0; r < s.runs(); r++) {
      TrafficShaper.emulate(new long[] {s.nodeRate(), s.rackRate()}); // fresh links for every run
      Measured m = once(nodes, plan, expected);
      runs.add(m.seconds);
      cpu.add(m.cpuSeconds);
      cross = m.crossRackBytes;
      progress.step(plan.stripe().code().spec() + " " + name + " run " + (r + 1));
    }
    TrafficShaper.emulate(null);
    List<Double> sorted = runs.stream().sorted().toList();
    double median = sorted.get(sorted.size() / 2);
    double bound = plan.busiestLinkSeconds(s.nodeRate(), s.rackRate());
    double cpuMedian = cpu.stream().sorted().toList().get(cpu.size() / 2);
    out.printf("  %-18s %8.2f s (runs %s; process CPU %.1f s of %d cores' %.1f)  busiest link %d row-streams, %.2f s "
        + "at link rate; depth %d; %,d bytes across racks (plan %,d)%n", name, median,
        runs.stream().map(x -> String.format("%.2f", x)).toList(), cpuMedian, CORES, CORES * median,
        plan.maxRowStreams(), bound, plan.depth(), cross, plan.crossRackBytes());
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("seconds", median);
    m.put("runSeconds", runs);
    m.put("processCpuSeconds", cpuMedian);
    m.put("busiestLinkSeconds", bound);
    m.put("rowStreams", plan.maxRowStreams());
    m.put("depth", plan.depth());
    m.put("sliceBytes", plan.sliceBytes());
    m.put("crossRackBytes", cross);
    m.put("predictedCrossRackBytes", plan.crossRackBytes());
    return m;
  }

  private record Measured(double seconds, double cpuSeconds, long crossRackBytes) {}

  static final int CORES = Runtime.getRuntime().availableProcessors();
  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();

  /** One encode, checked: parities against the coder's, cross-rack bytes against the plan's. */
  private Measured once(BenchNodes nodes, EncodePlan plan, long[] expected) throws Exception {
    nodes.resetCounters();
    // A send buffer of the transport's window: 4 slices of this plan at the node rate.
    ShapedDeliveries sinks = new ShapedDeliveries(4L * plan.sliceBytes() * 1_000_000_000L / s.nodeRate());
    Map<Integer, BlockRef> blocks = new LinkedHashMap<>();
    for (int u : plan.stripe().nonEmptyDataUnits()) {
      blocks.put(u, new BlockRef("BP-bench", u, 1, plan.stripe().dataLength(u)));
    }
    long cpu = OS.getProcessCpuTime();
    long start = System.nanoTime();
    new EncodeExecutor(site -> nodes.transport(site.node()), nodes.resolver()).run(plan, blocks, sinks);
    double seconds = (System.nanoTime() - start) / 1e9;
    double cpuSeconds = (OS.getProcessCpuTime() - cpu) / 1e9;
    int k = plan.stripe().code().k();
    for (int i = 0; i < expected.length; i++) {
      Long crc = sinks.crcs.get(k + i);
      if (crc == null || crc != expected[i]) {
        throw new IllegalStateException(plan + ": parity " + (k + i) + " has CRC32C " + crc + ", the coder's is "
            + expected[i]);
      }
    }
    long cross = nodes.crossRack.get() + sinks.crossRack.get();
    if (cross != plan.crossRackBytes()) {
      throw new IllegalStateException(plan + ": " + cross + " bytes crossed racks, the plan predicts "
          + plan.crossRackBytes());
    }
    return new Measured(seconds, cpuSeconds, cross);
  }

}
