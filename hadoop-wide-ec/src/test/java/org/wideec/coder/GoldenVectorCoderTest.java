package org.wideec.coder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.util.ECPolicyLoader;
import org.apache.hadoop.io.erasurecode.CodecUtil;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.wideec.code.CodeFormat;
import org.wideec.code.Codes;
import org.wideec.code.GoldenData;
import org.wideec.code.GoldenVectors;
import org.wideec.code.LinearCode;

/**
 * Every coder writes and reads format 1 byte for byte: the Java kernels and the native ISA-L kernel encode
 * the golden codewords and rebuild them after losses, for every pinned code, every shipped policy and
 * through Hadoop's raw-coder API. Native runs fail where the library must load ({@link NativeRequirement}).
 */
class GoldenVectorCoderTest {
  static final File POLICIES = new File(System.getProperty("wideec.conf.dir", "../conf"), "wide-ec-policies.xml");

  /** The kernels that must agree with the golden vectors, and the buffers each codes. */
  enum Kernel {
    JAVA_TABLE(false), VECTOR(false), NATIVE(true);

    final boolean direct;

    Kernel(boolean direct) {
      this.direct = direct;
    }

    CodingKernel kernel() {
      if (this == NATIVE) {
        NativeRequirement.nativeCoder();
      }
      return switch (this) {
        case JAVA_TABLE -> JavaKernel.INSTANCE;
        case VECTOR -> VectorKernel.INSTANCE;
        case NATIVE -> IsalKernel.INSTANCE;
      };
    }
  }

  static Stream<Arguments> vectorsOnEveryKernel() {
    return GoldenVectors.vectors().stream()
        .flatMap(v -> Stream.of(Kernel.values()).map(k -> Arguments.of(v.spec(), k, v)));
  }

