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

/**
 * Runs the coder benchmarks (JMH) and raw ISA-L's encode on the same matrices (native/build/isal_bench),
 * writes benchmarks/RESULTS.md and prints, last, one JSON line with the target ratios.
 * Usage: BenchCoders [--quick] [--out FILE] [--isal-bench PATH] [--command "how it was run"]
 */
public final class BenchCoders {
  static final String[] CODES = {"rs:k=6,m=3", "rs:k=10,m=4", "azure-lrc:k=12,l=2,g=2", "azure-lrc:k=128,r=27,g=3",
      "unilrc:alpha=2,z=10", "rapidraid:n=16,k=11", "rs:k=128,m=4"};
  static final String NARROW = "rs:k=10,m=4";
  static final String WIDE = "rs:k=128,m=4";
  /** The codes of HDFS's RS-6-3 and RS-10-4 policies, for our coder of Hadoop's rs codec against RSRawEncoder. */
  static final String[] STOCK_RS = {"rs:k=6,m=3", "rs:k=10,m=4"};
  static final String[] OPS = {"encode", "decodeOneDataUnit", "decodeMaxLosses", "localRepair"};
  static final int MIB = 1 << 20;

  /** GB/s by "code|cell|op|coder". */
  private final Map<String, Double> gbps = new LinkedHashMap<>();
  private final Map<String, Double> isal = new LinkedHashMap<>();

  public static void main(String[] args) throws Exception {
    boolean quick = false;
    String out = "benchmarks/RESULTS.md";
    String isalBench = "native/build/isal_bench";
    String command = "dev-support/bench-coders.sh";
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--quick" -> quick = true;
        case "--out" -> out = args[++i];
        case "--isal-bench" -> isalBench = args[++i];
        case "--command" -> command = args[++i];
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    new BenchCoders().run(quick, new File(out), new File(isalBench), command);
  }

  private void run(boolean quick, File out, File isalBench, String command) throws Exception {
    if (!IsalNative.isAvailable()) {
      throw new IllegalStateException("the native coder is not loaded (" + IsalNative.unavailableReason()
          + "); install libisal-dev and rebuild");
    }
    String[] coders = {"native", "java", "hadoop-java"};
    if (quick) {
      // Just what the ratios need: native encode of every code at 1 MiB, Java on RS(10,4), Hadoop's RSRawEncoder
      // and our rs-codec coder on RS(6,3) and RS(10,4).
      jmh(CODES, new String[] {String.valueOf(MIB)}, new String[] {"native"}, new String[] {"encode"}, true);
      jmh(new String[] {NARROW}, new String[] {String.valueOf(MIB)}, new String[] {"java"}, new String[] {"encode"}, true);
      jmh(STOCK_RS, new String[] {String.valueOf(MIB)}, new String[] {"hadoop-java", "rs-codec"},
          new String[] {"encode"}, true);
    } else {
      jmh(CODES, new String[] {"65536", String.valueOf(MIB)}, coders, OPS, false);
      jmh(new String[] {NARROW}, new String[] {"65536", String.valueOf(MIB)}, new String[] {"java-table"}, OPS, false);
      jmh(STOCK_RS, new String[] {"65536", String.valueOf(MIB)}, new String[] {"rs-codec"}, new String[] {"encode"}, false);
    }
    rawIsal(isalBench, quick ? new int[] {MIB} : new int[] {65536, MIB}, quick);
    Map<String, Double> ratios = ratios();
    write(out, quick, command, ratios);
    StringBuilder json = new StringBuilder("{");
    for (Map.Entry<String, Double> e : ratios.entrySet()) {
      json.append(json.length() > 1 ? "," : "").append('"').append(e.getKey()).append("\":")
          .append(String.format(Locale.ROOT, "%.3f", e.getValue()));
    }
    System.out.println(json.append('}'));
  }

  private void jmh(String[] codes, String[] cells, String[] coders, String[] ops, boolean quick) throws Exception {
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
        .forks(1)
        .warmupIterations(quick ? 2 : 3)
        .warmupTime(TimeValue.milliseconds(quick ? 400 : 500))
        .measurementIterations(quick ? 4 : 5)
        .measurementTime(TimeValue.milliseconds(quick ? 400 : 500))
        .jvmArgsAppend(jvmArgs());
    for (RunResult r : new Runner(b.build()).run()) {
      String op = r.getParams().getBenchmark().replaceAll(".*\\.", "");
      String code = r.getParams().getParam("code");
      int cell = Integer.parseInt(r.getParams().getParam("cell"));
      String coder = r.getParams().getParam("coder");
      double opsPerSec = r.getPrimaryResult().getScore();
      gbps.put(key(code, cell, op, coder), opsPerSec * CoderBenchmark.bytesPerOp(code, cell, op, coder) / 1e9);
    }
  }

