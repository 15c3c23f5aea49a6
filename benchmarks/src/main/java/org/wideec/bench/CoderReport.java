package org.wideec.bench;

import static org.wideec.bench.BenchCoders.CODES;
import static org.wideec.bench.BenchCoders.MIB;
import static org.wideec.bench.BenchCoders.NARROW;
import static org.wideec.bench.BenchCoders.OPS;
import static org.wideec.bench.BenchCoders.STREAMED;
import static org.wideec.bench.BenchCoders.WIDE;

import java.io.File;
import java.io.IOException;
import java.time.ZonedDateTime;
import java.util.Locale;
import java.util.Map;
import org.wideec.coder.Kernels;
import org.wideec.coder.WideTuning;

/**
 * The coder benchmarks' section of benchmarks/HISTORY.md: how the run was made (machine, JVM, kernels, inputs), the
 * target ratios, the physical limit of an encode and every throughput measured.
 */
final class CoderReport {
  private final CoderFigures figures;
  private final long llc;

  CoderReport(CoderFigures figures, long llc) {
    this.figures = figures;
    this.llc = llc;
  }

  /** Writes the section into {@code out}, replacing its section of the same heading. */
  void write(File out, boolean quick, String command, Map<String, Double> ratios) throws IOException {
    StringBuilder md = new StringBuilder();
    header(md, quick, command);
    ratios(md, ratios);
    limits(md);
    throughput(md);
    org.wideec.cli.ResultsFile.writeSection(out.toPath(), md.toString());
  }

  private void header(StringBuilder md, boolean quick, String command) {
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
        .append(" tuning; `native-unsliced`: the same with every source in one pass, in cache only; `java`: our Java kernel (heap); `native-heap`: ours on ISA-L for heap buffers, through staging buffers; `java-table`: our table-driven")
        .append(" Java kernel; `hadoop-java`: Hadoop's RSRawEncoder/RSRawDecoder on RS(k, n-k); `raw ISA-L`: native/bench/isal_bench,")
        .append(" `ec_encode_data` over whole cells on the same matrix; `rs-codec`: ours on ISA-L for Hadoop's own `rs` codec, from")
        .append(" CodecUtil through Hadoop's RawErasureEncoder API (direct buffers). Hadoop's own native coder needs libhadoop built with")
        .append(" ISA-L, which Maven Central does not ship; it is capped at k <= 10, k + m <= 14 anyway.\n\n");
  }

  private static void ratios(StringBuilder md, Map<String, Double> ratios) {
    md.append("## Target ratios\n\n| ratio | value | target |\n|---|---|---|\n");
    md.append(String.format(Locale.ROOT, "| nativeVsIsal (worst code, encode, 1 MiB) | %.3f | >= 0.90 |%n", ratios.get("nativeVsIsal")));
    md.append(String.format(Locale.ROOT, "| nativeVsHadoopJava (RS(10,4) encode, 1 MiB) | %.1f | >= 20 |%n", ratios.get("nativeVsHadoopJava")));
    md.append(String.format(Locale.ROOT, "| javaVsHadoopJava (RS(10,4) encode, 1 MiB) | %.2f | >= 3 |%n", ratios.get("javaVsHadoopJava")));
    md.append(String.format(Locale.ROOT, "| nativeHeapVsJava (RS(10,4) encode of heap buffers, ISA-L through staging / Java kernel, 1 MiB) | %.2f | none |%n",
        ratios.get("nativeHeapVsJava")));
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
  }

  private void limits(StringBuilder md) {
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
            figures.memoryRead(threads), figures.memoryLimit(spec, threads), f(figures.cached(spec, threads)),
            figures.computeLimit(threads), figures.limit(spec, threads), f(figures.streamed(spec, "native", threads)),
            figures.streamed(spec, "native", threads) / figures.limit(spec, threads)));
      }
    }
    md.append('\n');
  }

  private void throughput(StringBuilder md) {
    md.append("## Throughput, streamed inputs, 1 thread (GB/s)\n\n| code | cell | operation | native | native-default | java | native-heap | java-table | hadoop-java | rs-codec | raw ISA-L | native/raw ISA-L |\n");
    md.append("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (String spec : CODES) {
      for (int cell : new int[] {65536, MIB}) {
        for (String op : OPS) {
          Double nat = figures.gbps(spec, cell, op, "native", STREAMED, 1);
          if (nat == null && figures.gbps(spec, cell, op, "java", STREAMED, 1) == null) {
            continue;
          }
          Double raw = op.equals("encode") ? figures.isal(spec, cell) : null;
          md.append("| `").append(spec).append("` | ").append(cell == MIB ? "1 MiB" : (cell / 1024) + " KiB").append(" | ")
              .append(op).append(" | ").append(f(nat)).append(" | ")
              .append(f(figures.gbps(spec, cell, op, "native-default", STREAMED, 1))).append(" | ")
              .append(f(figures.gbps(spec, cell, op, "java", STREAMED, 1))).append(" | ")
              .append(f(figures.gbps(spec, cell, op, "native-heap", STREAMED, 1)))
              .append(" | ").append(f(figures.gbps(spec, cell, op, "java-table", STREAMED, 1))).append(" | ")
              .append(f(figures.gbps(spec, cell, op, "hadoop-java", STREAMED, 1))).append(" | ")
              .append(f(figures.gbps(spec, cell, op, "rs-codec", STREAMED, 1))).append(" | ").append(f(raw)).append(" | ")
              .append(nat != null && raw != null ? String.format(Locale.ROOT, "%.2f", nat / raw) : "").append(" |\n");
        }
      }
    }
  }

  private static String f(Double v) {
    return v == null ? "" : String.format(Locale.ROOT, "%.2f", v);
  }
}
