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
 * <p>{@code gfni}: multiplies that are not sliced (at most 32 sources, or {@code group} when larger: narrow stripes,
 * local groups, most decodes) run the native library's GFNI kernel (one affine instruction per 64 bytes and
 * coefficient) where the processor has AVX-512 with GFNI, ISA-L's kernels elsewhere; the bytes are the same.
 * {@code calibrate} keeps the table's kernel for the processor. Resolved at the first native multiply of a process.
 */
public record WideTuning(int group, int sliceBytes, int prefetchBytes, boolean gfni) {
  private static final Logger LOG = LoggerFactory.getLogger(WideTuning.class);
  public static final String PROPERTY = "wide-ec.coder.wide.tuning";

  /** The slicing before per-processor tuning: 32 sources x 64 KiB, tuned on an Intel Xeon (benchmarks/RESULTS.md). */
  public static final WideTuning DEFAULT = new WideTuning(32, 64 << 10, 0);

  /**
   * Measured choices by processor ("vendor family", from /proc/cpuinfo). AMD family 25 (Zen 3/4): on an EPYC Zen 4
   * (1 MiB L2, 32 MiB L3) streaming RS(128,4) from memory, 8 sources x 16 KiB ran 1.3-2.0x faster than 32 x 64 KiB
   * in five quick runs of dev-support/bench-coders.sh (wideTunedVsDefault, a loaded machine); in C, 6-12 sources and
   * 16-64 KiB slices came within about 10% of it, 4 or 16 sources about 20% slower, and software prefetch only slowed
   * it down (issue 15, benchmarks/RESULTS.md).
   *
   * <p>AMD family 26 (Zen 5): on an EPYC Zen 5 (2 vCPUs, 1 MiB L2 per core, 32 MiB L3, AVX-512, GFNI) streaming
   * RS(128,4) from memory in C (native/bench/wide_sweep, 1 MiB cells, rounds of interleaved configurations on a quiet
   * machine), 16 sources x 16 KiB ran 16.6-17.5 GB/s in every run, 8-12 sources x 16-32 KiB 15.5-17.4 in some runs
   * and 11.5-12.4 in others, 24 sources 9.8-16.3, 32 x 64 KiB (the default) 12.7-14.6, all 128 at once 5.8-6.3;
   * slices of 4-128 KiB moved it by under 10%, and software prefetch (0.5-32 KiB ahead, steps of 1-4 KiB, hints
   * t0/t1/nta) or non-temporal parity stores changed nothing beyond the noise. In dev-support/bench-coders.sh --quick
   * (a shared machine) it ran 1.23-1.32x the default. What bounds it: reading 16 streams interleaved runs at about
   * 26 GB/s against 32-41 for one stream (issue 15, benchmarks/RESULTS.md). Its multiplies of up to 16 sources (RS(10,4),
   * the local groups) run the GFNI kernel: in C, RS(10,4) streamed from memory 20-22 GB/s against 13.8 for ISA-L, in
   * cache 62 against 31; sliced wide multiplies stay on ISA-L, which streamed no slower (17 against 14-16).
   */
  static final Map<String, WideTuning> BY_PROCESSOR = Map.of("AuthenticAMD 25", new WideTuning(8, 16 << 10, 0),
      "AuthenticAMD 26", new WideTuning(16, 16 << 10, 0, true));

  /** What calibration tries: the table's choices, neighbours of them, and prefetch variants. */
  static final List<WideTuning> CANDIDATES = List.of(DEFAULT, new WideTuning(16, 32 << 10, 0),
      new WideTuning(8, 16 << 10, 0), new WideTuning(8, 64 << 10, 0), new WideTuning(4, 16 << 10, 0),
      new WideTuning(12, 32 << 10, 0), new WideTuning(16, 16 << 10, 0), new WideTuning(8, 16 << 10, 4096),
      new WideTuning(16, 32 << 10, 4096));

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

  /** The candidates calibration measures, for tests and benchmarks. */
  public static List<WideTuning> candidates() {
    return CANDIDATES;
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

  /** The calibrated slicing with the kernel the table picks for this processor (calibration times sliced passes). */
  static WideTuning withKernelOf(WideTuning sliced, WideTuning table) {
    return new WideTuning(sliced.group(), sliced.sliceBytes(), sliced.prefetchBytes(), table.gfni());
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

  /** Resolves the property once; never throws (a coder runs in NameNode and DataNode threads). */
  static WideTuning choose(String setting, String processor) {
    String v = setting == null ? "auto" : setting.trim().toLowerCase(Locale.ROOT);
    try {
      WideTuning t = switch (v) {
        case "", "auto" -> forProcessor(processor);
        case "default" -> DEFAULT;
        case "calibrate" -> withKernelOf(WideCalibration.run(CANDIDATES), forProcessor(processor));
        default -> parse(v);
      };
      LOG.info("wide-stripe coding: {} ({}={}, processor {})", t, PROPERTY, v.isEmpty() ? "auto" : v, processor);
      return t;
    } catch (RuntimeException | Error e) { // never into a coder's thread: the class would fail to initialise
      LOG.warn("wide-stripe coding: {}={} failed ({}); using the defaults {}", PROPERTY, v, e.toString(), DEFAULT);
      return DEFAULT;
    }
  }

  private static final class Chosen {
    static final WideTuning TUNING = choose(System.getProperty(PROPERTY), processor());
  }
}
