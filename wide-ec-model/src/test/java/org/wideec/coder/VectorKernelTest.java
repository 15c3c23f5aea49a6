package org.wideec.coder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;

/**
 * The Vector API kernel encodes what the table-driven kernel does, on heap and direct buffers, for the codes and
 * lengths the native kernel is compared on. It runs here, where the JVM compiles with C2: the cluster tests' JVMs
 * compile with C1 only, where the Vector API is not turned into vector instructions and crawls.
 */
class VectorKernelTest {
  @ParameterizedTest
  @ValueSource(strings = {"rs:k=6,m=3", "rs:k=10,m=4", "azure-lrc:k=12,l=2,g=2", "azure-lrc:k=128,r=27,g=3",
      "unilrc:alpha=2,z=10", "rapidraid:n=16,k=11", "azure-lrc+1:k=12,l=2,g=2"})
  void vectorAndTableKernelsEncodeTheSameParity(String spec) {
    LinearCode code = Codes.fromSpec(spec);
    ErasureCoder vector = new ErasureCoder(code, VectorKernel.INSTANCE);
    ErasureCoder table = new ErasureCoder(code, JavaKernel.INSTANCE);
    Random r = new Random(spec.hashCode());
    for (boolean direct : new boolean[] {false, true}) {
      for (int len : new int[] {1, 31, 100, 4097, 70_001}) {
        ByteBuffer[] data = ErasureCoderTest.randomData(code.k(), len, direct, r);
        ByteBuffer[] viaTable = ErasureCoderTest.codeword(table, data, len, direct);
        ByteBuffer[] viaVector = ErasureCoderTest.codeword(vector, data, len, direct);
        for (int u = 0; u < code.n(); u++) {
          assertArrayEquals(ErasureCoderTest.bytes(viaTable[u]), ErasureCoderTest.bytes(viaVector[u]),
              spec + " unit " + u + " len " + len + (direct ? " direct" : " heap"));
        }
      }
    }
  }
}
