package org.wideec.coder;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the native coder slices a multiply with many sources (a wide stripe): {@code group} sources per pass,
 * {@code sliceBytes} per pass, and optional software prefetch {@code prefetchBytes} ahead (0 = off). Streaming
 * all k sources at once loses the hardware prefetchers beyond a few dozen streams (ECWide §2.2); how few
 * streams a pass may read, and how long, depends on the processor. Every tuning gives the same bytes
 * (WideTuningKernelTest checks each candidate), so the choice changes speed only.
 *
 * <p>Chosen once per process, when the native coder first multiplies, by the JVM system property
 * {@value #PROPERTY}: {@code auto} (default: the table below, by processor), {@code calibrate} (time each
 * candidate on buffers streamed from memory, under a second, like Backblaze's CodingLoop choice),
 * {@code default} ({@link #DEFAULT}) or a pinned {@code group=8,slice=16k,prefetch=0,kernel=isal}. Never throws: a
 * value that does not parse or a calibration that fails falls back to {@link #DEFAULT} with one log line.
 *
 * <p>{@code gfni}: every multiply, narrow or wide, runs the native library's GFNI kernel (one affine instruction per 64
 * bytes and coefficient) in passes of {@code group} sources over {@code sliceBytes}, prefetching {@code prefetchBytes}
 * ahead across passes. It needs AVX-512 with GFNI: a GFNI tuning chosen on a processor without it falls back to
 * {@link #DEFAULT} (ISA-L) with one log line. Otherwise ISA-L's kernels run: all sources at once up to the larger of
 * 32 and {@code group}, sliced beyond. {@code calibrate} tries GFNI candidates where the processor has GFNI. The bytes are the same in every case.
 * Resolved at the first native multiply of a process.
 */
public record WideTuning(int group, int sliceBytes, int prefetchBytes, boolean gfni) {
  private static final Logger LOG = LoggerFactory.getLogger(WideTuning.class);
  public static final String PROPERTY = "wide-ec.coder.wide.tuning";

  /** The slicing before per-processor tuning: 32 sources x 64 KiB, tuned on an Intel Xeon (benchmarks/HISTORY.md). */
  public static final WideTuning DEFAULT = new WideTuning(32, 64 << 10, 0);

  /**
   * Measured choices by processor ("vendor family", from /proc/cpuinfo). AMD family 25 (Zen 3/4): on an EPYC Zen 4
   * (1 MiB L2, 32 MiB L3) streaming RS(128,4) from memory, 8 sources x 16 KiB ran 1.3-2.0x faster than 32 x 64 KiB
   * in five quick runs of dev-support/bench-coders.sh (wideTunedVsDefault, a loaded machine); in C, 6-12 sources and
   * 16-64 KiB slices came within about 10% of it, 4 or 16 sources about 20% slower, and the prefetch variants slower
   * (those issued no prefetch instruction, see native/src/wideec_isal.c's prefetch_line: they only cut passes into
   * 2 KiB steps). Zen 4 has AVX-512 with GFNI too, but the GFNI kernel with prefetch has not been measured on one, so
   * this entry stays on ISA-L (benchmarks/HISTORY.md).
   *
   * <p>AMD family 26 (Zen 5): an EPYC Zen 5 (2 vCPUs, 1 MiB L2 per core, 32 MiB L3, AVX-512, GFNI) reads 16 streams
   * interleaved at about 26 GB/s against 35-49 for one stream, and ISA-L's best slicing (16 sources x 16 KiB) streamed
   * RS(128,4) from memory at 16.6-17.5 GB/s. The GFNI kernel in passes of 4 sources x 64 KiB, prefetching 3 KiB
   * ahead into the next pass, streamed it at 32-34 GB/s and RS(10,4) at 24-25 (unsliced GFNI 19.6, ISA-L 15.3): in C
   * (native/bench/wide_sweep), 3-8 sources x 16-128 KiB x 1-6 KiB ahead, 4 sources and 2-3 KiB ahead were best for
   * both widths; without the prefetch 4 x 64 KiB ran at 18 (benchmarks/HISTORY.md).
   *
   * <p>Intel family 6 with GFNI (measured on a Xeon Emerald Rapids, model 207: 2 vCPUs, 2 MiB L2 per core, 260 MiB
   * L3, AVX-512, GFNI): memory reads one stream at about 11 GB/s and 16 interleaved at 15. Streaming RS(128,4) from
   * 1.1 GB of stripes, ISA-L ran at 2.3 GB/s unsliced and 6.5-7.6 in its best slicings (32 x 64 KiB, 16 x 16 KiB,
   * 8 x 32 KiB); the GFNI kernel with 3 KiB prefetch ran at 12.2-12.4 in passes of 10 sources x 64 KiB, 11.8-12.1 in
   * passes of 4, and RS(10,4) at 9.6-10.0 against 8.5-9.0 and ISA-L's 8.2 (three interleaved runs of
   * native/bench/wide_sweep): here ten sources per pass are best for both widths. Intel processors without GFNI
   * (before Ice Lake) keep {@link #DEFAULT}, without a warning.
   */
  static final Map<String, WideTuning> BY_PROCESSOR = Map.of("AuthenticAMD 25", new WideTuning(8, 16 << 10, 0),
      "AuthenticAMD 26", new WideTuning(4, 64 << 10, 3 << 10, true),
      "GenuineIntel 6", new WideTuning(10, 64 << 10, 3 << 10, true));

  /**
   * What calibration tries: the table's choices, neighbours of them, and prefetch variants; the GFNI ones only where
   * the processor has GFNI.
   */
  static final List<WideTuning> CANDIDATES = List.of(DEFAULT, new WideTuning(16, 32 << 10, 0),
      new WideTuning(8, 16 << 10, 0), new WideTuning(8, 64 << 10, 0), new WideTuning(4, 16 << 10, 0),
      new WideTuning(12, 32 << 10, 0), new WideTuning(16, 16 << 10, 0), new WideTuning(8, 16 << 10, 4096),
      new WideTuning(16, 32 << 10, 4096), new WideTuning(4, 64 << 10, 3 << 10, true),
      new WideTuning(4, 32 << 10, 2 << 10, true), new WideTuning(5, 32 << 10, 2 << 10, true),
      new WideTuning(8, 32 << 10, 1 << 10, true), new WideTuning(16, 16 << 10, 0, true),
      new WideTuning(10, 64 << 10, 3 << 10, true));

  /** A tuning on ISA-L's kernels. */
  public WideTuning(int group, int sliceBytes, int prefetchBytes) {
    this(group, sliceBytes, prefetchBytes, false);
  }

  /** The native multiply's kernel: 1 = GFNI (where the processor has it; ISA-L otherwise, the same bytes), 0 = ISA-L. */
  public int kernel() {
    return gfni ? 1 : 0;
  }

  public WideTuning {
    if (group < 1 || group > 255) {
      throw new IllegalArgumentException("group " + group + " outside 1..255");
    }
    if (sliceBytes < 64 || sliceBytes > (16 << 20) || sliceBytes % 64 != 0) {
      throw new IllegalArgumentException("slice " + sliceBytes + " bytes: a multiple of 64 in 64..16m");
    }
    if (prefetchBytes < 0 || prefetchBytes > (1 << 20)) {
      throw new IllegalArgumentException("prefetch " + prefetchBytes + " bytes outside 0..1m");
    }
  }

  /** The tuning of this process (see the class comment); chosen on first use. */
  public static WideTuning current() {
    return Chosen.TUNING;
  }

  /** The candidates calibration measures, for tests and benchmarks (all of them, whatever this processor has). */
  public static List<WideTuning> candidates() {
    return CANDIDATES;
  }

  /** The candidates a processor with ({@code gfni}) or without GFNI can run. */
  static List<WideTuning> candidates(boolean gfni) {
    return CANDIDATES.stream().filter(t -> gfni || !t.gfni()).toList();
  }

  /**
   * Parses {@code group=8,slice=16k,prefetch=0,kernel=isal} (slice and prefetch in bytes, with an optional k or m;
   * kernel {@code isal} or {@code gfni}).
   */
  public static WideTuning parse(String s) {
    int group = DEFAULT.group;
    int slice = DEFAULT.sliceBytes;
    int prefetch = 0;
    boolean gfni = false;
    for (String part : s.split(",")) {
      String[] kv = part.trim().split("=", 2);
      if (kv.length != 2) {
        throw new IllegalArgumentException("expected key=value, got '" + part.trim() + "'");
      }
      String v = kv[1].trim();
      switch (kv[0].trim().toLowerCase(Locale.ROOT)) {
        case "group" -> group = Integer.parseInt(v);
        case "slice" -> slice = (int) LastLevelCache.parseSize(v);
        case "prefetch" -> prefetch = (int) LastLevelCache.parseSize(v);
        case "kernel" -> gfni = switch (v.toLowerCase(Locale.ROOT)) {
          case "gfni" -> true;
          case "isal" -> false;
          default -> throw new IllegalArgumentException("kernel '" + v + "' (isal, gfni)");
        };
        default -> throw new IllegalArgumentException("unknown key '" + kv[0].trim()
            + "' (group, slice, prefetch, kernel)");
      }
    }
    return new WideTuning(group, slice, prefetch, gfni);
  }

  @Override
  public String toString() {
    return "group=" + group + ",slice=" + (sliceBytes % 1024 == 0 ? (sliceBytes / 1024) + "k" : String.valueOf(sliceBytes))
        + ",prefetch=" + prefetchBytes + (gfni ? ",kernel=gfni" : "");
  }

  /** The table's choice for "vendor family", else {@link #DEFAULT}. */
  static WideTuning forProcessor(String processor) {
    return BY_PROCESSOR.getOrDefault(processor, DEFAULT);
  }

  /** "vendor family" of CPU 0 from /proc/cpuinfo, e.g. "AuthenticAMD 25", or "unknown". */
  static String processor() {
    try {
      String vendor = null;
      String family = null;
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"), StandardCharsets.US_ASCII)) {
        int colon = line.indexOf(':');
        if (colon < 0) {
          if (vendor != null && family != null) {
            break;
          }
          continue;
        }
        String key = line.substring(0, colon).trim();
        if (key.equals("vendor_id") && vendor == null) {
          vendor = line.substring(colon + 1).trim();
        } else if (key.equals("cpu family") && family == null) {
          family = line.substring(colon + 1).trim();
        }
      }
      return vendor != null && family != null ? vendor + " " + family : "unknown";
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  /**
   * Resolves the property once; never throws (a coder runs in NameNode and DataNode threads). {@code gfni}: whether
   * this processor runs the GFNI kernel; a GFNI tuning on one that does not gives {@link #DEFAULT}.
   */
  static WideTuning choose(String setting, String processor, boolean gfni) {
    String v = setting == null ? "auto" : setting.trim().toLowerCase(Locale.ROOT);
    try {
      WideTuning t = switch (v) {
        case "", "auto" -> forProcessor(processor);
        case "default" -> DEFAULT;
        case "calibrate" -> WideCalibration.run(candidates(gfni));
        default -> parse(v);
      };
      if (t.gfni() && !gfni && (v.isEmpty() || v.equals("auto"))) {
        // The table names a family; its members without GFNI (older Intel cores) code as before, which is no fault.
        LOG.info("wide-stripe coding: {} (auto; processor {} has no GFNI for the table's {})", DEFAULT, processor, t);
        return DEFAULT;
      }
      if (t.gfni() && !gfni) {
        LOG.warn("wide-stripe coding: {} needs AVX-512 with GFNI, which processor {} lacks; using the defaults {}", t,
            processor, DEFAULT);
        return DEFAULT;
      }
      LOG.info("wide-stripe coding: {} ({}={}, processor {})", t, PROPERTY, v.isEmpty() ? "auto" : v, processor);
      return t;
    } catch (RuntimeException | Error e) { // never into a coder's thread: the class would fail to initialise
      LOG.warn("wide-stripe coding: {}={} failed ({}); using the defaults {}", PROPERTY, v, e.toString(), DEFAULT);
      return DEFAULT;
    }
  }

  private static final class Chosen {
    static final WideTuning TUNING = choose(System.getProperty(PROPERTY), processor(), IsalNative.gfniKernel());
  }
}
