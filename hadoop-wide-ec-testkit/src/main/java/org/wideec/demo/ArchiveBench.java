package org.wideec.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.zip.CRC32C;
import org.wideec.engine.EncodeExecutor;
import org.wideec.engine.RapidRaidExecutor;
import org.wideec.protocol.EncodeTreeRequest;
import org.wideec.archive.encode.RapidRaidChain;
import org.wideec.archive.encode.RapidRaidPipeline;
import org.wideec.archive.encode.RapidRaidPlan;
import org.wideec.topology.Site;
import org.wideec.cli.Options;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.coder.ErasureCoder;
import org.wideec.repair.BlockRef;
import org.wideec.transport.TrafficShaper;
import org.wideec.transport.TransportConf;

/**
 * The archival benchmark, on the encode benchmark's in-process nodes (real authenticated slice transports,
 * links shaped per node at --node-rate and per rack uplink at node-rate / --oversubscription when given):
 * <ul>
 *   <li>single: one object of RapidRAID (16,11) held as two replicas along a chain of 16 nodes in 4 racks, archived
 *       by the classic encoder (one position pulls the 11 pieces, encodes the 16 codewords, sends 15) and by
 *       RapidRAID's pipeline;</li>
 *   <li>wide: one stripe of k = 64 with 4 global parities, classic against the chain (the encode benchmark's
 *       scenario, {@link EncodeBench});</li>
 *   <li>batch: 16 objects of RapidRAID (16,11) at once, object o's chain rotated by o over the same 16 nodes, so
 *       every node holds pieces of every object and the classic collectors are spread.</li>
 * </ul>
 * Every codeword's CRC32C is checked against the Java coder's encode of the pieces; every run's cross-rack bytes
 * (counted by the transports, plus deliveries) against the plans' prediction. A mismatch stops the benchmark. Each
 * encoder runs once unshaped (warm-up), then --runs shaped; the median is reported.
 *
 * <p>{@code wide-ec bench archive [--quick] [--unit-size 64m] [--node-rate 25m] [--oversubscription N] [--slice 64k]
 * [--runs N] [--wide-code SPEC] [--auth hmac|none] [--json]}
 */
public final class ArchiveBench {
  static final String RAPIDRAID = "rapidraid:n=16,k=11";
  static final int BATCH = 16;
  static final int RACK_SIZE = 4;

  /** Run settings; rates in bytes per second (rack 0 = unshaped). */
  public record Settings(long unitBytes, long nodeRate, long rackRate, int slice, int runs, boolean auth,
      String wideCode) {}

  private final Settings s;
  private final PrintStream out;
  private final BenchProgress progress;

  ArchiveBench(Settings s, PrintStream out) {
    this.s = s;
    this.out = out;
    // single and batch: 2 encoders; wide: 2 encoders; each warm-up + runs.
    this.progress = new BenchProgress(System.err, "bench archive", 6 * (s.runs() + 1));
  }

  /** {@code wide-ec bench archive [options]}: runs and prints, JSON last with --json. */
  static int run(String[] args, PrintStream out) throws Exception {
    Options o = new Options(args, Set.of("unit-size", "node-rate", "oversubscription", "slice", "runs", "wide-code",
        "auth"), Set.of("quick", "json"));
    if (!o.positional().isEmpty()) {
      throw new Options.UsageException("bench archive takes options only, got '" + o.positional().get(0) + "'");
    }
    boolean quick = o.has("quick");
    long nodeRate = EncodeBench.bytes(o.get("node-rate", "25m"));
    long over = o.getLong("oversubscription", 0);
    Settings s = new Settings(EncodeBench.bytes(o.get("unit-size", quick ? "8m" : "64m")), nodeRate,
        over > 0 ? nodeRate / over : 0, (int) EncodeBench.bytes(o.get("slice", "64k")),
        (int) o.getLong("runs", quick ? 1 : 3), !o.get("auth", "hmac").equals("none"),
        o.get("wide-code", "rs:k=64,m=4"));
    if (s.nodeRate() <= 0 || s.runs() < 1 || over < 0) {
      throw new Options.UsageException("--node-rate and --runs must be positive, --oversubscription at least 1");
    }
    Map<String, Object> result = new ArchiveBench(s, out).run();
    if (o.has("json")) {
      out.println(new ObjectMapper().writeValueAsString(result));
    }
    return 0;
  }

