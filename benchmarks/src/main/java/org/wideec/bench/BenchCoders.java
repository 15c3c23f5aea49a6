package org.wideec.bench;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.coder.ErasureCoder;
import org.wideec.coder.IsalNative;
import org.wideec.coder.Kernels;
import org.wideec.coder.LastLevelCache;
import org.wideec.coder.WideTuning;

/**
 * Runs the coder benchmarks (JMH) and raw ISA-L's encode on the same matrices (native/build/isal_bench),
 * writes its full section into benchmarks/HISTORY.md and prints, last, one JSON line with the target ratios.
 *
 * <p>Every operation reads inputs that are not cache-resident: a rotating set of stripes at least 4x the
 * last-level cache (CoderBenchmark {@code inputs=streamed}; isal_bench likewise), since data reaches a coder
 * from disks and networks, never from cache. In the same run it measures the memory-read bandwidth
 * (native/build/mem_read, 1 and 2 threads) and the in-cache speed ({@code inputs=cached}), and reports the wide
 * and narrow encoders against the physical limit min(memory bandwidth, in-cache compute), at 1 and 2 threads.
 * Usage: BenchCoders [--quick] [--out FILE] [--isal-bench PATH] [--mem-read PATH] [--llc-bytes N]
 * [--command "how it was run"]
 */
public final class BenchCoders {
  static final String[] CODES = {"rs:k=6,m=3", "rs:k=10,m=4", "azure-lrc:k=12,l=2,g=2", "azure-lrc:k=128,r=27,g=3",
      "unilrc:alpha=2,z=10", "rapidraid:n=16,k=11", "rs:k=128,m=4"};
  static final String NARROW = "rs:k=10,m=4";
  static final String WIDE = "rs:k=128,m=4";
  /** The codes of HDFS's RS-6-3 and RS-10-4 policies, for our coder of Hadoop's rs codec against RSRawEncoder. */
  static final String[] STOCK_RS = {"rs:k=6,m=3", "rs:k=10,m=4"};
  static final String[] OPS = {"encode", "decodeOneDataUnit", "decodeMaxLosses", "localRepair"};
  static final String STREAMED = "streamed";
  static final String CACHED = "cached";
  /** The native coder with every source in one pass (CoderBenchmark.UNSLICED), measured in cache. */
  static final String UNSLICED = "native-unsliced";
  static final int MIB = 1 << 20;

  /** GB/s by "code|cell|op|coder|inputs|threads". */
  private final Map<String, Double> gbps = new LinkedHashMap<>();
  private final Map<String, Double> isal = new LinkedHashMap<>();
  /** Memory-read GB/s by thread count. */
  private final Map<Integer, Double> memRead = new LinkedHashMap<>();
  private long llc;

  public static void main(String[] args) throws Exception {
    boolean quick = false;
    String out = "benchmarks/HISTORY.md"; // the full section; RESULTS.md keeps the current figures only
    String isalBench = "native/build/isal_bench";
    String memReadProbe = "native/build/mem_read";
    String command = "dev-support/bench-coders.sh";
    long llcOverride = -1;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--quick" -> quick = true;
        case "--out" -> out = args[++i];
        case "--isal-bench" -> isalBench = args[++i];
        case "--mem-read" -> memReadProbe = args[++i];
        case "--llc-bytes" -> llcOverride = LastLevelCacheArg.parse(args[++i]);
        case "--command" -> command = args[++i];
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    BenchCoders b = new BenchCoders();
    b.llc = llcOverride > 0 ? llcOverride : LastLevelCache.bytes().orElseThrow(() -> new IllegalStateException(
        "cannot find the last-level cache size in /sys/devices/system/cpu/cpu0/cache/index*/{level,type,size};"
        + " the benchmark must size its buffers from it. Pass --llc-bytes N (e.g. --llc-bytes 32m)"));
    b.run(quick, new File(out), new File(isalBench), new File(memReadProbe), command);
  }

  /** --llc-bytes: bytes with an optional k, m or g. */
  static final class LastLevelCacheArg {
    static long parse(String v) {
      String s = v.trim().toLowerCase(Locale.ROOT);
      long unit = s.endsWith("k") ? 1L << 10 : s.endsWith("m") ? 1L << 20 : s.endsWith("g") ? 1L << 30 : 1;
      long n = Long.parseLong(unit > 1 ? s.substring(0, s.length() - 1) : s) * unit;
      if (n < 1 << 16) {
        throw new IllegalArgumentException("--llc-bytes " + v + ": implausibly small");
      }
      return n;
    }
  }

