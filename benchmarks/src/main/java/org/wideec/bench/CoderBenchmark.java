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

/**
 * Coder throughput: encode, decode of one lost data unit (from k units, as HDFS's reader does), decode of
 * the most losses the code always survives, and single-unit repair by the cheapest plan (local group).
 * Coders: ours on ISA-L ({@code native}), our fastest Java kernel ({@code java}), our table-driven Java
 * kernel ({@code java-table}) and Hadoop's {@code RSRawEncoder}/{@code RSRawDecoder} on RS(k, n-k), the
 * same numbers of data and parity units ({@code hadoop-java}). {@code rs-codec} (rs codes, encode only) is our
 * native coder for Hadoop's own {@code rs} codec as HDFS gets it: from CodecUtil, through Hadoop's
 * RawErasureEncoder API, on direct buffers. Bytes per operation: see {@link #bytesPerOp}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CoderBenchmark {
  @Param({"rs:k=10,m=4"})
  public String code;

  @Param({"1048576"})
  public int cell;

  @Param({"native"})
  public String coder;

  private LinearCode c;
  private ErasureCoder ours;
  private ByteBuffer[] data;
  private ByteBuffer[] parity;
  private ByteBuffer[] oneLost;
  private int[] oneWanted;
  private ByteBuffer[] oneOut;
  private ByteBuffer[] maxLost;
  private int[] maxWanted;
  private ByteBuffer[] maxOut;
  private ByteBuffer[] repairIn;
  private int[] repairWanted;
  private ByteBuffer[] repairOut;

  private RawErasureEncoder rsCodecEncoder;

  private RSRawEncoder hEncoder;
  private RSRawDecoder hDecoder;
  private byte[][] hData;
  private byte[][] hParity;
  private byte[][] hOneIn;
  private int[] hOneErased;
  private byte[][] hOneOut;
  private byte[][] hMaxIn;
  private int[] hMaxErased;
  private byte[][] hMaxOut;

  @Setup(Level.Trial)
  public void setUp() throws java.io.IOException {
    c = Codes.fromSpec(code);
    Random r = new Random(42);
    if (coder.equals("hadoop-java")) {
      setUpHadoop(r);
      return;
    }
    if (coder.equals("rs-codec")) {
      setUpRsCodec(r);
      return;
    }
    CodingKernel kernel = switch (coder) {
      case "native" -> IsalKernel.INSTANCE;
      case "java" -> Kernels.java();
      case "java-table" -> JavaKernel.INSTANCE;
      default -> throw new IllegalArgumentException("unknown coder " + coder);
    };
    boolean direct = coder.equals("native");
    ours = new ErasureCoder(c, kernel);
    data = buffers(c.k(), direct, r);
    parity = buffers(ours.encodedUnits().length, direct, null);
    ours.encode(data, parity);
    ByteBuffer[] units = new ByteBuffer[c.n()];
    int[] enc = ours.encodedUnits();
    for (int i = 0; i < enc.length; i++) {
      units[enc[i]] = parity[i];
    }
    for (int u = 0; u < c.n(); u++) {
      if (units[u] == null) {
        units[u] = data[u];
      }
    }
    // One lost data unit, rebuilt from k units as HDFS's striped reader would hand them over.
    int[] kInputs = firstDecodable(c, 0);
    oneLost = only(units, kInputs);
    oneWanted = new int[] {0};
    oneOut = buffers(1, direct, null);
    // The most losses always survived: data units 0..f-1.
    int f = MinimumDistance.of(c).faultsTolerated();
    maxWanted = range(0, f);
    maxLost = units.clone();
    for (int u : maxWanted) {
      maxLost[u] = null;
    }
    maxOut = buffers(f, direct, null);
    // Cheapest single-unit repair (the local group for an LRC).
    repairWanted = new int[] {0};
    repairIn = only(units, c.repairPlan(0).helpers());
    repairOut = buffers(1, direct, null);
  }

  private void setUpHadoop(Random r) throws java.io.IOException {
    int k = c.k();
    int m = c.n() - c.k();
    ErasureCoderOptions o = new ErasureCoderOptions(k, m);
    hEncoder = new RSRawEncoder(o);
    hDecoder = new RSRawDecoder(o);
    hData = new byte[k][cell];
    for (byte[] d : hData) {
      r.nextBytes(d);
    }
    hParity = new byte[m][cell];
    hEncoder.encode(hData, hParity);
    byte[][] all = new byte[k + m][];
    System.arraycopy(hData, 0, all, 0, k);
    System.arraycopy(hParity, 0, all, k, m);
    hOneIn = all.clone();
    hOneIn[0] = null;
    for (int u = k + 1; u < k + m; u++) {
      hOneIn[u] = null;
    }
    hOneErased = new int[] {0};
    hOneOut = new byte[1][cell];
    hMaxErased = range(0, m);
    hMaxIn = all.clone();
    for (int u : hMaxErased) {
      hMaxIn[u] = null;
    }
    hMaxOut = new byte[m][cell];
  }

  private void setUpRsCodec(Random r) {
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
    data = buffers(k, true, r);
    parity = buffers(m, true, null);
  }

  @Benchmark
  public Object encode() throws Exception {
    if (rsCodecEncoder != null) {
      // Hadoop's encode consumes the inputs (moves their positions to the limit), as HDFS's cell buffers.
      for (ByteBuffer b : data) {
        b.position(0);
      }
      for (ByteBuffer b : parity) {
        b.position(0);
      }
      rsCodecEncoder.encode(data, parity);
      return parity;
    }
    if (hEncoder != null) {
      hEncoder.encode(hData, hParity);
      return hParity;
    }
    ours.encode(data, parity);
    return parity;
  }

  @Benchmark
  public Object decodeOneDataUnit() throws Exception {
    if (hDecoder != null) {
      hDecoder.decode(hOneIn, hOneErased, hOneOut);
      return hOneOut;
    }
    ours.reconstruct(oneLost, oneWanted, oneOut);
    return oneOut;
  }

  @Benchmark
  public Object decodeMaxLosses() throws Exception {
    if (hDecoder != null) {
      hDecoder.decode(hMaxIn, hMaxErased, hMaxOut);
      return hMaxOut;
    }
    ours.reconstruct(maxLost, maxWanted, maxOut);
    return maxOut;
  }

  @Benchmark
  public Object localRepair() throws Exception {
    if (hDecoder != null) {
      // RS has no local repair: one unit from k, the same as decodeOneDataUnit.
      hDecoder.decode(hOneIn, hOneErased, hOneOut);
      return hOneOut;
    }
    ours.reconstruct(repairIn, repairWanted, repairOut);
    return repairOut;
  }

  /**
   * Bytes an operation counts for throughput: encode counts the k data cells; a decode or repair counts
   * the cells it reads (k for one lost unit, k for the maximum losses, the plan's helpers for a repair;
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

  private ByteBuffer[] buffers(int count, boolean direct, Random fill) {
    ByteBuffer[] b = new ByteBuffer[count];
    byte[] tmp = new byte[cell];
    for (int i = 0; i < count; i++) {
      // 64-byte aligned direct buffers, as ISA-L's own benchmark (and native/bench/isal_bench) uses.
      b[i] = direct ? ByteBuffer.allocateDirect(cell + 64).alignedSlice(64).limit(cell).slice() : ByteBuffer.allocate(cell);
      if (fill != null) {
        fill.nextBytes(tmp);
        b[i].put(0, tmp);
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