  private static String[] jvmArgs() {
    List<String> a = new ArrayList<>();
    a.add("--add-modules=jdk.incubator.vector");
    a.add("-Xmx2g");
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
    pb.environment().put("ISAL_BENCH_SECONDS", quick ? "0.5" : "1.5");
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
          isal.put(f[0] + "|" + f[1], Double.parseDouble(f[2]));
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
      Double ours = gbps.get(key(spec, MIB, "encode", "native"));
      Double raw = isal.get(spec + "|" + MIB);
      if (ours != null && raw != null) {
        worst = Math.min(worst, ours / raw);
      }
    }
    r.put("nativeVsIsal", worst);
    double hadoop = gbps.get(key(NARROW, MIB, "encode", "hadoop-java"));
    r.put("nativeVsHadoopJava", gbps.get(key(NARROW, MIB, "encode", "native")) / hadoop);
    r.put("javaVsHadoopJava", gbps.get(key(NARROW, MIB, "encode", "java")) / hadoop);
    r.put("wideVsNarrow", gbps.get(key(WIDE, MIB, "encode", "native")) / gbps.get(key(NARROW, MIB, "encode", "native")));
    // The worse of RS-6-3 and RS-10-4: the speed-up an operator gets on every stock RS policy.
    double rsCodec = Double.MAX_VALUE;
    for (String spec : STOCK_RS) {
      rsCodec = Math.min(rsCodec, gbps.get(key(spec, MIB, "encode", "rs-codec")) / gbps.get(key(spec, MIB, "encode", "hadoop-java")));
    }
    r.put("rsCodecVsHadoopJava", rsCodec);
    return r;
  }

  private void write(File out, boolean quick, String command, Map<String, Double> ratios) throws IOException {
    StringBuilder md = new StringBuilder();
    md.append("# Coder benchmarks\n\n");
    md.append("Written by `").append(command).append("` on ").append(ZonedDateTime.now().withNano(0)).append(".\n\n");
    md.append("- machine: ").append(org.wideec.cli.ResultsFile.machine()).append('\n');
    md.append("- JVM: ").append(System.getProperty("java.vm.name")).append(' ').append(System.getProperty("java.version"))
        .append("; Java kernel: ").append(Kernels.java().name()).append("; native: ").append(Kernels.best().name()).append('\n');
    md.append("- run: ").append(quick ? "quick (2x0.4 s warm-up, 4x0.4 s measured, 1 fork)" : "full (3x0.5 s warm-up, 5x0.5 s measured, 1 fork)")
        .append("; GB/s = 10^9 bytes/s; encode counts the k data cells, decode and repair the cells they read\n");
    md.append("- `native`: ours on ISA-L (direct buffers); `java`: our Java kernel (heap); `java-table`: our table-driven")
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
    md.append(String.format(Locale.ROOT, "| rsCodecVsHadoopJava (rs-codec / hadoop-java encode, worse of RS(6,3) and RS(10,4), 1 MiB) | %.1f | >= 20 |%n%n",
        ratios.get("rsCodecVsHadoopJava")));
    md.append("## Throughput (GB/s)\n\n| code | cell | operation | native | java | java-table | hadoop-java | rs-codec | raw ISA-L | native/raw ISA-L |\n");
    md.append("|---|---|---|---|---|---|---|---|---|---|\n");
    for (String spec : CODES) {
      for (int cell : new int[] {65536, MIB}) {
        for (String op : OPS) {
          Double nat = gbps.get(key(spec, cell, op, "native"));
          if (nat == null && gbps.get(key(spec, cell, op, "java")) == null) {
            continue;
          }
          Double raw = op.equals("encode") ? isal.get(spec + "|" + cell) : null;
          md.append("| `").append(spec).append("` | ").append(cell == MIB ? "1 MiB" : (cell / 1024) + " KiB").append(" | ")
              .append(op).append(" | ").append(f(nat)).append(" | ").append(f(gbps.get(key(spec, cell, op, "java"))))
              .append(" | ").append(f(gbps.get(key(spec, cell, op, "java-table")))).append(" | ")
              .append(f(gbps.get(key(spec, cell, op, "hadoop-java")))).append(" | ")
              .append(f(gbps.get(key(spec, cell, op, "rs-codec")))).append(" | ").append(f(raw)).append(" | ")
              .append(nat != null && raw != null ? String.format(Locale.ROOT, "%.2f", nat / raw) : "").append(" |\n");
        }
      }
    }
    org.wideec.cli.ResultsFile.writeSection(out.toPath(), md.toString());
  }

  private static String f(Double v) {
    return v == null ? "" : String.format(Locale.ROOT, "%.2f", v);
  }

  private static String key(String code, int cell, String op, String coder) {
    return code + "|" + cell + "|" + op + "|" + coder;
  }
}
