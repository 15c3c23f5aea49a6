package org.wideec.coder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;

/**
 * {@link ErasureCoder#update}: old parity plus the changed units' deltas equals the parity of the new data (seed
 * "Optimal Rack-Coordinated Updates" Eq. 3), on the native kernel (ISA-L's ec_encode_data_update) and on the Java one.
 */
class DeltaUpdateTest {
  static final String[] CODES = {"rs:k=6,m=3", "azure-lrc:k=12,l=2,g=2", "unilrc:alpha=1,z=3",
      "azure-lrc:k=64,l=4,g=4"};

  /** Changes some data units, updates the parity by their deltas and compares it with a fresh encode. */
  static void updateMatchesReencode(ErasureCoder coder, boolean direct, long seed) {
    LinearCode code = coder.code();
    Random rnd = new Random(seed);
    int len = 1 + rnd.nextInt(3000);
    ByteBuffer[] data = ErasureCoderTest.randomData(code.k(), len, direct, rnd);
    ByteBuffer[] parity = ErasureCoderTest.buffers(code.n() - code.k(), len, direct);
    coder.encode(data, parity);
    int changes = 1 + rnd.nextInt(Math.min(code.k(), 5));
    int[] changed = rnd.ints(0, code.k()).distinct().limit(changes).toArray();
    ByteBuffer[] deltas = ErasureCoderTest.buffers(changes, len, direct);
    for (int h = 0; h < changes; h++) {
      byte[] next = new byte[len];
      if (rnd.nextBoolean()) {
        rnd.nextBytes(next); // replaced; else deleted (zeroed)
      }
      for (int b = 0; b < len; b++) {
        deltas[h].put(b, (byte) (data[changed[h]].get(b) ^ next[b]));
        data[changed[h]].put(b, next[b]);
      }
    }
    coder.update(changed, deltas, parity);
    ByteBuffer[] expected = ErasureCoderTest.buffers(code.n() - code.k(), len, direct);
    coder.encode(data, expected);
    for (int p = 0; p < parity.length; p++) {
      assertArrayEquals(ErasureCoderTest.bytes(expected[p]), ErasureCoderTest.bytes(parity[p]),
          code.spec() + " parity " + p + " after updating units " + java.util.Arrays.toString(changed));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"rs:k=6,m=3", "azure-lrc:k=12,l=2,g=2", "unilrc:alpha=1,z=3", "azure-lrc:k=64,l=4,g=4"})
  void javaDeltaUpdateEqualsAFreshEncode(String spec) {
    ErasureCoder coder = ErasureCoder.java(Codes.pinnedFromSpec(spec));
    for (long seed = 0; seed < 20; seed++) {
      updateMatchesReencode(coder, false, seed);
      updateMatchesReencode(coder, true, seed);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"rs:k=6,m=3", "azure-lrc:k=12,l=2,g=2", "unilrc:alpha=1,z=3", "azure-lrc:k=64,l=4,g=4"})
  void nativeDeltaUpdateEqualsAFreshEncode(String spec) {
    NativeRequirement.nativeCoder();
    ErasureCoder coder = ErasureCoder.best(Codes.pinnedFromSpec(spec));
    assertTrue(Kernels.nativeInUse());
    for (long seed = 0; seed < 20; seed++) {
      updateMatchesReencode(coder, true, seed);
    }
  }

  @Test
  void aChangedUnitGivenTwiceOrOutsideTheDataIsRefused() {
    ErasureCoder coder = ErasureCoder.java(Codes.pinnedFromSpec(CODES[0]));
    ByteBuffer[] parity = ErasureCoderTest.buffers(3, 8, false);
    IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
        () -> coder.update(new int[] {1, 1}, ErasureCoderTest.buffers(2, 8, false), parity));
    assertTrue(twice.getMessage().contains("changed data unit 1"), twice.getMessage());
    IllegalArgumentException parityUnit = assertThrows(IllegalArgumentException.class,
        () -> coder.update(new int[] {6}, ErasureCoderTest.buffers(1, 8, false), parity));
    assertTrue(parityUnit.getMessage().contains("outside 0..5"), parityUnit.getMessage());
  }
}
