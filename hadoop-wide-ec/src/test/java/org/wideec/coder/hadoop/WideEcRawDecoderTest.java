package org.wideec.coder.hadoop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.erasurecode.CodecUtil;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.wideec.code.NotDecodableException;

/**
 * The raw decoder through Hadoop's own API (CodecUtil picks our factory by codec name): a set HDFS's reader
 * would hand over but the LRC cannot decode is an IOException naming code, erasures and inputs (DESIGN.md §2).
 */
class WideEcRawDecoderTest {
  static final int LEN = 1000;
  static final ErasureCoderOptions AZURE_12_4 = new ErasureCoderOptions(12, 4);
  /** What HDFS's reader reads after losing units 9, 10, 11: the other data and the lowest parities G1, G2, L1. */
  static final int[] STOCK_CHOICE = {0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 14};
  static final int[] LOST = {9, 10, 11};

  static Configuration conf(String coder) {
    Configuration conf = new Configuration();
    if (!coder.isEmpty()) {
      conf.set("io.erasurecode.codec.azure-lrc-l2.rawcoders", coder);
    }
    return conf;
  }

  /** All 16 units of a random Azure-LRC 12+2+2 codeword. */
  static byte[][] codeword(Configuration conf) throws IOException {
    byte[][] units = new byte[16][LEN];
    Random r = new Random(7);
    for (int u = 0; u < 12; u++) {
      r.nextBytes(units[u]);
    }
    RawErasureEncoder e = CodecUtil.createRawEncoder(conf, "azure-lrc-l2", AZURE_12_4);
    byte[][] parity = new byte[4][];
    System.arraycopy(units, 12, parity, 0, 4);
    e.encode(java.util.Arrays.copyOf(units, 12), parity);
    return units;
  }

  static byte[][] only(byte[][] units, int[] keep) {
    byte[][] in = new byte[units.length][];
    for (int u : keep) {
      in[u] = units[u];
    }
    return in;
  }

  static void assertNamesCodeErasuresAndInputs(IOException e) {
    String msg = e.getMessage();
    assertTrue(msg.contains("azure-lrc:k=12,l=2,g=2"), msg);
    assertTrue(msg.contains("erased units [9, 10, 11]"), msg);
    assertTrue(msg.contains("inputs [0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 14]"), msg);
    assertInstanceOf(NotDecodableException.class, e.getCause(), "the coder's own reason is kept as the cause");
  }

  /** "" = Hadoop's default order (native first when ISA-L is loaded); "wideec_java" forces the Java coder. */
  @ParameterizedTest
  @ValueSource(strings = {"", "wideec_java"})
  void aRankDeficientByteArraySetIsAnIOExceptionNamingCodeErasuresAndInputs(String coder) throws IOException {
    Configuration conf = conf(coder);
    byte[][] units = codeword(conf);
    RawErasureDecoder d = CodecUtil.createRawDecoder(conf, "azure-lrc-l2", AZURE_12_4);
    IOException e = assertThrows(IOException.class,
        () -> d.decode(only(units, STOCK_CHOICE), LOST, new byte[][] {new byte[LEN], new byte[LEN], new byte[LEN]}));
    assertNamesCodeErasuresAndInputs(e);
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aRankDeficientByteBufferSetIsAnIOExceptionNamingCodeErasuresAndInputs(boolean direct) throws IOException {
    // Direct buffers go to ISA-L when it is loaded, heap buffers to the Java coder: both adapters' paths.
    Configuration conf = conf(direct ? "" : "wideec_java");
    byte[][] units = codeword(conf);
    ByteBuffer[] in = new ByteBuffer[16];
    for (int u : STOCK_CHOICE) {
      in[u] = direct ? ByteBuffer.allocateDirect(LEN).put(units[u]).flip() : ByteBuffer.wrap(units[u]);
    }
    ByteBuffer[] out = new ByteBuffer[3];
    for (int i = 0; i < out.length; i++) {
      out[i] = direct ? ByteBuffer.allocateDirect(LEN) : ByteBuffer.allocate(LEN);
    }
    RawErasureDecoder d = CodecUtil.createRawDecoder(conf, "azure-lrc-l2", AZURE_12_4);
    IOException e = assertThrows(IOException.class, () -> d.decode(in, LOST, out));
    assertNamesCodeErasuresAndInputs(e);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "wideec_java"})
  void theSameLossDecodesFromTheSecondGroupsLocalParity(String coder) throws IOException {
    Configuration conf = conf(coder);
    byte[][] units = codeword(conf);
    byte[][] out = {new byte[LEN], new byte[LEN], new byte[LEN]};
    CodecUtil.createRawDecoder(conf, "azure-lrc-l2", AZURE_12_4)
        .decode(only(units, new int[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 15}), LOST, out);
    assertArrayEquals(new byte[][] {units[9], units[10], units[11]}, out);
  }
}
