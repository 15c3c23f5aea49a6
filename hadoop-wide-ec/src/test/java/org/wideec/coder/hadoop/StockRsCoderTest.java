package org.wideec.coder.hadoop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.erasurecode.CodecRegistry;
import org.apache.hadoop.io.erasurecode.CodecUtil;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.NativeRSRawDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.NativeRSRawEncoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RSRawDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RSRawEncoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;
import org.apache.hadoop.io.erasurecode.rawcoder.WideEcRawDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.WideEcRawEncoder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.wideec.coder.NativeRequirement;

/**
 * Our coders for Hadoop's own {@code rs} codec, reached the way HDFS reaches them (CodecUtil with
 * io.erasurecode.codec.rs.rawcoders): off unless configured, parity equal to RSRawEncoder's, and each side
 * decodes what the other encoded for every erasure pattern of every stock RS policy.
 */
class StockRsCoderTest {
  static final String KEY = "io.erasurecode.codec.rs.rawcoders";
  /** (k, m) of HDFS's system RS policies: RS-3-2, RS-6-3, RS-10-4. */
  static final int[][] STOCK_POLICIES = {{3, 2}, {6, 3}, {10, 4}};

  static Configuration conf(String coders) {
    Configuration conf = new Configuration();
    conf.set(KEY, coders);
    return conf;
  }

  static RawErasureEncoder ourEncoder(String coder, int k, int m) {
    RawErasureEncoder e = CodecUtil.createRawEncoder(conf(coder), "rs", new ErasureCoderOptions(k, m));
    assertInstanceOf(WideEcRawEncoder.class, e, coder + " for rs");
    return e;
  }

  static RawErasureDecoder ourDecoder(String coder, int k, int m) {
    RawErasureDecoder d = CodecUtil.createRawDecoder(conf(coder), "rs", new ErasureCoderOptions(k, m));
    assertInstanceOf(WideEcRawDecoder.class, d, coder + " for rs");
    return d;
  }

  /** Each of our coders with each buffer kind HDFS hands over (it allocates by preferDirectBuffer, but mixes). */
  static List<Arguments> codersAndBuffers() {
    List<Arguments> out = new ArrayList<>();
    for (String coder : new String[] {"wideec_native", "wideec_java"}) {
      out.add(Arguments.of(coder, true));
      out.add(Arguments.of(coder, false));
    }
    return out;
  }

  static void requireNativeFor(String coder) {
    if (coder.equals("wideec_native")) {
      NativeRequirement.nativeCoder();
    }
  }

  @Test
  void theJarOnTheClasspathLeavesStockRsOnHadoopsCoders() {
    Configuration conf = new Configuration();
    assertEquals("rs_native,rs_java", conf.get(KEY), "core-default.xml's order, which CodecUtil follows");
    List<String> registered = Arrays.asList(CodecRegistry.getInstance().getCoderNames("rs"));
    assertTrue(registered.containsAll(List.of("rs_java", "wideec_native", "wideec_java")), registered.toString());
    assertEquals(List.of("rs-legacy_java"), Arrays.asList(CodecRegistry.getInstance().getCoderNames("rs-legacy")),
        "rs-legacy is a different code: nothing of ours is registered for it");
    for (int[] km : STOCK_POLICIES) {
      ErasureCoderOptions o = new ErasureCoderOptions(km[0], km[1]);
      RawErasureEncoder e = CodecUtil.createRawEncoder(conf, "rs", o);
      RawErasureDecoder d = CodecUtil.createRawDecoder(conf, "rs", o);
      assertTrue(e instanceof RSRawEncoder || e instanceof NativeRSRawEncoder, e.getClass().getName());
      assertTrue(d instanceof RSRawDecoder || d instanceof NativeRSRawDecoder, d.getClass().getName());
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"wideec_native", "wideec_java"})
  void theOperatorsRawCodersLineSelectsOurCoder(String coder) {
    requireNativeFor(coder);
    for (int[] km : STOCK_POLICIES) {
      RawErasureEncoder e = ourEncoder(coder + ",rs_java", km[0], km[1]);
      RawErasureDecoder d = ourDecoder(coder + ",rs_java", km[0], km[1]);
      boolean direct = coder.equals("wideec_native");
      assertEquals(direct, e.preferDirectBuffer(), "HDFS allocates direct buffers for ISA-L, heap for Java");
      assertEquals(direct, d.preferDirectBuffer());
    }
  }

