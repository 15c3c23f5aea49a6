package org.wideec.coder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.erasurecode.CodecUtil;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.gf.Gf256;
import org.wideec.gf.Matrix;

/**
 * The ISA-L kernel against the Java kernels, byte for byte, and its argument checks. Tests that need the
 * native coder fail where it must load and did not ({@link NativeRequirement}), never pass by returning.
 */
class NativeCoderTest {

  @Test
  void nativeCoderLoadsWhereverTheBuildCompiledIt() {
    NativeRequirement.nativeCoder();
    assertTrue(Kernels.nativeInUse() || "false".equals(System.getProperty(Kernels.NATIVE_PROPERTY)),
        "direct buffers go to ISA-L once the library loaded");
  }

  @Test
  void theLoadedLibraryMakesTheNativeCallsThisJarMakes() {
    NativeRequirement.nativeCoder();
    assertEquals(IsalNative.ABI_VERSION, IsalNative.abiVersion(), "a library of another version is refused at load");
  }

  /**
   * In a JVM of its own started with {@code -Dwide-ec.coder.native=false} (this one has the library loaded, once per
   * JVM): the library is not loaded, the Java kernel codes direct buffers, and the ISA-L kernel refuses to run.
   */
  @Test
  void withoutTheNativeLibraryTheJavaKernelTakesOver() throws Exception {
    Process p = new ProcessBuilder(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), "-D" + Kernels.NATIVE_PROPERTY + "=false",
        NativeOffCheck.class.getName()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS), "the check's JVM ended: " + out);
    assertEquals(0, p.exitValue(), out);
    assertTrue(out.contains(NativeOffCheck.PASSED), out);
  }

  /** The checks {@link #withoutTheNativeLibraryTheJavaKernelTakesOver} runs in its own JVM. */
  static final class NativeOffCheck {
    static final String PASSED = "the Java kernel took over";

    public static void main(String[] args) {
      assertFalse(IsalNative.isAvailable(), "the library stays unloaded");
      assertTrue(IsalNative.unavailableReason().contains(Kernels.NATIVE_PROPERTY), IsalNative.unavailableReason());
      assertSame(Kernels.java(), Kernels.best(), "without ISA-L the Java kernel takes over");
      assertThrows(IllegalStateException.class, () -> IsalKernel.INSTANCE.multiply(
          new CodingMatrix(Matrix.identity(Gf256.INSTANCE, 2)), direct(2, 8), direct(2, 8), 8));
      LinearCode code = Codes.fromSpec("azure-lrc:k=12,l=2,g=2");
      ByteBuffer[] data = ErasureCoderTest.randomData(code.k(), 4097, true, new Random(7));
      ByteBuffer[] best = ErasureCoderTest.codeword(new ErasureCoder(code, Kernels.best()), data, 4097, true);
      ByteBuffer[] tables = ErasureCoderTest.codeword(new ErasureCoder(code, JavaKernel.INSTANCE), data, 4097, true);
      for (int u = 0; u < code.n(); u++) {
        assertArrayEquals(bytes(tables[u]), bytes(best[u]), "unit " + u + " of direct buffers, coded in Java");
      }
      System.out.println(PASSED);
    }
  }

  static ByteBuffer[] direct(int count, int len) {
    return ErasureCoderTest.buffers(count, len, true);
  }

  static byte[] bytes(ByteBuffer b) {
    return ErasureCoderTest.bytes(b);
  }

  @ParameterizedTest
  @ValueSource(strings = {"rs:k=6,m=3", "rs:k=10,m=4", "azure-lrc:k=12,l=2,g=2", "azure-lrc:k=128,r=27,g=3",
      "unilrc:alpha=2,z=10", "rapidraid:n=16,k=11", "azure-lrc+1:k=12,l=2,g=2"})
  void nativeAndJavaAgreeOnParityAndDecodedUnits(String spec) {
    NativeRequirement.nativeCoder();
    LinearCode code = Codes.fromSpec(spec);
    ErasureCoder nat = new ErasureCoder(code, IsalKernel.INSTANCE);
    ErasureCoder tab = new ErasureCoder(code, JavaKernel.INSTANCE);
    Random r = new Random(spec.hashCode());
    for (int len : new int[] {1, 31, 100, 4097, 70_001}) {
      ByteBuffer[] data = ErasureCoderTest.randomData(code.k(), len, true, r);
      ByteBuffer[] units = ErasureCoderTest.codeword(nat, data, len, true);
      ByteBuffer[] viaJava = ErasureCoderTest.codeword(tab, data, len, true);
      for (int u = 0; u < code.n(); u++) {
        assertArrayEquals(bytes(viaJava[u]), bytes(units[u]), spec + " unit " + u + " len " + len);
      }
      for (int trial = 0; trial < 8; trial++) {
        int[] erased = ErasureCoderTest.randomDecodablePattern(code, r);
        if (erased == null) {
          continue;
        }
        ByteBuffer[] avail = ErasureCoderTest.without(units, erased);
        ByteBuffer[] a = direct(erased.length, len);
        ByteBuffer[] b = direct(erased.length, len);
        nat.reconstruct(avail, erased, a);
        tab.reconstruct(avail, erased, b);
        for (int i = 0; i < erased.length; i++) {
          assertArrayEquals(bytes(units[erased[i]]), bytes(a[i]), spec + " native decode of " + erased[i]);
          assertArrayEquals(bytes(b[i]), bytes(a[i]));
        }
      }
    }
  }

  @Test
  void localXorRepairRunsThroughXorGenAndMatches() {
    NativeRequirement.nativeCoder();
    LinearCode code = Codes.fromSpec("unilrc:alpha=1,z=6");
    ErasureCoder nat = new ErasureCoder(code, IsalKernel.INSTANCE);
    for (int len : new int[] {64 * 1024, 1000}) {
      ByteBuffer[] units = ErasureCoderTest.codeword(nat, ErasureCoderTest.randomData(30, len, true, new Random(len)), len, true);
      ByteBuffer[] avail = units.clone();
      avail[3] = null;
      ByteBuffer[] out = direct(1, len);
      nat.reconstruct(avail, new int[] {3}, out);
      assertTrue(code.repairPlan(3).xorOnly());
      assertArrayEquals(bytes(units[3]), bytes(out[0]));
    }
  }

  @Test
  void deltaUpdateEqualsReencoding() {
    NativeRequirement.nativeCoder();
    LinearCode code = Codes.fromSpec("rs:k=10,m=4");
    CodingMatrix parity = new CodingMatrix(code.generator().selectRows(10, 11, 12, 13));
    ErasureCoder nat = new ErasureCoder(code, IsalKernel.INSTANCE);
    Random r = new Random(7);
    int len = 5000;
    ByteBuffer[] data = ErasureCoderTest.randomData(10, len, true, r);
    ByteBuffer[] p = direct(4, len);
    nat.encode(data, p);
    ByteBuffer delta = ErasureCoderTest.randomData(1, len, true, r)[0];
    IsalKernel.INSTANCE.update(parity, 6, delta, p, len);
    for (int i = 0; i < len; i++) {
      data[6].put(i, (byte) (data[6].get(i) ^ delta.get(i)));
    }
    ByteBuffer[] expected = direct(4, len);
    nat.encode(data, expected);
    for (int i = 0; i < 4; i++) {
      assertArrayEquals(bytes(expected[i]), bytes(p[i]));
    }
  }

  @Test
  void badArgumentsAreRejectedInJavaBeforeAnyNativeCall() {
    NativeRequirement.nativeCoder();
    CodingMatrix m = new CodingMatrix(Codes.fromSpec("rs:k=6,m=3").generator().selectRows(6, 7, 8));
    IsalKernel k = IsalKernel.INSTANCE;
    assertMessage(() -> k.multiply(m, direct(5, 64), direct(3, 64), 64), "needs 6 inputs, got 5");
    assertMessage(() -> k.multiply(m, direct(6, 64), direct(2, 64), 64), "needs 3 outputs, got 2");
    ByteBuffer[] shortInput = direct(6, 64);
    shortInput[2] = ByteBuffer.allocateDirect(63);
    assertMessage(() -> k.multiply(m, shortInput, direct(3, 64), 64), "input 2 has 63 bytes remaining");
    ByteBuffer[] heap = direct(6, 64);
    heap[4] = ByteBuffer.allocate(64);
    assertMessage(() -> k.multiply(m, heap, direct(3, 64), 64), "input 4 is a heap buffer");
    ByteBuffer[] readOnly = direct(3, 64);
    readOnly[1] = readOnly[1].asReadOnlyBuffer();
    assertMessage(() -> k.multiply(m, direct(6, 64), readOnly, 64), "output 1 is read-only");
    ByteBuffer[] withNull = direct(6, 64);
    withNull[0] = null;
    assertMessage(() -> k.multiply(m, withNull, direct(3, 64), 64), "input 0 is null");
    CodingMatrix tooWide = new CodingMatrix(Matrix.zero(Gf256.INSTANCE, 1, 256));
    assertMessage(() -> k.multiply(tooWide, direct(256, 8), direct(1, 8), 8), "at most 255 sources");
  }

  private static void assertMessage(org.junit.jupiter.api.function.Executable e, String fragment) {
    IllegalArgumentException x = assertThrows(IllegalArgumentException.class, e);
    assertTrue(x.getMessage().contains(fragment), x.getMessage());
  }

  @Test
  void hadoopPicksTheNativeCoderFirstAndHonoursTheJavaSwitch() throws Exception {
    ErasureCoderOptions options = new ErasureCoderOptions(12, 4);
    RawErasureEncoder e = CodecUtil.createRawEncoder(new Configuration(), "azure-lrc-l2", options);
    assertEquals(IsalNative.isAvailable(), e.preferDirectBuffer(), "native coder first when ISA-L is loaded");
    Configuration javaOnly = new Configuration();
    javaOnly.set("io.erasurecode.codec.azure-lrc-l2.rawcoders", "wideec_java");
    RawErasureEncoder j = CodecUtil.createRawEncoder(javaOnly, "azure-lrc-l2", options);
    assertEquals(false, j.preferDirectBuffer());
    byte[][] data = new byte[12][1000];
    new Random(3).nextBytes(data[5]);
    byte[][] p1 = new byte[4][1000];
    byte[][] p2 = new byte[4][1000];
    e.encode(data, p1);
    j.encode(data, p2);
    assertArrayEquals(p2, p1);
  }
}