  private void run(boolean quick, File out, File isalBench, File memReadProbe, String command) throws Exception {
    if (!IsalNative.isAvailable()) {
      throw new IllegalStateException("the native coder is not loaded (" + IsalNative.unavailableReason()
          + "); install libisal-dev and rebuild");
    }
    System.err.printf(Locale.ROOT, "last-level cache %d MiB; streamed inputs rotate over >= %d MiB per thread%n",
        llc >> 20, (4 * llc) >> 20);
    probeMemory(memReadProbe, quick);
    String[] coders = {"native", "java", "hadoop-java"};
    String[] mib = {String.valueOf(MIB)};
    String[] limitCodes = {NARROW, WIDE};
    String[] both = {STREAMED, CACHED};
    int[] isalCells = quick ? new int[] {MIB} : new int[] {65536, MIB};
    // What the target ratios divide runs twice, at the start and at the end, each keeping its better round: on a
    // shared machine a burst of other work then cannot make one side of a ratio look slow or a limit look low.
    rawIsal(isalBench, isalCells, quick);
    round(quick);
    if (quick) {
      // Just what the ratios need besides the rounds: 2 threads for RS(10,4) and RS(128,4), Java on RS(10,4),
      // Hadoop's RSRawEncoder and our rs-codec coder on RS(6,3) and RS(10,4).
      jmh(limitCodes, mib, new String[] {"native"}, new String[] {"encode"}, both, 2, true);
      jmh(limitCodes, mib, new String[] {UNSLICED}, new String[] {"encode"}, new String[] {CACHED}, 2, true);
      jmh(new String[] {NARROW}, mib, new String[] {"java"}, new String[] {"encode"}, new String[] {STREAMED}, 1, true);
      jmh(STOCK_RS, mib, new String[] {"hadoop-java", "rs-codec"}, new String[] {"encode"}, new String[] {STREAMED}, 1, true);
    } else {
      String[] cells = {"65536", String.valueOf(MIB)};
      jmh(CODES, cells, coders, OPS, new String[] {STREAMED}, 1, false);
      jmh(new String[] {NARROW}, cells, new String[] {"java-table"}, OPS, new String[] {STREAMED}, 1, false);
      jmh(STOCK_RS, cells, new String[] {"rs-codec"}, new String[] {"encode"}, new String[] {STREAMED}, 1, false);
      jmh(limitCodes, mib, new String[] {"native"}, new String[] {"encode"}, both, 2, false);
      jmh(limitCodes, mib, new String[] {UNSLICED}, new String[] {"encode"}, new String[] {CACHED}, 2, false);
    }
    round(quick);
    rawIsal(isalBench, isalCells, quick);
    Map<String, Double> ratios = ratios();
    write(out, quick, command, ratios);
    StringBuilder json = new StringBuilder("{");
    for (Map.Entry<String, Double> e : ratios.entrySet()) {
      json.append(json.length() > 1 ? "," : "").append('"').append(e.getKey()).append("\":")
          .append(String.format(Locale.ROOT, "%.3f", e.getValue()));
    }
    System.out.println(json.append('}'));
  }

  /** Native encode of every code streamed, RS(128,4) with the old slicing, and the in-cache speed (1 thread). */
  private void round(boolean quick) throws Exception {
    String[] mib = {String.valueOf(MIB)};
    String[] encode = {"encode"};
    jmh(CODES, mib, new String[] {"native"}, encode, new String[] {STREAMED}, 1, quick);
    jmh(new String[] {WIDE}, mib, new String[] {"native-default"}, encode, new String[] {STREAMED}, 1, quick);
    jmh(new String[] {NARROW, WIDE}, mib, new String[] {"native", UNSLICED}, encode, new String[] {CACHED}, 1, quick);
  }

