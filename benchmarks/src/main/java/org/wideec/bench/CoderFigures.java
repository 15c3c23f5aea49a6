package org.wideec.bench;

import static org.wideec.bench.BenchCoders.CACHED;
import static org.wideec.bench.BenchCoders.CODES;
import static org.wideec.bench.BenchCoders.MIB;
import static org.wideec.bench.BenchCoders.NARROW;
import static org.wideec.bench.BenchCoders.STOCK_RS;
import static org.wideec.bench.BenchCoders.STREAMED;
import static org.wideec.bench.BenchCoders.UNSLICED;
import static org.wideec.bench.BenchCoders.WIDE;

import java.util.LinkedHashMap;
import java.util.Map;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.coder.ErasureCoder;

/**
 * What one run of the coder benchmarks measured (each figure the best of the rounds that measured it), and what is
 * derived from it: the physical limit of an encode on this machine and the target ratios.
 */
final class CoderFigures {
  /** GB/s by "code|cell|op|coder|inputs|threads". */
  private final Map<String, Double> gbps = new LinkedHashMap<>();
  /** Raw ISA-L's encode GB/s by "code|cell". */
  private final Map<String, Double> isal = new LinkedHashMap<>();
  /** Memory-read GB/s by thread count. */
  private final Map<Integer, Double> memRead = new LinkedHashMap<>();

  /** A JMH figure; a second round keeps the better one. */
  void measured(String code, int cell, String op, String coder, String inputs, int threads, double gbPerSec) {
    gbps.merge(key(code, cell, op, coder, inputs, threads), gbPerSec, Math::max);
  }

  /** A raw ISA-L figure (isal_bench's code and cell columns); a second round keeps the better one. */
  void measuredIsal(String code, String cell, double gbPerSec) {
    isal.merge(code + "|" + cell, gbPerSec, Math::max);
  }

  void measuredMemoryRead(int threads, double gbPerSec) {
    memRead.put(threads, gbPerSec);
  }

  /** A JMH figure, or null when not measured. */
  Double gbps(String code, int cell, String op, String coder, String inputs, int threads) {
    return gbps.get(key(code, cell, op, coder, inputs, threads));
  }

  /** Raw ISA-L's encode of a code at a cell size, or null when not measured. */
  Double isal(String code, int cell) {
    return isal.get(code + "|" + cell);
  }

  double memoryRead(int threads) {
    return memRead.get(threads);
  }

  /** The target ratios, by the names the JSON line and RESULTS.md use. */
  Map<String, Double> ratios() {
    Map<String, Double> r = new LinkedHashMap<>();
    double worst = Double.MAX_VALUE;
    for (String spec : CODES) {
      Double ours = streamed(spec, "native", 1);
      Double raw = isal(spec, MIB);
      if (ours != null && raw != null) {
        worst = Math.min(worst, ours / raw);
      }
    }
    r.put("nativeVsIsal", worst);
    double hadoop = streamed(NARROW, "hadoop-java", 1);
    r.put("nativeVsHadoopJava", streamed(NARROW, "native", 1) / hadoop);
    r.put("javaVsHadoopJava", streamed(NARROW, "java", 1) / hadoop);
    // Heap buffers through ISA-L (staging) against the Java kernel on the same heap buffers: what a heap caller gains.
    r.put("nativeHeapVsJava", streamed(NARROW, "native-heap", 1) / streamed(NARROW, "java", 1));
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

  Double streamed(String spec, String coder, int threads) {
    return gbps.get(key(spec, MIB, "encode", coder, STREAMED, threads));
  }

  /** The in-cache encode of a code: the faster of the tuned coder and every source in one pass. */
  Double cached(String spec, int threads) {
    Double tuned = gbps.get(key(spec, MIB, "encode", "native", CACHED, threads));
    Double unsliced = gbps.get(key(spec, MIB, "encode", UNSLICED, CACHED, threads));
    return tuned == null || unsliced == null ? null : Math.max(tuned, unsliced);
  }

  /**
   * Data bytes per second no encoder can beat here: an encode of k cells moves k + p cells through memory
   * (reads k, writes p; a write counted as cheap as a read, which flatters the memory), and cannot run faster
   * than the same coder with its inputs in cache.
   */
  double memoryLimit(String spec, int threads) {
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
  double computeLimit(int threads) {
    return Math.max(cached(NARROW, threads), cached(WIDE, threads));
  }

  double limit(String spec, int threads) {
    return Math.min(memoryLimit(spec, threads), computeLimit(threads));
  }

  static String key(String code, int cell, String op, String coder, String inputs, int threads) {
    return code + "|" + cell + "|" + op + "|" + coder + "|" + inputs + "|" + threads;
  }
}