  @ParameterizedTest(name = "{0} on {1}")
  @MethodSource("vectorsOnEveryKernel")
  void encodesTheGoldenCodewordAndRebuildsItAfterLosses(String spec, Kernel kernel, GoldenVectors.Vector golden) {
    LinearCode code = Codes.pinnedFromSpec(spec);
    ErasureCoder coder = new ErasureCoder(code, kernel.kernel());
    ByteBuffer[] units = encode(coder, kernel.direct);
    for (int u = 0; u < code.n(); u++) {
      assertArrayEquals(golden.codeword()[u], ErasureCoderTest.bytes(units[u]), spec + " encoded unit " + u);
    }
    ByteBuffer[] goldenUnits = buffers(golden.codeword(), kernel.direct);
    byte[][] data = GoldenData.data(code.k());
    for (int[] erased : lossPatterns(code)) {
      ByteBuffer[] available = ErasureCoderTest.without(goldenUnits, erased);
      ByteBuffer[] rebuilt = ErasureCoderTest.buffers(erased.length, GoldenData.UNIT_BYTES, kernel.direct);
      coder.reconstruct(available, erased, rebuilt);
      for (int i = 0; i < erased.length; i++) {
        assertArrayEquals(golden.codeword()[erased[i]], ErasureCoderTest.bytes(rebuilt[i]),
            spec + " unit " + erased[i] + " rebuilt after losing " + java.util.Arrays.toString(erased));
      }
      ByteBuffer[] dataOut = ErasureCoderTest.buffers(code.k(), GoldenData.UNIT_BYTES, kernel.direct);
      coder.reconstructData(available, dataOut);
      for (int i = 0; i < code.k(); i++) {
        assertArrayEquals(data[i], ErasureCoderTest.bytes(dataOut[i]),
            spec + " data " + i + " after losing " + java.util.Arrays.toString(erased));
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Kernel.class)
  void everyPinnedCodeEncodesToItsGoldenHash(Kernel kernel) {
    CodingKernel k = kernel.kernel();
    Map<String, GoldenVectors.Hashes> golden = GoldenVectors.hashes();
    List<String> differing = new ArrayList<>();
    for (String spec : CodeFormat.pinnedSpecs()) {
      LinearCode code = Codes.pinnedFromSpec(spec);
      ByteBuffer[] units = encode(new ErasureCoder(code, k), kernel.direct);
      byte[][] bytes = new byte[code.n()][];
      for (int u = 0; u < code.n(); u++) {
        bytes[u] = ErasureCoderTest.bytes(units[u]);
      }
      if (!GoldenData.sha256(bytes).equals(golden.get(spec).codewordSha256())) {
        differing.add(spec);
      }
    }
    assertEquals(List.of(), differing, "codes whose " + kernel + " parity differs from format 1");
    assertEquals(golden.size(), CodeFormat.pinnedSpecs().size());
  }

  @Test
  void everyShippedPolicyHasGoldenVectorsAndAPinnedCode() {
    List<ErasureCodingPolicy> policies = new ECPolicyLoader().loadPolicy(POLICIES.getAbsolutePath());
    assertEquals(6, policies.size());
    Set<String> golden = new LinkedHashSet<>();
    GoldenVectors.vectors().forEach(v -> golden.add(v.spec()));
    for (ErasureCodingPolicy p : policies) {
      StripedCodec codec = StripedCodec.byName(p.getCodecName());
      String spec = codec.specFor(p.getNumDataUnits(), p.getNumParityUnits());
      assertTrue(golden.contains(spec), p.getName() + " (" + spec + ") has no golden vectors");
      assertTrue(codec.codeFor(p.getNumDataUnits(), p.getNumParityUnits()).pinned(), p.getName());
    }
  }

  @Test
  void everyCodecAndKmThatHdfsCanUseIsPinned() {
    int usable = 0;
    for (StripedCodec codec : StripedCodec.values()) {
      for (int k = 1; k < StripedCodec.MAX_STRIPED_UNITS; k++) {
        for (int m = 1; k + m <= StripedCodec.MAX_STRIPED_UNITS; m++) {
          String spec;
          try {
            spec = codec.specFor(k, m);
          } catch (org.wideec.code.InvalidCodeSpecException e) {
            continue;
          }
          assertTrue(CodeFormat.isPinned(spec), codec.codecName() + " k=" + k + " m=" + m + " -> " + spec);
          LinearCode code = codec.codeFor(k, m);
          assertEquals(1, code.formatVersion(), spec);
          assertEquals(k + m, code.n(), spec);
          usable++;
        }
      }
    }
    assertEquals(615, usable, "codec x (k, m) pairs HDFS can use");
  }

  /** Hadoop's own entry points (what DataNodes and clients call) write and read the golden bytes. */
  @ParameterizedTest
  @EnumSource(value = Kernel.class, names = {"JAVA_TABLE", "NATIVE"})
  void hadoopRawCodersOfEveryShippedPolicyWriteAndReadTheGoldenBytes(Kernel kernel) throws Exception {
    kernel.kernel();
    Configuration conf = new Configuration();
    for (ErasureCodingPolicy p : new ECPolicyLoader().loadPolicy(POLICIES.getAbsolutePath())) {
      String spec = StripedCodec.byName(p.getCodecName()).specFor(p.getNumDataUnits(), p.getNumParityUnits());
      GoldenVectors.Vector golden = GoldenVectors.vectors().stream().filter(v -> v.spec().equals(spec)).findFirst()
          .orElseThrow();
      int k = p.getNumDataUnits();
      int n = k + p.getNumParityUnits();
      conf.set("io.erasurecode.codec." + p.getCodecName() + ".rawcoders",
          kernel == Kernel.NATIVE ? "wideec_native" : "wideec_java");
      ErasureCoderOptions options = new ErasureCoderOptions(k, n - k);
      RawErasureEncoder encoder = CodecUtil.createRawEncoder(conf, p.getCodecName(), options);
      assertEquals(kernel.direct, encoder.preferDirectBuffer(), p.getName() + " coder");
      ByteBuffer[] parity = ErasureCoderTest.buffers(n - k, GoldenData.UNIT_BYTES, kernel.direct);
      encoder.encode(buffers(GoldenData.data(k), kernel.direct), parity);
      for (int u = k; u < n; u++) {
        assertArrayEquals(golden.codeword()[u], ErasureCoderTest.bytes(parity[u - k]), p.getName() + " parity " + u);
      }
      RawErasureDecoder decoder = CodecUtil.createRawDecoder(conf, p.getCodecName(), options);
      int[] erased = {0, k}; // a data unit and the first global parity: within every shipped policy's tolerance
      ByteBuffer[] inputs = ErasureCoderTest.without(buffers(golden.codeword(), kernel.direct), erased);
      ByteBuffer[] out = ErasureCoderTest.buffers(erased.length, GoldenData.UNIT_BYTES, kernel.direct);
      decoder.decode(inputs, erased, out);
      for (int i = 0; i < erased.length; i++) {
        assertArrayEquals(golden.codeword()[erased[i]], ErasureCoderTest.bytes(out[i]), p.getName() + " unit " + erased[i]);
      }
    }
  }

  /** Every unit of the code's codeword of the golden data, encoded by this coder. */
  private static ByteBuffer[] encode(ErasureCoder coder, boolean direct) {
    return ErasureCoderTest.codeword(coder, buffers(GoldenData.data(coder.code().k()), direct), GoldenData.UNIT_BYTES,
        direct);
  }

  private static ByteBuffer[] buffers(byte[][] bytes, boolean direct) {
    ByteBuffer[] b = ErasureCoderTest.buffers(bytes.length, GoldenData.UNIT_BYTES, direct);
    for (int i = 0; i < bytes.length; i++) {
      b[i].put(bytes[i]).flip();
    }
    return b;
  }

  /**
   * Every single loss (local repair where the code has one), the first n-k units when they decode, and
   * seeded random decodable patterns of up to n-k losses.
   */
  static List<int[]> lossPatterns(LinearCode code) {
    List<int[]> out = new ArrayList<>();
    for (int u = 0; u < code.n(); u++) {
      out.add(new int[] {u});
    }
    int[] first = java.util.stream.IntStream.range(0, code.m()).toArray();
    if (code.m() > 0 && code.isDecodable(first)) {
      out.add(first);
    }
    Random r = new Random(code.spec().hashCode());
    for (int tries = 0; tries < 400 && out.size() < code.n() + 12; tries++) {
      int[] e = ErasureCoderTest.randomDecodablePattern(code, r);
      if (e != null && e.length > 1) {
        out.add(e);
      }
    }
    return out;
  }
}
