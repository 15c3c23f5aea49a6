package org.wideec.bench;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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
import org.wideec.coder.LastLevelCache;

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

  private final CoderFigures figures = new CoderFigures();
  private final long llc;

  private BenchCoders(long llc) {
    this.llc = llc;
  }

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
    long llc = llcOverride > 0 ? llcOverride : LastLevelCache.bytes().orElseThrow(() -> new IllegalStateException(
        "cannot find the last-level cache size in /sys/devices/system/cpu/cpu0/cache/index*/{level,type,size};"
        + " the benchmark must size its buffers from it. Pass --llc-bytes N (e.g. --llc-bytes 32m)"));
    new BenchCoders(llc).run(quick, new File(out), new File(isalBench), new File(memReadProbe), command);
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
      jmh(new String[] {NARROW}, mib, new String[] {"java", "native-heap"}, new String[] {"encode"},
          new String[] {STREAMED}, 1, true);
      jmh(STOCK_RS, mib, new String[] {"hadoop-java", "rs-codec"}, new String[] {"encode"}, new String[] {STREAMED}, 1, true);
    } else {
      String[] cells = {"65536", String.valueOf(MIB)};
      jmh(CODES, cells, coders, OPS, new String[] {STREAMED}, 1, false);
      jmh(new String[] {NARROW}, cells, new String[] {"java-table", "native-heap"}, OPS, new String[] {STREAMED}, 1,
          false);
      jmh(STOCK_RS, cells, new String[] {"rs-codec"}, new String[] {"encode"}, new String[] {STREAMED}, 1, false);
      jmh(limitCodes, mib, new String[] {"native"}, new String[] {"encode"}, both, 2, false);
      jmh(limitCodes, mib, new String[] {UNSLICED}, new String[] {"encode"}, new String[] {CACHED}, 2, false);
    }
    round(quick);
    rawIsal(isalBench, isalCells, quick);
    Map<String, Double> ratios = figures.ratios();
    new CoderReport(figures, llc).write(out, quick, command, ratios);
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
      figures.measuredMemoryRead(threads, Double.parseDouble(line.trim().split("\\s+")[1]));
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
      figures.measured(code, cell, op, coder, in, threads,
          opsPerSec * CoderBenchmark.bytesPerOp(code, effective, op, coder) / 1e9);
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
          figures.measuredIsal(f[0], f[1], Double.parseDouble(f[2]));
        } else {
          System.err.println("isal_bench: " + line);
        }
      }
    }
    if (p.waitFor() != 0) {
      throw new IOException("isal_bench failed with exit code " + p.exitValue());
    }
  }

}
