package org.wideec.bench;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.erasurecode.CodecUtil;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.RSRawDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RSRawEncoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;
import org.apache.hadoop.io.erasurecode.rawcoder.WideEcRawEncoder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.code.MinimumDistance;
import org.wideec.coder.CodingKernel;
import org.wideec.coder.ErasureCoder;
import org.wideec.coder.IsalKernel;
import org.wideec.coder.JavaKernel;
import org.wideec.coder.Kernels;
import org.wideec.coder.LastLevelCache;
import org.wideec.coder.WideTuning;

/**
 * Coder throughput: encode, decode of one lost data unit (from k units, as HDFS's reader does), decode of
 * the most losses the code always survives, and single-unit repair by the cheapest plan (local group).
 * Coders: ours on ISA-L ({@code native}), our fastest Java kernel ({@code java}), our table-driven Java
 * kernel ({@code java-table}) and Hadoop's {@code RSRawEncoder}/{@code RSRawDecoder} on RS(k, n-k), the
 * same numbers of data and parity units ({@code hadoop-java}). {@code rs-codec} (rs codes, encode only) is our
 * native coder for Hadoop's own {@code rs} codec as HDFS gets it: from CodecUtil, through Hadoop's
 * RawErasureEncoder API, on direct buffers. {@code native-default} is {@code native} with the wide slicing of
 * before per-processor tuning ({@link WideTuning#DEFAULT}); {@code native-unsliced} multiplies every source in one
 * pass, on the kernel of this process's tuning (the in-cache compute limit: cached inputs need no slicing). Bytes
 * per operation: see {@link #bytesPerOp}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CoderBenchmark {
  /** Every source in one pass (no slicing, no prefetch), on the kernel {@link WideTuning#current()} uses. */
  static final WideTuning UNSLICED = new WideTuning(255, 16 << 20, 0, WideTuning.current().gfni());

  @Param({"rs:k=10,m=4"})
  public String code;

  @Param({"1048576"})
  public int cell;

  @Param({"native"})
  public String coder;

  /**
   * {@code streamed}: each operation works on the next of a rotating set of stripes at least 4x the last-level
   * cache (as data arriving from disks and networks is never cache-resident); {@code cached}: one stripe of cells
   * small enough that it stays in the last-level cache (at most a quarter of it), the in-cache compute speed.
   */
  @Param({"streamed"})
  public String inputs;

  /** System property with the last-level cache size in bytes; BenchCoders sets it for every fork. */
  public static final String LLC_PROPERTY = "wideec.bench.llcBytes";

  private LinearCode c;
  private ErasureCoder ours;
  private RawErasureEncoder rsCodecEncoder;
  private RSRawEncoder hEncoder;
  private RSRawDecoder hDecoder;
  private Stripe[] stripes;
  private int next;

  /** Everything one operation touches: inputs and outputs of every benchmark, for one stripe. */
  private static final class Stripe {
    ByteBuffer[] data;
    ByteBuffer[] parity;
    ByteBuffer[] oneLost;
    int[] oneWanted;
    ByteBuffer[] oneOut;
    ByteBuffer[] maxLost;
    int[] maxWanted;
    ByteBuffer[] maxOut;
    ByteBuffer[] repairIn;
    int[] repairWanted;
    ByteBuffer[] repairOut;

    byte[][] hData;
    byte[][] hParity;
    byte[][] hOneIn;
    int[] hOneErased;
    byte[][] hOneOut;
    byte[][] hMaxIn;
    int[] hMaxErased;
    byte[][] hMaxOut;
  }

  private Stripe stripe() {
    Stripe s = stripes[next];
    next = next + 1 == stripes.length ? 0 : next + 1;
    return s;
  }

  /** The last-level cache from {@value #LLC_PROPERTY}, else from sysfs; fails rather than guess. */
  public static long llcBytes() {
    String v = System.getProperty(LLC_PROPERTY);
    if (v != null) {
      return Long.parseLong(v);
    }
    return LastLevelCache.bytes().orElseThrow(() -> new IllegalStateException("cannot find the last-level cache size"
        + " in /sys/devices/system/cpu/cpu0/cache; pass --llc-bytes N to BenchCoders (or -D" + LLC_PROPERTY + "=N)"));
  }

  /** Cell bytes in a run: {@code cell}, or for {@code cached} inputs at most a quarter of the LLC per stripe. */
  public static int effectiveCell(String spec, int cell, String inputs, long llc) {
    if (!inputs.equals("cached")) {
      return cell;
    }
    LinearCode c = Codes.fromSpec(spec);
    long units = c.n() + c.n() - c.k() + 2; // inputs, parity, and the decode outputs
    long fit = llc / 4 / units / 4096 * 4096;
    return (int) Math.max(4096, Math.min(cell, fit));
  }

  /** Stripes in the rotation: one when cached, else enough for 4x the LLC, at least two. */
  static int stripeCount(LinearCode c, int cell, String inputs, long llc) {
    if (inputs.equals("cached")) {
      return 1;
    }
    long perStripe = (long) (c.n() + c.n() - c.k() + 2) * cell;
    return (int) Math.max(2, (4 * llc + perStripe - 1) / perStripe);
  }

  @Setup(Level.Trial)
  public void setUp() throws java.io.IOException {
    c = Codes.fromSpec(code);
    long llc = llcBytes();
    cell = effectiveCell(code, cell, inputs, llc);
    stripes = new Stripe[stripeCount(c, cell, inputs, llc)];
    Random r = new Random(42);
    if (coder.equals("hadoop-java")) {
      ErasureCoderOptions o = new ErasureCoderOptions(c.k(), c.n() - c.k());
      hEncoder = new RSRawEncoder(o);
      hDecoder = new RSRawDecoder(o);
      for (int i = 0; i < stripes.length; i++) {
        stripes[i] = setUpHadoop(r);
      }
      return;
    }
    if (coder.equals("rs-codec")) {
      setUpRsCodec();
      for (int i = 0; i < stripes.length; i++) {
        Stripe s = new Stripe();
        s.data = buffers(c.k(), true, r);
        s.parity = buffers(c.n() - c.k(), true, null);
        stripes[i] = s;
      }
      return;
    }
    CodingKernel kernel = switch (coder) {
      case "native" -> IsalKernel.INSTANCE;
      case "native-default" -> IsalKernel.tuned(WideTuning.DEFAULT);
      case "native-unsliced" -> IsalKernel.tuned(UNSLICED);
      case "native-heap" -> Kernels.best(); // heap buffers: ISA-L through staging buffers when loaded
      case "java" -> Kernels.java();
      case "java-table" -> JavaKernel.INSTANCE;
      default -> throw new IllegalArgumentException("unknown coder " + coder);
    };
    ours = new ErasureCoder(c, kernel);
    for (int i = 0; i < stripes.length; i++) {
      stripes[i] = setUpOurs(r, coder.startsWith("native") && !coder.equals("native-heap"));
    }
  }

  private Stripe setUpOurs(Random r, boolean direct) {
    Stripe s = new Stripe();
    s.data = buffers(c.k(), direct, r);
    s.parity = buffers(ours.encodedUnits().length, direct, null);
    ours.encode(s.data, s.parity);
    ByteBuffer[] units = new ByteBuffer[c.n()];
    int[] enc = ours.encodedUnits();
    for (int i = 0; i < enc.length; i++) {
      units[enc[i]] = s.parity[i];
    }
    for (int u = 0; u < c.n(); u++) {
      if (units[u] == null) {
        units[u] = s.data[u];
      }
    }
    // One lost data unit, rebuilt from k units as HDFS's striped reader would hand them over.
    s.oneLost = only(units, firstDecodable(c, 0));
    s.oneWanted = new int[] {0};
    s.oneOut = buffers(1, direct, null);
    // The most losses always survived: data units 0..f-1.
    int f = MinimumDistance.of(c).faultsTolerated();
    s.maxWanted = range(0, f);
    s.maxLost = units.clone();
    for (int u : s.maxWanted) {
      s.maxLost[u] = null;
    }
    s.maxOut = buffers(f, direct, null);
    // Cheapest single-unit repair (the local group for an LRC).
    s.repairWanted = new int[] {0};
    s.repairIn = only(units, c.repairPlan(0).helpers());
    s.repairOut = buffers(1, direct, null);
    return s;
  }

  private Stripe setUpHadoop(Random r) throws java.io.IOException {
    int k = c.k();
    int m = c.n() - c.k();
    Stripe s = new Stripe();
    s.hData = new byte[k][cell];
    for (byte[] d : s.hData) {
      r.nextBytes(d);
    }
    s.hParity = new byte[m][cell];
    hEncoder.encode(s.hData, s.hParity);
    byte[][] all = new byte[k + m][];
    System.arraycopy(s.hData, 0, all, 0, k);
    System.arraycopy(s.hParity, 0, all, k, m);
    s.hOneIn = all.clone();
    s.hOneIn[0] = null;
    for (int u = k + 1; u < k + m; u++) {
      s.hOneIn[u] = null;
    }
    s.hOneErased = new int[] {0};
    s.hOneOut = new byte[1][cell];
    s.hMaxErased = range(0, m);
    s.hMaxIn = all.clone();
    for (int u : s.hMaxErased) {
      s.hMaxIn[u] = null;
    }
    s.hMaxOut = new byte[m][cell];
    return s;
  }

  private void setUpRsCodec() {
    int k = c.k();
    int m = c.n() - c.k();
    if (!code.equals("rs:k=" + k + ",m=" + m)) {
      throw new IllegalArgumentException("coder rs-codec is Hadoop's rs codec; " + code + " is not an rs code");
    }
    // Only our coder listed: a missing native library fails the run instead of measuring rs_java.
    Configuration conf = new Configuration();
    conf.set("io.erasurecode.codec.rs.rawcoders", "wideec_native");
    rsCodecEncoder = CodecUtil.createRawEncoder(conf, "rs", new ErasureCoderOptions(k, m));
    if (!(rsCodecEncoder instanceof WideEcRawEncoder)) {
      throw new IllegalStateException("CodecUtil gave " + rsCodecEncoder.getClass().getName() + " for wideec_native");
    }
  }

  @Benchmark
  public Object encode() throws Exception {
    Stripe s = stripe();
    if (rsCodecEncoder != null) {
      // Hadoop's encode consumes the inputs (moves their positions to the limit), as HDFS's cell buffers.
      for (ByteBuffer b : s.data) {
        b.position(0);
      }
      for (ByteBuffer b : s.parity) {
        b.position(0);
      }
      rsCodecEncoder.encode(s.data, s.parity);
      return s.parity;
    }
    if (hEncoder != null) {
      hEncoder.encode(s.hData, s.hParity);
      return s.hParity;
    }
    ours.encode(s.data, s.parity);
    return s.parity;
  }

  @Benchmark
  public Object decodeOneDataUnit() throws Exception {
    Stripe s = stripe();
    if (hDecoder != null) {
      hDecoder.decode(s.hOneIn, s.hOneErased, s.hOneOut);
      return s.hOneOut;
    }
    ours.reconstruct(s.oneLost, s.oneWanted, s.oneOut);
    return s.oneOut;
  }

  @Benchmark
  public Object decodeMaxLosses() throws Exception {
    Stripe s = stripe();
    if (hDecoder != null) {
      hDecoder.decode(s.hMaxIn, s.hMaxErased, s.hMaxOut);
      return s.hMaxOut;
    }
    ours.reconstruct(s.maxLost, s.maxWanted, s.maxOut);
    return s.maxOut;
  }

  @Benchmark
  public Object localRepair() throws Exception {
    Stripe s = stripe();
    if (hDecoder != null) {
      // RS has no local repair: one unit from k, the same as decodeOneDataUnit.
      hDecoder.decode(s.hOneIn, s.hOneErased, s.hOneOut);
      return s.hOneOut;
    }
    ours.reconstruct(s.repairIn, s.repairWanted, s.repairOut);
    return s.repairOut;
  }

  /**
   * Bytes an operation counts for throughput, with {@code cell} the cell of the run ({@link #effectiveCell}):
   * encode counts the k data cells; a decode or repair counts the cells it reads (k for one lost unit, k for the maximum losses, the plan's helpers for a repair;
   * Hadoop RS always k).
   */
  public static long bytesPerOp(String spec, int cell, String op, String coder) {
    LinearCode c = Codes.fromSpec(spec);
    long units = switch (op) {
      case "localRepair" -> coder.equals("hadoop-java") ? c.k() : c.repairPlan(0).cost();
      default -> c.k();
    };
    return units * cell;
  }

  private static int[] firstDecodable(LinearCode c, int lost) {
    // Data units other than the lost one, then the lowest-index parities: HDFS's choice of k inputs.
    int[] in = new int[c.k()];
    int j = 0;
    for (int u = 0; u < c.n() && j < c.k(); u++) {
      if (u != lost) {
        in[j++] = u;
      }
    }
    return in;
  }

  private static ByteBuffer[] only(ByteBuffer[] units, int[] keep) {
    ByteBuffer[] out = new ByteBuffer[units.length];
    for (int u : keep) {
      out[u] = units[u];
    }
    return out;
  }

  private byte[] randomCell;

  private ByteBuffer[] buffers(int count, boolean direct, Random fill) {
    ByteBuffer[] b = new ByteBuffer[count];
    for (int i = 0; i < count; i++) {
      // Every direct cell 64 bytes into a page, as native/bench/isal_bench lays them out: cells at one page offset
      // share L1 sets, which costs narrow codes about 30% against staggered cells, so both sides need one layout.
      // (A malloc of its own per buffer, as the JVM gives, is this layout, unless glibc's mmap threshold has grown.)
      b[i] = direct ? ByteBuffer.allocateDirect(cell + 8192).alignedSlice(4096).position(64).slice().limit(cell).slice()
          : ByteBuffer.allocate(cell);
      if (fill != null) {
        // One random cell, each copy with its own first 8 bytes: coding speed does not depend on the bytes, and
        // filling hundreds of MiB with Random per fork would double the quick run.
        if (randomCell == null) {
          randomCell = new byte[cell];
          fill.nextBytes(randomCell);
        }
        b[i].put(0, randomCell);
        b[i].putLong(0, fill.nextLong());
      }
    }
    return b;
  }

  static int[] range(int from, int count) {
    int[] r = new int[count];
    Arrays.setAll(r, i -> from + i);
    return r;
  }
}
