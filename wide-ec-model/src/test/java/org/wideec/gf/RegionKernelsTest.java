package org.wideec.gf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RegionKernelsTest {
  /** XOR of a direct source (a received slice) into a heap sum, at odd offsets and lengths, in either byte order. */
  @Test
  void xorOfADirectSliceIntoAHeapSumMatchesBytewiseXor() {
    Random r = new Random(1);
    for (int len : new int[] {0, 1, 7, 8, 9, 4096, 65_537}) {
      for (ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN}) {
        byte[] src = new byte[len + 5];
        byte[] dst = new byte[len + 3];
        r.nextBytes(src);
        r.nextBytes(dst);
        byte[] expected = dst.clone();
        for (int i = 0; i < len; i++) {
          expected[3 + i] ^= src[5 + i];
        }
        ByteBuffer direct = ByteBuffer.allocateDirect(src.length).order(order);
        direct.put(src).flip();
        RegionKernels.xor(direct, 5, ByteBuffer.wrap(dst), 3, len);
        assertArrayEquals(expected, dst, len + " bytes, source " + order);
      }
    }
  }
}