  /** Single-core and two-thread memory-read bandwidth, over 4x the LLC per thread (native/bench/mem_read.c). */
  private void probeMemory(File probe, boolean quick) throws Exception {
    if (!probe.canExecute()) {
      throw new IllegalStateException(probe + " is missing; run native/build.sh");
    }
    for (int threads : new int[] {1, 2}) {
      Process p = new ProcessBuilder(probe.getPath(), String.valueOf(threads), String.valueOf(4 * llc),
          quick ? "1" : "2").redirectError(ProcessBuilder.Redirect.DISCARD).start();
      String line;
      try (BufferedReader rd = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII))) {
        line = rd.readLine();
      }
      if (p.waitFor() != 0 || line == null) {
        throw new IOException(probe + " failed with exit code " + p.exitValue());
      }
      memRead.put(threads, Double.parseDouble(line.trim().split("\\s+")[1]));
    }
  }

  private void jmh(String[] codes, String[] cells, String[] coders, String[] ops, String[] inputs, int threads,
      boolean quick) throws Exception {
    StringBuilder include = new StringBuilder(CoderBenchmark.class.getName() + ".(");
    for (int i = 0; i < ops.length; i++) {
      include.append(i == 0 ? "" : "|").append(ops[i]);
    }
    include.append(")$");
    ChainedOptionsBuilder b = new OptionsBuilder()
        .include(include.toString())
        .param("code", codes)
        .param("cell", cells)
        .param("coder", coders)
        .param("inputs", inputs)
        .threads(threads)
        .forks(1)
        .warmupIterations(quick ? 2 : 3)
        .warmupTime(TimeValue.milliseconds(quick ? 400 : 500))
        .measurementIterations(quick ? 4 : 5)
        .measurementTime(TimeValue.milliseconds(quick ? 400 : 500))
        .jvmArgsAppend(jvmArgs(llc));
    for (RunResult r : new Runner(b.build()).run()) {
      String op = r.getParams().getBenchmark().replaceAll(".*\\.", "");
      String code = r.getParams().getParam("code");
      int cell = Integer.parseInt(r.getParams().getParam("cell"));
      String coder = r.getParams().getParam("coder");
      String in = r.getParams().getParam("inputs");
      int effective = CoderBenchmark.effectiveCell(code, cell, in, llc);
      // The best measured iteration (operations per second, summed over threads), as STREAM reports its best pass:
      // on a shared machine other jobs only ever slow an iteration down, and the limits are measured the same way.
      double opsPerSec = r.getPrimaryResult().getStatistics().getMax();
      gbps.merge(key(code, cell, op, coder, in, threads),
          opsPerSec * CoderBenchmark.bytesPerOp(code, effective, op, coder) / 1e9, Math::max);
    }
  }

  private static String[] jvmArgs(long llc) {
    List<String> a = new ArrayList<>();
    a.add("-D" + CoderBenchmark.LLC_PROPERTY + "=" + llc);
    // Each thread rotates over at least 4x the LLC (plus one stripe: RS(128,4) is 137 MiB). Heap cells of 1 MiB are
    // humongous objects in G1 and take two regions each, so the heap needs twice the set; on a processor with a
    // large LLC (260 MiB on Xeon Emerald Rapids) the old fixed 2 GiB heap ran out of memory for the Java coders.
    long mib = 1L << 20;
    long set = 4 * llc + 140 * mib;
    a.add("-XX:MaxDirectMemorySize=" + Math.max(3072, (2 * set + 512 * mib) / mib) + "m");
    a.add("--add-modules=jdk.incubator.vector");
    a.add("-Xmx" + Math.max(2048, (2 * set + 1024 * mib) / mib) + "m");
    String lib = System.getProperty("java.library.path");
    if (lib != null) {
      a.add("-Djava.library.path=" + lib);
    }
    return a.toArray(new String[0]);
  }

  private void rawIsal(File isalBench, int[] cells, boolean quick) throws Exception {
    if (!isalBench.canExecute()) {
      throw new IllegalStateException(isalBench + " is missing; run native/build.sh");
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(isalBench.getPath());
    for (int c : cells) {
      cmd.add(String.valueOf(c));
    }
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    // As many intervals, as long, as the JMH iterations it is compared with (a best of shorter ones would flatter it).
    pb.environment().put("ISAL_BENCH_SECONDS", quick ? "1.6" : "2.5");
    pb.environment().put("ISAL_BENCH_INTERVALS", quick ? "4" : "5");
    pb.environment().put("ISAL_BENCH_WORKING_SET", String.valueOf(4 * llc));
    Process p = pb.start();
    try (OutputStream o = p.getOutputStream(); PrintWriter w = new PrintWriter(o, false, StandardCharsets.US_ASCII)) {
      for (String spec : CODES) {
        LinearCode c = Codes.fromSpec(spec);
        int[] rows = ErasureCoder.java(c).encodedUnits();
        w.println(spec + " " + c.k() + " " + rows.length);
        StringBuilder sb = new StringBuilder();
        for (int r : rows) {
          for (int j = 0; j < c.k(); j++) {
            sb.append(c.generator().get(r, j)).append(' ');
          }
        }
        w.println(sb);
      }
    }
    try (BufferedReader rd = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII))) {
      String line;
      while ((line = rd.readLine()) != null) {
        String[] f = line.trim().split("\\s+");
        if (f.length == 3) {
          isal.merge(f[0] + "|" + f[1], Double.parseDouble(f[2]), Math::max);
        } else {
          System.err.println("isal_bench: " + line);
        }
      }
    }
    if (p.waitFor() != 0) {
      throw new IOException("isal_bench failed with exit code " + p.exitValue());
    }
  }

  private Map<String, Double> ratios() {
    Map<String, Double> r = new LinkedHashMap<>();
    double worst = Double.MAX_VALUE;
    for (String spec : CODES) {
      Double ours = streamed(spec, "native", 1);
      Double raw = isal.get(spec + "|" + MIB);
      if (ours != null && raw != null) {
        worst = Math.min(worst, ours / raw);
      }
    }
    r.put("nativeVsIsal", worst);
    double hadoop = streamed(NARROW, "hadoop-java", 1);
    r.put("nativeVsHadoopJava", streamed(NARROW, "native", 1) / hadoop);
    r.put("javaVsHadoopJava", streamed(NARROW, "java", 1) / hadoop);
    r.put("wideVsNarrow", streamed(WIDE, "native", 1) / streamed(NARROW, "native", 1));
    // The worse of RS-6-3 and RS-10-4: the speed-up an operator gets on every stock RS policy.
    double rsCodec = Double.MAX_VALUE;
    for (String spec : STOCK_RS) {
      rsCodec = Math.min(rsCodec, streamed(spec, "rs-codec", 1) / streamed(spec, "hadoop-java", 1));
    }
    r.put("rsCodecVsHadoopJava", rsCodec);
    r.put("wideFractionOfLimit", streamed(WIDE, "native", 1) / limit(WIDE, 1));
    r.put("narrowFractionOfLimit", streamed(NARROW, "native", 1) / limit(NARROW, 1));
    r.put("wideVsNarrow2Threads", streamed(WIDE, "native", 2) / streamed(NARROW, "native", 2));
    r.put("wideFractionOfLimit2Threads", streamed(WIDE, "native", 2) / limit(WIDE, 2));
    r.put("narrowFractionOfLimit2Threads", streamed(NARROW, "native", 2) / limit(NARROW, 2));
    r.put("wideTunedVsDefault", streamed(WIDE, "native", 1) / streamed(WIDE, "native-default", 1));
    return r;
  }

  private Double streamed(String spec, String coder, int threads) {
    return gbps.get(key(spec, MIB, "encode", coder, STREAMED, threads));
  }

  /** The in-cache encode of a code: the faster of the tuned coder and every source in one pass. */
  private Double cached(String spec, int threads) {
    Double tuned = gbps.get(key(spec, MIB, "encode", "native", CACHED, threads));
    Double unsliced = gbps.get(key(spec, MIB, "encode", UNSLICED, CACHED, threads));
    return tuned == null || unsliced == null ? null : Math.max(tuned, unsliced);
  }

  /**
   * Data bytes per second no encoder can beat here: an encode of k cells moves k + p cells through memory
   * (reads k, writes p; a write counted as cheap as a read, which flatters the memory), and cannot run faster
   * than the same coder with its inputs in cache.
   */
  private double memoryLimit(String spec, int threads) {
    LinearCode c = Codes.fromSpec(spec);
    int p = ErasureCoder.java(c).encodedUnits().length;
    return memRead.get(threads) * c.k() / (c.k() + p);
  }

  /**
   * In-cache compute per data byte: the faster of RS(10,4) and RS(128,4) with cache-resident inputs, each with the
   * tuned coder and with every source in one pass (a tuning made for streamed inputs, such as small passes with
   * prefetch, may compute slower in cache; the limit is what the core can do, not what the tuning does). Both
   * multiply every data byte by 4 coefficients, so the core's compute limit is the same for both; a wide encode
   * slower in cache than the narrow one is the coder's overhead, not the machine's limit.
   */
  private double computeLimit(int threads) {
    return Math.max(cached(NARROW, threads), cached(WIDE, threads));
  }

  private double limit(String spec, int threads) {
    return Math.min(memoryLimit(spec, threads), computeLimit(threads));
  }

  private void write(File out, boolean quick, String command, Map<String, Double> ratios) throws IOException {
    StringBuilder md = new StringBuilder();
    String machine = org.wideec.cli.ResultsFile.machine();
    md.append("# Coder benchmarks, inputs streamed from memory (").append(machine.substring(0, machine.indexOf(',')))
        .append(")\n\n");
    md.append("Written by `").append(command).append("` on ").append(ZonedDateTime.now().withNano(0)).append(".\n\n");
    md.append("- machine: ").append(machine).append(String.format(Locale.ROOT, ", last-level cache %d MiB%n", llc >> 20));
    md.append("- JVM: ").append(System.getProperty("java.vm.name")).append(' ').append(System.getProperty("java.version"))
        .append("; Java kernel: ").append(Kernels.java().name()).append("; native: ").append(Kernels.best().name())
        .append("; wide slicing: ").append(WideTuning.current()).append(" (`native-default`: ").append(WideTuning.DEFAULT)
        .append(")\n");
    md.append("- run: ").append(quick ? "quick (2x0.4 s warm-up, 4x0.4 s measured, 1 fork)" : "full (3x0.5 s warm-up, 5x0.5 s measured, 1 fork)")
        .append("; GB/s = 10^9 bytes/s of the best measured iteration; encode counts the k data cells, decode and repair the")
        .append(" cells they read\n");
    md.append(String.format(Locale.ROOT, "- inputs: every operation works on the next stripe of a rotating set of at"
        + " least %d MiB per thread (4x the last-level cache), raw ISA-L likewise; `cached`: one stripe of at most a quarter"
        + " of the last-level cache (cells shrunk to fit), the in-cache compute speed; one-thread native encode at 1 MiB"
        + " (`native`, `native-default`, streamed and cached) and raw ISA-L run once at the start and once at the end, each"
        + " keeping its better round; every direct cell sits 64 bytes into a page, on both sides%n", (4 * llc) >> 20));
    md.append("- `native`: ours on ISA-L (direct buffers); `native-default`: the same with the slicing before per-processor")
        .append(" tuning; `native-unsliced`: the same with every source in one pass, in cache only; `java`: our Java kernel (heap); `java-table`: our table-driven")
        .append(" Java kernel; `hadoop-java`: Hadoop's RSRawEncoder/RSRawDecoder on RS(k, n-k); `raw ISA-L`: native/bench/isal_bench,")
        .append(" `ec_encode_data` over whole cells on the same matrix; `rs-codec`: ours on ISA-L for Hadoop's own `rs` codec, from")
        .append(" CodecUtil through Hadoop's RawErasureEncoder API (direct buffers). Hadoop's own native coder needs libhadoop built with")
        .append(" ISA-L, which Maven Central does not ship; it is capped at k <= 10, k + m <= 14 anyway.\n\n");
    md.append("## Target ratios\n\n| ratio | value | target |\n|---|---|---|\n");
    md.append(String.format(Locale.ROOT, "| nativeVsIsal (worst code, encode, 1 MiB) | %.3f | >= 0.90 |%n", ratios.get("nativeVsIsal")));
    md.append(String.format(Locale.ROOT, "| nativeVsHadoopJava (RS(10,4) encode, 1 MiB) | %.1f | >= 20 |%n", ratios.get("nativeVsHadoopJava")));
    md.append(String.format(Locale.ROOT, "| javaVsHadoopJava (RS(10,4) encode, 1 MiB) | %.2f | >= 3 |%n", ratios.get("javaVsHadoopJava")));
    md.append(String.format(Locale.ROOT, "| wideVsNarrow (native encode per data byte, RS(128,4) / RS(10,4), 1 MiB) | %.3f | >= 0.80 |%n",
        ratios.get("wideVsNarrow")));
    md.append(String.format(Locale.ROOT, "| rsCodecVsHadoopJava (rs-codec / hadoop-java encode, worse of RS(6,3) and RS(10,4), 1 MiB) | %.1f | >= 20 |%n",
        ratios.get("rsCodecVsHadoopJava")));
    md.append(String.format(Locale.ROOT, "| wideFractionOfLimit (RS(128,4) encode / physical limit, 1 thread) | %.3f | >= 0.70 |%n",
        ratios.get("wideFractionOfLimit")));
    md.append(String.format(Locale.ROOT, "| narrowFractionOfLimit (RS(10,4) encode / physical limit, 1 thread) | %.3f | none |%n",
        ratios.get("narrowFractionOfLimit")));
    md.append(String.format(Locale.ROOT, "| wideVsNarrow2Threads / wideFractionOfLimit2Threads / narrowFractionOfLimit2Threads | %.3f / %.3f / %.3f | none |%n",
        ratios.get("wideVsNarrow2Threads"), ratios.get("wideFractionOfLimit2Threads"), ratios.get("narrowFractionOfLimit2Threads")));
    md.append(String.format(Locale.ROOT, "| wideTunedVsDefault (RS(128,4) encode, tuned / 32 x 64 KiB slicing) | %.2f | none |%n%n",
        ratios.get("wideTunedVsDefault")));
    md.append("## Physical limit (encode, 1 MiB cells, GB/s of data)\n\n");
    md.append("Limit = min(memory limit, compute limit). Memory limit: memory read (native/bench/mem_read over 4x the")
        .append(" last-level cache per thread, best pass, summed over threads) x k / (k + parities), an encode moving k + parities")
        .append(" cells per k data cells. Compute limit: the faster in-cache encode of RS(10,4) and RS(128,4), which both multiply")
        .append(" each data byte by 4 coefficients, each the faster of the tuned coder and `native-unsliced` (every source in one")
        .append(" pass).\n\n");
    md.append("| code | threads | memory read | memory limit | in-cache (this code) | compute limit | limit | streamed | fraction of limit |\n");
    md.append("|---|---|---|---|---|---|---|---|---|\n");
    for (int threads : new int[] {1, 2}) {
      for (String spec : new String[] {NARROW, WIDE}) {
        md.append(String.format(Locale.ROOT, "| `%s` | %d | %.2f | %.2f | %s | %.2f | %.2f | %s | %.3f |%n", spec, threads,
            memRead.get(threads), memoryLimit(spec, threads), f(cached(spec, threads)), computeLimit(threads), limit(spec, threads),
            f(streamed(spec, "native", threads)), streamed(spec, "native", threads) / limit(spec, threads)));
      }
    }
    md.append('\n');
    md.append("## Throughput, streamed inputs, 1 thread (GB/s)\n\n| code | cell | operation | native | native-default | java | java-table | hadoop-java | rs-codec | raw ISA-L | native/raw ISA-L |\n");
    md.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (String spec : CODES) {
      for (int cell : new int[] {65536, MIB}) {
        for (String op : OPS) {
          Double nat = gbps.get(key(spec, cell, op, "native", STREAMED, 1));
          if (nat == null && gbps.get(key(spec, cell, op, "java", STREAMED, 1)) == null) {
            continue;
          }
          Double raw = op.equals("encode") ? isal.get(spec + "|" + cell) : null;
          md.append("| `").append(spec).append("` | ").append(cell == MIB ? "1 MiB" : (cell / 1024) + " KiB").append(" | ")
              .append(op).append(" | ").append(f(nat)).append(" | ")
              .append(f(gbps.get(key(spec, cell, op, "native-default", STREAMED, 1)))).append(" | ")
              .append(f(gbps.get(key(spec, cell, op, "java", STREAMED, 1))))
              .append(" | ").append(f(gbps.get(key(spec, cell, op, "java-table", STREAMED, 1)))).append(" | ")
              .append(f(gbps.get(key(spec, cell, op, "hadoop-java", STREAMED, 1)))).append(" | ")
              .append(f(gbps.get(key(spec, cell, op, "rs-codec", STREAMED, 1)))).append(" | ").append(f(raw)).append(" | ")
              .append(nat != null && raw != null ? String.format(Locale.ROOT, "%.2f", nat / raw) : "").append(" |\n");
        }
      }
    }
    org.wideec.cli.ResultsFile.writeSection(out.toPath(), md.toString());
  }

  private static String f(Double v) {
    return v == null ? "" : String.format(Locale.ROOT, "%.2f", v);
  }

  private static String key(String code, int cell, String op, String coder, String inputs, int threads) {
    return code + "|" + cell + "|" + op + "|" + coder + "|" + inputs + "|" + threads;
  }
}