  @Test
  void hadoopsNativeSwitchAlsoSkipsOurNativeCoder() {
    // CodecUtil skips every coder whose name contains "native" when io.erasurecode.codec.native.enabled=false.
    Configuration conf = conf("wideec_native,rs_java");
    conf.setBoolean("io.erasurecode.codec.native.enabled", false);
    assertInstanceOf(RSRawEncoder.class, CodecUtil.createRawEncoder(conf, "rs", new ErasureCoderOptions(6, 3)));
  }

  @ParameterizedTest
  @MethodSource("codersAndBuffers")
  void parityEqualsRsRawEncodersForEveryStockPolicyAndRandomLengths(String coder, boolean direct) throws IOException {
    requireNativeFor(coder);
    Random r = new Random(direct ? 11 : 12);
    for (int[] km : STOCK_POLICIES) {
      int k = km[0];
      int m = km[1];
      RawErasureEncoder ours = ourEncoder(coder, k, m);
      RSRawEncoder theirs = new RSRawEncoder(new ErasureCoderOptions(k, m));
      for (int trial = 0; trial < 25; trial++) {
        int len = trial == 0 ? 1 : 1 + r.nextInt(trial < 20 ? 5000 : 1 << 20);
        byte[][] data = random(k, len, r);
        byte[][] expected = new byte[m][len];
        theirs.encode(data, expected);
        // Views at a random position inside larger buffers, as HDFS's cell buffers are.
        int at = r.nextInt(64);
        ByteBuffer[] parity = Cells.empty(m, at, len, direct);
        ours.encode(Cells.of(data, at, direct), parity);
        assertArrayEquals(expected, Cells.bytes(parity, at, len), "RS(" + k + "," + m + ") length " + len);
      }
    }
  }

  @Test
  void parityEqualsRsRawEncodersForEveryRsThatFitsAStripedGroup() throws IOException {
    // HDFS accepts any user RS policy with k + m <= 16; the rs factory must be identical for each.
    Random r = new Random(13);
    for (int k = 1; k < 16; k++) {
      for (int m = 1; k + m <= 16; m++) {
        byte[][] data = random(k, 97, r);
        byte[][] expected = new byte[m][97];
        new RSRawEncoder(new ErasureCoderOptions(k, m)).encode(data, expected);
        byte[][] parity = new byte[m][97];
        ourEncoder("wideec_java", k, m).encode(data, parity);
        assertArrayEquals(expected, parity, "RS(" + k + "," + m + ")");
      }
    }
  }

  @ParameterizedTest
  @MethodSource("codersAndBuffers")
  void eachSideDecodesWhatTheOtherEncodedForEveryErasurePattern(String coder, boolean direct) throws IOException {
    requireNativeFor(coder);
    Random r = new Random(direct ? 21 : 22);
    for (int[] km : STOCK_POLICIES) {
      int k = km[0];
      int m = km[1];
      int n = k + m;
      int len = 1 + r.nextInt(700);
      byte[][] data = random(k, len, r);
      byte[][] byHadoop = codeword(data, m, new RSRawEncoder(new ErasureCoderOptions(k, m)));
      byte[][] byUs = codeword(data, m, ourEncoder(coder, k, m));
      assertArrayEquals(byHadoop, byUs);
      RawErasureDecoder ours = ourDecoder(coder, k, m);
      RSRawDecoder theirs = new RSRawDecoder(new ErasureCoderOptions(k, m));
      int patterns = 0;
      for (int[] erased : ErasurePatternsUpTo.of(n, m)) {
        // Every survivor, and exactly k of them (the highest indexes: not the subset either decoder would take).
        for (byte[][] inputs : new byte[][][] {survivors(byUs, erased, n), lastK(byUs, erased, k)}) {
          ByteBuffer[] out = Cells.empty(erased.length, 0, len, direct);
          ours.decode(Cells.of(inputs, 0, direct), erased, out);
          assertArrayEquals(pick(byUs, erased), Cells.bytes(out, 0, len), "ours from Hadoop's, erased " + Arrays.toString(erased));
          byte[][] theirsOut = new byte[erased.length][len];
          theirs.decode(deepCopy(inputs), erased, theirsOut);
          assertArrayEquals(pick(byHadoop, erased), theirsOut, "Hadoop's from ours, erased " + Arrays.toString(erased));
        }
        patterns++;
      }
      assertEquals(expectedPatterns(n, m), patterns);
    }
  }