  Map<String, Object> run() throws Exception {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("unitBytes", s.unitBytes());
    json.put("nodeBytesPerSecond", s.nodeRate());
    json.put("rackBytesPerSecond", s.rackRate());
    json.put("sliceBytes", s.slice());
    json.put("runs", s.runs());
    json.put("frameAuthentication", s.auth());
    json.put("coder", org.wideec.coder.Kernels.describe());
    Map<String, Object> scenarios = new LinkedHashMap<>();
    LinearCode rr = Codes.pinnedFromSpec(RAPIDRAID);
    byte[][] pieces = pieces(rr.k());
    long[] expected = expectedCrcs(rr, pieces);
    try {
      scenarios.put("single", rapidRaid(rr, pieces, expected, 1));
      scenarios.put("wide", wide());
      scenarios.put("batch", rapidRaid(rr, pieces, expected, BATCH));
    } finally {
      TrafficShaper.emulate(null);
    }
    json.put("scenarios", scenarios);
    json.put("classicOverRapidraidSingle", ratio(scenarios, "single", "rapidraid"));
    json.put("classicOverChainWide", ratio(scenarios, "wide", "chain"));
    json.put("classicOverRapidraidBatch", ratio(scenarios, "batch", "rapidraid"));
    out.printf("classic / rapidraid, one object: %.2f (target >= 5); classic / chain, k = 64: %.2f (target >= 8); "
        + "classic / rapidraid, %d objects: %.2f (target >= 1.2)%n", json.get("classicOverRapidraidSingle"),
        json.get("classicOverChainWide"), BATCH, json.get("classicOverRapidraidBatch"));
    return json;
  }

  @SuppressWarnings("unchecked")
  private static double ratio(Map<String, Object> scenarios, String scenario, String encoder) {
    Map<String, Object> sc = (Map<String, Object>) scenarios.get(scenario);
    return seconds(sc, "classic") / seconds(sc, encoder);
  }

  @SuppressWarnings("unchecked")
  private static double seconds(Map<String, Object> scenario, String encoder) {
    return ((Number) ((Map<String, Object>) scenario.get(encoder)).get("seconds")).doubleValue();
  }

  private Map<String, Object> wide() throws Exception {
    EncodeBench.Settings es = new EncodeBench.Settings(List.of(s.wideCode()), s.unitBytes(), s.nodeRate(),
        s.rackRate(), s.slice(), 256 * 1024, s.runs(), s.auth(), List.of("classic", "chain"));
    out.printf("wide: %s, classic against the chain%n", s.wideCode());
    Map<String, Object> r = new EncodeBench(es, out, progress).code(Codes.pinnedFromSpec(s.wideCode()));
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("code", s.wideCode());
    m.put("classic", r.get("classic"));
    m.put("chain", r.get("chain"));
    return m;
  }

  /** Position i of object o's chain: node "a{(i + o) mod 16}", racks of four nodes. */
  private static Site site(int position, int object, int n) {
    int node = (position + object) % n;
    return new Site("a" + node, "r" + node / RACK_SIZE);
  }

  private static long blockId(int object, int piece) {
    return object * 1000L + piece;
  }

