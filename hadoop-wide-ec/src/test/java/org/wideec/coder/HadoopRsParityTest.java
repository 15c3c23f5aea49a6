package org.wideec.coder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.nio.ByteBuffer;
import java.util.Random;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.RSRawEncoder;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;

/**
 * Our RS is Hadoop's RS: the parity bytes equal Hadoop's own Java encoder's, so a stripe written by either reads with
 * the other. Kept beside the Hadoop adapters because the model module has no Hadoop to compare against.
 */
class HadoopRsParityTest {
  @Test
  void reedSolomonParityEqualsHadoopRsRawEncoderByteForByte() throws Exception {
    Random r = new Random(9);
    for (int[] km : new int[][] {{6, 3}, {10, 4}, {3, 2}, {12, 4}}) {
      int k = km[0];
      int m = km[1];
      ErasureCoder coder = ErasureCoder.java(Codes.fromSpec("rs:k=" + k + ",m=" + m));
      RSRawEncoder hadoop = new RSRawEncoder(new ErasureCoderOptions(k, m));
      byte[][] data = new byte[k][4097];
      for (byte[] d : data) {
        r.nextBytes(d);
      }
      byte[][] theirs = new byte[m][4097];
      hadoop.encode(data, theirs);
      ByteBuffer[] in = new ByteBuffer[k];
      for (int i = 0; i < k; i++) {
        in[i] = ByteBuffer.wrap(data[i]);
      }
      ByteBuffer[] ours = ErasureCoderTest.buffers(m, 4097, false);
      coder.encode(in, ours);
      for (int i = 0; i < m; i++) {
        assertArrayEquals(theirs[i], ErasureCoderTest.bytes(ours[i]), "RS(" + k + "," + m + ") parity " + i);
      }
    }
  }

}