  static byte[][] random(int count, int len, Random r) {
    byte[][] out = new byte[count][len];
    for (byte[] b : out) {
      r.nextBytes(b);
    }
    return out;
  }

  static byte[][] codeword(byte[][] data, int m, RawErasureEncoder encoder) throws IOException {
    byte[][] parity = new byte[m][data[0].length];
    encoder.encode(deepCopy(data), parity);
    byte[][] all = Arrays.copyOf(data, data.length + m);
    System.arraycopy(parity, 0, all, data.length, m);
    return all;
  }

  static byte[][] survivors(byte[][] units, int[] erased, int n) {
    byte[][] in = units.clone();
    for (int e : erased) {
      in[e] = null;
    }
    return in;
  }

  static byte[][] lastK(byte[][] units, int[] erased, int k) {
    byte[][] in = survivors(units, erased, units.length);
    int kept = 0;
    for (int u = in.length - 1; u >= 0; u--) {
      if (in[u] != null && kept++ >= k) {
        in[u] = null;
      }
    }
    return in;
  }

  static byte[][] pick(byte[][] units, int[] idx) {
    byte[][] out = new byte[idx.length][];
    for (int i = 0; i < idx.length; i++) {
      out[i] = units[idx[i]];
    }
    return out;
  }

  static byte[][] deepCopy(byte[][] a) {
    byte[][] out = new byte[a.length][];
    for (int i = 0; i < a.length; i++) {
      out[i] = a[i] == null ? null : a[i].clone();
    }
    return out;
  }

  static int expectedPatterns(int n, int m) {
    int total = 0;
    long c = 1;
    for (int e = 1; e <= m; e++) {
      c = c * (n - e + 1) / e;
      total += (int) c;
    }
    return total;
  }

  /** Every set of 1..max erased units among n, as sorted index arrays. */
  static final class ErasurePatternsUpTo {
    static List<int[]> of(int n, int max) {
      List<int[]> out = new ArrayList<>();
      for (int mask = 1; mask < (1 << n); mask++) {
        int bits = Integer.bitCount(mask);
        if (bits <= max) {
          int[] p = new int[bits];
          for (int u = 0, j = 0; u < n; u++) {
            if ((mask & (1 << u)) != 0) {
              p[j++] = u;
            }
          }
          out.add(p);
        }
      }
      return out;
    }
  }

  /** Cells as HDFS hands them to a raw coder: views of len bytes at position {@code at}, null slots kept. */
  static final class Cells {
    static ByteBuffer[] of(byte[][] arrays, int at, boolean direct) {
      ByteBuffer[] out = new ByteBuffer[arrays.length];
      for (int i = 0; i < arrays.length; i++) {
        if (arrays[i] != null) {
          out[i] = allocate(at + arrays[i].length + 7, direct).put(at, arrays[i]).position(at).limit(at + arrays[i].length);
        }
      }
      return out;
    }

    static ByteBuffer[] empty(int count, int at, int len, boolean direct) {
      ByteBuffer[] out = new ByteBuffer[count];
      for (int i = 0; i < count; i++) {
        out[i] = allocate(at + len + 7, direct).position(at).limit(at + len);
      }
      return out;
    }

    static byte[][] bytes(ByteBuffer[] buffers, int at, int len) {
      byte[][] out = new byte[buffers.length][len];
      for (int i = 0; i < buffers.length; i++) {
        buffers[i].get(at, out[i]);
      }
      return out;
    }

    private static ByteBuffer allocate(int size, boolean direct) {
      return direct ? ByteBuffer.allocateDirect(size) : ByteBuffer.allocate(size);
    }
  }
}