  private Map<String, Object> rapidRaid(LinearCode code, byte[][] pieces, long[] expected, int objects)
      throws Exception {
    int n = code.n();
    long[] lengths = new long[code.k()];
    java.util.Arrays.fill(lengths, s.unitBytes());
    List<RapidRaidPlan> classic = new ArrayList<>();
    List<RapidRaidPlan> pipeline = new ArrayList<>();
    Map<String, Map<Long, byte[]>> stores = new HashMap<>();
    for (int o = 0; o < objects; o++) {
      List<Site> sites = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        sites.add(site(i, o, n));
        for (int j : RapidRaidPipeline.piecesAt(n, code.k(), i)) {
          stores.computeIfAbsent(site(i, o, n).node(), x -> new HashMap<>()).put(blockId(o, j), pieces[j]);
        }
      }
      RapidRaidChain chain = new RapidRaidChain(sites, List.of(), false, n / RACK_SIZE - 1);
      String name = objects == 1 ? "object" : "object " + o;
      classic.add(RapidRaidPlan.classic(name, code, chain, lengths, 256 * 1024, frameBytes()));
      pipeline.add(RapidRaidPlan.pipeline(name, code, chain, lengths, s.slice(), frameBytes()));
    }
    String scenario = objects == 1 ? "single" : "batch";
    out.printf("%s: %d object%s of %s, pieces of %d MiB held as two replicas over %d nodes in %d racks, node links "
        + "%.1f MB/s, %s%n", scenario, objects, objects == 1 ? "" : "s", code.spec(), s.unitBytes() >> 20, n,
        n / RACK_SIZE, s.nodeRate() / 1e6, s.rackRate() > 0 ? String.format("rack uplinks %.2f MB/s", s.rackRate() / 1e6)
            : "racks unshaped");
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("code", code.spec());
    result.put("objects", objects);
    try (BenchNodes nodes = new BenchNodes(conf())) {
      for (int v = 0; v < n; v++) {
        Site at = site(v, 0, n);
        nodes.start(at, stores.getOrDefault(at.node(), Map.of()));
      }
      result.put("classic", measure(nodes, scenario, "classic", classic, expected));
      result.put("rapidraid", measure(nodes, scenario, "rapidraid", pipeline, expected));
    }
    out.printf("%s: classic / rapidraid = %.2f%n", scenario, seconds(result, "classic") / seconds(result, "rapidraid"));
    return result;
  }

  private Map<String, Object> measure(BenchNodes nodes, String scenario, String label, List<RapidRaidPlan> plans,
      long[] expected) throws Exception {
    TrafficShaper.emulate(null);
    once(nodes, plans, expected); // warm-up, unshaped
    progress.step(scenario + " " + label + " warm-up");
    List<Double> runs = new ArrayList<>();
    long cross = 0;
    for (int r = 0; r < s.runs(); r++) {
      TrafficShaper.emulate(new long[] {s.nodeRate(), s.rackRate()});
      double[] m = once(nodes, plans, expected);
      runs.add(m[0]);
      cross = (long) m[1];
      progress.step(scenario + " " + label + " run " + (r + 1));
    }
    TrafficShaper.emulate(null);
    double median = runs.stream().sorted().toList().get(runs.size() / 2);
    long predicted = plans.stream().mapToLong(RapidRaidPlan::crossRackBytes).sum();
    double bound = 0;
    for (RapidRaidPlan p : plans) {
      bound = Math.max(bound, p.busiestLinkSeconds(s.nodeRate(), s.rackRate()));
    }
    out.printf("  %-10s %8.2f s (runs %s)  %d codewords verified by CRC32C; %,d bytes across racks (plan %,d); "
        + "one object's busiest link %.2f s at link rate%n", label, median,
        runs.stream().map(x -> String.format("%.2f", x)).toList(), plans.size() * plans.get(0).code().n(), cross,
        predicted, bound);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("seconds", median);
    m.put("runSeconds", runs);
    m.put("crossRackBytes", cross);
    m.put("predictedCrossRackBytes", predicted);
    m.put("codewordsVerified", plans.size() * plans.get(0).code().n());
    m.put("sliceBytes", plans.get(0).sliceBytes());
    return m;
  }

  /** Every plan at once; returns seconds and the bytes that crossed racks, after checking both and every codeword. */
  private double[] once(BenchNodes nodes, List<RapidRaidPlan> plans, long[] expected) throws Exception {
    nodes.resetCounters();
    ShapedDeliveries sinks = new ShapedDeliveries(4L * 256 * 1024 * 1_000_000_000L / s.nodeRate());
    ExecutorService pool = Executors.newFixedThreadPool(plans.size());
    try {
      long start = System.nanoTime();
      List<Future<RapidRaidExecutor.Result>> running = new ArrayList<>();
      for (int o = 0; o < plans.size(); o++) {
        RapidRaidPlan plan = plans.get(o);
        Map<Integer, BlockRef> blocks = new HashMap<>();
        for (int j = 0; j < plan.code().k(); j++) {
          blocks.put(j, new BlockRef("BP-bench", blockId(o, j), 1, s.unitBytes()));
        }
        // Each object's classic codewords go through sinks keyed apart from the other objects'.
        int base = o * 1000;
        running.add(pool.submit(() -> new RapidRaidExecutor(site -> nodes.transport(site.node()), nodes.resolver())
            .run(plan, blocks, (unit, length, from, to) -> sinks.open(base + unit, length, from, to))));
      }
      List<RapidRaidExecutor.Result> results = new ArrayList<>();
      for (Future<RapidRaidExecutor.Result> f : running) {
        results.add(f.get());
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      for (int o = 0; o < plans.size(); o++) {
        List<EncodeTreeRequest.Stored> words = results.get(o).codewords();
        for (int i = 0; i < expected.length; i++) {
          long crc = words.get(i).crc32c();
          Long delivered = sinks.crcs.get(o * 1000 + i);
          if (crc != expected[i] || (plans.get(o).encoder() == RapidRaidPlan.Encoder.CLASSIC
              && (delivered == null || delivered != expected[i]))) {
            throw new IllegalStateException(plans.get(o) + ": c_" + i + " has CRC32C " + crc + " (stored " + delivered
                + "), the coder's is " + expected[i]);
          }
        }
      }
      long cross = nodes.crossRack.get() + sinks.crossRack.get();
      long predicted = plans.stream().mapToLong(RapidRaidPlan::crossRackBytes).sum();
      if (cross != predicted) {
        throw new IllegalStateException(plans.get(0) + " and the others: " + cross + " bytes crossed racks, the plans "
            + "predict " + predicted);
      }
      return new double[] {seconds, cross};
    } finally {
      pool.shutdownNow();
    }
  }

  private int frameBytes() {
    return 4 << 20; // wide-ec.transport.max-frame.bytes' default
  }

  private TransportConf conf() {
    return new TransportConf("127.0.0.1", 0, s.auth() ? EncodeBench.SECRET : null, s.slice(), 4, frameBytes(), 300_000,
        10_000, TrafficShaper.OFF, null);
  }

  private byte[][] pieces(int k) {
    Random r = new Random(14);
    byte[][] d = new byte[k][(int) s.unitBytes()];
    for (byte[] b : d) {
      r.nextBytes(b);
    }
    return d;
  }

  /** CRC32C of every codeword as the Java coder encodes the pieces, a MiB at a time. */
  private long[] expectedCrcs(LinearCode code, byte[][] pieces) {
    ErasureCoder coder = ErasureCoder.java(code);
    int n = code.n();
    int mib = 1 << 20;
    CRC32C[] crcs = new CRC32C[n];
    ByteBuffer[] words = new ByteBuffer[n];
    for (int i = 0; i < n; i++) {
      crcs[i] = new CRC32C();
      words[i] = ByteBuffer.allocate(mib);
    }
    ByteBuffer[] in = new ByteBuffer[code.k()];
    for (long off = 0; off < s.unitBytes(); off += mib) {
      int len = (int) Math.min(mib, s.unitBytes() - off);
      for (int j = 0; j < in.length; j++) {
        in[j] = ByteBuffer.wrap(pieces[j], (int) off, len).slice();
      }
      for (ByteBuffer w : words) {
        w.clear().limit(len);
      }
      coder.encode(in, words);
      for (int i = 0; i < n; i++) {
        crcs[i].update(words[i].array(), 0, len);
      }
    }
    return java.util.Arrays.stream(crcs).mapToLong(CRC32C::getValue).toArray();
  }
}
