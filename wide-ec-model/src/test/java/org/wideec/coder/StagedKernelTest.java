package org.wideec.coder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;

/**
 * Heap buffers coded by ISA-L through staging buffers give the table kernel's bytes, over lengths that end inside a
 * segment and buffers whose data starts past their position 0, for narrow and 255-unit-wide codes.
 */
class StagedKernelTest {
  @ParameterizedTest
  @ValueSource(strings = {"rs:k=10,m=4", "azure-lrc:k=12,l=2,g=2", "rapidraid:n=16,k=11", "rs:k=200,m=4"})
  void stagedAndTableKernelsEncodeTheSameParity(String spec) {
    NativeRequirement.nativeCoder();
    LinearCode code = Codes.fromSpec(spec);
    ErasureCoder staged = new ErasureCoder(code, new StagedKernel(IsalKernel.INSTANCE));
    ErasureCoder table = new ErasureCoder(code, JavaKernel.INSTANCE);
    Random r = new Random(spec.hashCode());
    int segment = StagedKernel.segment(code.n());
    for (int len : new int[] {1, 63, segment - 1, segment, 3 * segment + 17}) {
      ByteBuffer[] data = offsetData(code.k(), len, r);
      ByteBuffer[] viaTable = ErasureCoderTest.codeword(table, data, len, false);
      ByteBuffer[] viaStaged = ErasureCoderTest.codeword(staged, data, len, false);
      for (int u = 0; u < code.n(); u++) {
        assertArrayEquals(ErasureCoderTest.bytes(viaTable[u]), ErasureCoderTest.bytes(viaStaged[u]),
            spec + " unit " + u + " len " + len);
      }
      for (ByteBuffer d : data) {
        assertEquals(5, d.position(), "the inputs' positions are left as they were");
      }
    }
  }

  @Test
  void aShortOrReadOnlyBufferIsRefusedByName() {
    NativeRequirement.nativeCoder();
    LinearCode code = Codes.fromSpec("rs:k=6,m=3");
    StagedKernel k = new StagedKernel(IsalKernel.INSTANCE);
    CodingMatrix m = new CodingMatrix(code.generator().selectRows(new int[] {6, 7, 8}));
    ByteBuffer[] in = new ByteBuffer[6];
    for (int i = 0; i < 6; i++) {
      in[i] = ByteBuffer.allocate(100);
    }
    ByteBuffer[] out = {ByteBuffer.allocate(100), ByteBuffer.allocate(99), ByteBuffer.allocate(100)};
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> k.multiply(m, in, out, 100));
    assertEquals("output 1 has 99 bytes remaining, 100 needed", e.getMessage());
    out[1] = ByteBuffer.allocate(100).asReadOnlyBuffer();
    e = assertThrows(IllegalArgumentException.class, () -> k.multiply(m, in, out, 100));
    assertEquals("output 1 is read-only", e.getMessage());
  }

  /** Heap buffers whose {@code len} random bytes start at position 5 of a larger array. */
  private static ByteBuffer[] offsetData(int count, int len, Random r) {
    ByteBuffer[] d = new ByteBuffer[count];
    for (int i = 0; i < count; i++) {
      byte[] b = new byte[len + 9];
      r.nextBytes(b);
      d[i] = ByteBuffer.wrap(b, 5, len);
    }
    return d;
  }
}
