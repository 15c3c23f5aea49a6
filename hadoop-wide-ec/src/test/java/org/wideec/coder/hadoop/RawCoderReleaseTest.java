package org.wideec.coder.hadoop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.erasurecode.CodecUtil;
import org.apache.hadoop.io.erasurecode.ECChunk;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;
import org.apache.hadoop.io.erasurecode.rawcoder.WideEcRawDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.WideEcRawEncoder;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hadoop's raw-coder contract after release(), through CodecUtil as HDFS creates coders: each of our coders (native
 * and Java, for our codecs and for Hadoop's rs) codes until it is released, then every encode and decode, in each
 * buffer form HDFS uses (byte arrays, heap and direct ByteBuffers, ECChunks), throws an IOException saying it is
 * closed; a second release is harmless, and other coders of the same code keep working.
 */
class RawCoderReleaseTest {
  static final int LEN = 4096;

  /** codec, k, m, coder. */
  static List<Arguments> coders() {
    List<Arguments> out = new ArrayList<>();
    for (String coder : new String[] {"wideec_native", "wideec_java"}) {
      out.add(Arguments.of("azure-lrc-l2", 12, 4, coder));
      out.add(Arguments.of("wide-rs", 10, 4, coder));
      out.add(Arguments.of("rs", 6, 3, coder));
    }
    return out;
  }

  static Configuration conf(String codec, String coder) {
    Configuration conf = new Configuration();
    conf.set("io.erasurecode.codec." + codec + ".rawcoders", coder);
    return conf;
  }

  @ParameterizedTest
  @MethodSource("coders")
  void everyEncodeAfterReleaseThrowsNamingTheCoderClosed(String codec, int k, int m, String coder) throws IOException {
    StockRsCoderTest.requireNativeFor(coder);
    Configuration conf = conf(codec, coder);
    ErasureCoderOptions options = new ErasureCoderOptions(k, m);
    RawErasureEncoder e = CodecUtil.createRawEncoder(conf, codec, options);
    assertTrue(e instanceof WideEcRawEncoder, e.getClass().getName());
    byte[][] data = random(k, new Random(k));
    byte[][] parity = new byte[m][LEN];
    e.encode(data, parity); // codes while open

    e.release();
    assertClosed(() -> e.encode(data, new byte[m][LEN]));
    for (boolean direct : new boolean[] {false, true}) {
      assertClosed(() -> e.encode(StockRsCoderTest.Cells.of(data, 0, direct),
          StockRsCoderTest.Cells.empty(m, 0, LEN, direct)));
      assertClosed(() -> e.encode(chunks(StockRsCoderTest.Cells.of(data, 0, direct)),
          chunks(StockRsCoderTest.Cells.empty(m, 0, LEN, direct))));
    }
    e.release(); // twice: harmless
    assertClosed(() -> e.encode(data, new byte[m][LEN]));

    // The coder behind it is shared by every adapter of the code: a new one codes the same parity.
    byte[][] again = new byte[m][LEN];
    CodecUtil.createRawEncoder(conf, codec, options).encode(data, again);
    assertArrayEquals(parity, again);
  }

  @ParameterizedTest
  @MethodSource("coders")
  void everyDecodeAfterReleaseThrowsNamingTheCoderClosed(String codec, int k, int m, String coder) throws IOException {
    StockRsCoderTest.requireNativeFor(coder);
    Configuration conf = conf(codec, coder);
    ErasureCoderOptions options = new ErasureCoderOptions(k, m);
    byte[][] units = new byte[k + m][];
    byte[][] data = random(k, new Random(m));
    System.arraycopy(data, 0, units, 0, k);
    byte[][] parity = new byte[m][LEN];
    CodecUtil.createRawEncoder(conf, codec, options).encode(data, parity);
    System.arraycopy(parity, 0, units, k, m);
    byte[][] inputs = units.clone();
    inputs[0] = null; // unit 0 lost: every code here rebuilds it from the rest
    int[] erased = {0};

    RawErasureDecoder d = CodecUtil.createRawDecoder(conf, codec, options);
    assertTrue(d instanceof WideEcRawDecoder, d.getClass().getName());
    byte[][] out = {new byte[LEN]};
    d.decode(inputs, erased, out); // decodes while open
    assertArrayEquals(units[0], out[0]);

    d.release();
    assertClosed(() -> d.decode(inputs, erased, new byte[][] {new byte[LEN]}));
    for (boolean direct : new boolean[] {false, true}) {
      assertClosed(() -> d.decode(StockRsCoderTest.Cells.of(inputs, 0, direct), erased,
          StockRsCoderTest.Cells.empty(1, 0, LEN, direct)));
      assertClosed(() -> d.decode(chunks(StockRsCoderTest.Cells.of(inputs, 0, direct)), erased,
          chunks(StockRsCoderTest.Cells.empty(1, 0, LEN, direct))));
    }
    d.release(); // twice: harmless
    assertClosed(() -> d.decode(inputs, erased, new byte[][] {new byte[LEN]}));

    byte[][] again = {new byte[LEN]};
    CodecUtil.createRawDecoder(conf, codec, options).decode(inputs, erased, again);
    assertArrayEquals(units[0], again[0]);
  }

  private static void assertClosed(Executable call) {
    IOException e = assertThrows(IOException.class, call);
    assertTrue(e.getMessage().contains("closed"), e.getMessage());
    assertTrue(e.getMessage().contains("release()"), e.getMessage());
  }

  private static ECChunk[] chunks(ByteBuffer[] buffers) {
    ECChunk[] out = new ECChunk[buffers.length];
    for (int i = 0; i < buffers.length; i++) {
      out[i] = buffers[i] == null ? null : new ECChunk(buffers[i]);
    }
    return out;
  }

  private static byte[][] random(int count, Random r) {
    byte[][] out = new byte[count][LEN];
    for (byte[] b : out) {
      r.nextBytes(b);
    }
    return out;
  }
}
