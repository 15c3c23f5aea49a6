package org.wideec.coder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.code.NotDecodableException;

class ErasureCoderTest {
  static final String[] CODES = {"rs:k=6,m=3", "rs:k=10,m=4", "azure-lrc:k=12,l=2,g=2", "azure-lrc+1:k=12,l=2,g=2",
      "optimal-cauchy-lrc:k=12,l=2,g=3", "uniform-cauchy-lrc:k=12,l=3,g=3", "unilrc:alpha=1,z=3",
      "unilrc:alpha=2,z=4", "rapidraid:n=16,k=11", "rapidraid:n=8,k=4", "azure-lrc:k=128,r=27,g=3"};

  static ByteBuffer[] buffers(int count, int len, boolean direct) {
    ByteBuffer[] b = new ByteBuffer[count];
    for (int i = 0; i < count; i++) {
      b[i] = direct ? ByteBuffer.allocateDirect(len) : ByteBuffer.allocate(len);
    }
    return b;
  }

  static ByteBuffer[] randomData(int count, int len, boolean direct, Random r) {
    ByteBuffer[] b = buffers(count, len, direct);
    byte[] tmp = new byte[len];
    for (ByteBuffer x : b) {
      r.nextBytes(tmp);
      x.put(0, tmp);
    }
    return b;
  }

  static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }

  /** All n units of a codeword: the data plus what encode computes (or only the latter, non-systematic). */
  static ByteBuffer[] codeword(ErasureCoder coder, ByteBuffer[] data, int len, boolean direct) {
    LinearCode c = coder.code();
    ByteBuffer[] out = buffers(coder.encodedUnits().length, len, direct);
    coder.encode(data, out);
    ByteBuffer[] units = new ByteBuffer[c.n()];
    int[] enc = coder.encodedUnits();
    for (int i = 0; i < enc.length; i++) {
      units[enc[i]] = out[i];
    }
    for (int u = 0; u < c.k(); u++) {
      if (units[u] == null) {
        units[u] = data[u];
      }
    }
    return units;
  }

  /** A random set of 1..n-k lost units, or null when that set is not decodable. */
  static int[] randomDecodablePattern(LinearCode code, Random r) {
    int losses = 1 + r.nextInt(code.n() - code.k());
    int[] erased = r.ints(0, code.n()).distinct().limit(losses).sorted().toArray();
    return code.isDecodable(erased) ? erased : null;
  }

  /** The units with the erased slots set to null. */
  static ByteBuffer[] without(ByteBuffer[] units, int[] erased) {
    ByteBuffer[] avail = units.clone();
    for (int e : erased) {
      avail[e] = null;
    }
    return avail;
  }

  @ParameterizedTest
  @ValueSource(strings = {"rs:k=6,m=3", "rs:k=10,m=4", "azure-lrc:k=12,l=2,g=2", "azure-lrc+1:k=12,l=2,g=2",
      "optimal-cauchy-lrc:k=12,l=2,g=3", "uniform-cauchy-lrc:k=12,l=3,g=3", "unilrc:alpha=1,z=3",
      "unilrc:alpha=2,z=4", "rapidraid:n=16,k=11", "rapidraid:n=8,k=4", "azure-lrc:k=128,r=27,g=3"})
  void roundTripsRandomDecodablePatternsOnHeapAndDirectBuffersOfOddLength(String spec) {
    LinearCode code = Codes.fromSpec(spec);
    ErasureCoder coder = ErasureCoder.java(code);
    Random r = new Random(spec.hashCode());
    for (boolean direct : new boolean[] {false, true}) {
      for (int len : new int[] {1, 63, 1000, 4099}) {
        ByteBuffer[] data = randomData(code.k(), len, direct, r);
        ByteBuffer[] units = codeword(coder, data, len, direct);
        for (int trial = 0; trial < 12; trial++) {
          int[] erased = randomDecodablePattern(code, r);
          if (erased == null) {
            continue;
          }
          ByteBuffer[] avail = without(units, erased);
          ByteBuffer[] out = buffers(erased.length, len, direct);
          coder.reconstruct(avail, erased, out);
          for (int i = 0; i < erased.length; i++) {
            assertArrayEquals(bytes(units[erased[i]]), bytes(out[i]), spec + " unit " + erased[i] + " len " + len);
          }
          ByteBuffer[] dataOut = buffers(code.k(), len, direct);
          coder.reconstructData(avail, dataOut);
          for (int i = 0; i < code.k(); i++) {
            assertArrayEquals(bytes(data[i]), bytes(dataOut[i]), spec + " data " + i);
          }
        }
      }
    }
  }

  @Test
  void localRepairReadsOnlyTheLocalGroup() {
    LinearCode code = Codes.fromSpec("azure-lrc:k=12,l=2,g=2");
    ErasureCoder coder = ErasureCoder.java(code);
    Random r = new Random(3);
    ByteBuffer[] data = randomData(12, 512, false, r);
    ByteBuffer[] units = codeword(coder, data, 512, false);
    ByteBuffer[] onlyGroup = new ByteBuffer[16];
    for (int u : new int[] {0, 1, 2, 4, 5, 14}) {
      onlyGroup[u] = units[u];
    }
    ByteBuffer[] out = buffers(1, 512, false);
    coder.reconstruct(onlyGroup, new int[] {3}, out);
    assertArrayEquals(bytes(units[3]), bytes(out[0]));
  }

  @Test
  void undecodablePatternIsRejectedNamingTheCodeAndTheSet() {
    LinearCode code = Codes.fromSpec("azure-lrc:k=12,l=2,g=2");
    ErasureCoder coder = ErasureCoder.java(code);
    ByteBuffer[] units = buffers(16, 64, false);
    for (int u : new int[] {0, 1, 2, 3}) {
      units[u] = null;
    }
    ByteBuffer[] out = buffers(4, 64, false);
    NotDecodableException e = assertThrows(NotDecodableException.class,
        () -> coder.reconstruct(units, new int[] {0, 1, 2, 3}, out));
    assertTrue(e.getMessage().contains("azure-lrc:k=12,l=2,g=2"), e.getMessage());
    assertTrue(e.getMessage().contains("[0, 1, 2, 3]"), e.getMessage());
  }

  @Test
  void badBuffersGetClearErrors() {
    ErasureCoder coder = ErasureCoder.java(Codes.fromSpec("rs:k=6,m=3"));
    ByteBuffer[] data = buffers(6, 100, false);
    IllegalArgumentException count = assertThrows(IllegalArgumentException.class,
        () -> coder.encode(buffers(5, 100, false), buffers(3, 100, false)));
    assertTrue(count.getMessage().contains("needs 6 input buffers, got 5"), count.getMessage());
    ByteBuffer[] unequal = buffers(6, 100, false);
    unequal[4] = ByteBuffer.allocate(99);
    IllegalArgumentException len = assertThrows(IllegalArgumentException.class,
        () -> coder.encode(unequal, buffers(3, 100, false)));
    assertTrue(len.getMessage().contains("input 4 has 99 bytes"), len.getMessage());
    ByteBuffer[] mixed = buffers(3, 100, false);
    mixed[2] = ByteBuffer.allocateDirect(100);
    IllegalArgumentException kind = assertThrows(IllegalArgumentException.class, () -> coder.encode(data, mixed));
    assertTrue(kind.getMessage().contains("mixing heap and direct"), kind.getMessage());
    ByteBuffer[] readOnly = buffers(3, 100, false);
    readOnly[0] = readOnly[0].asReadOnlyBuffer();
    IllegalArgumentException ro = assertThrows(IllegalArgumentException.class, () -> coder.encode(data, readOnly));
    assertTrue(ro.getMessage().contains("read-only"), ro.getMessage());
  }

  @Test
  void verifyDetectsACorruptParity() {
    ErasureCoder coder = ErasureCoder.java(Codes.fromSpec("unilrc:alpha=1,z=3"));
    ByteBuffer[] units = codeword(coder, randomData(6, 333, false, new Random(4)), 333, false);
    assertTrue(coder.verify(units));
    units[9].put(17, (byte) (units[9].get(17) ^ 1));
    assertFalse(coder.verify(units));
    // Non-systematic: the data is rebuilt from k units, then every unit is checked.
    ErasureCoder rapid = ErasureCoder.java(Codes.fromSpec("rapidraid:n=8,k=4"));
    ByteBuffer[] coded = codeword(rapid, randomData(4, 100, true, new Random(6)), 100, true);
    assertTrue(rapid.verify(coded));
    coded[6].put(3, (byte) (coded[6].get(3) ^ 0x40));
    assertFalse(rapid.verify(coded));
  }

  @Test
  void encodeAllocatesNothingInSteadyState() {
    ErasureCoder coder = ErasureCoder.java(Codes.fromSpec("azure-lrc:k=12,l=2,g=2"));
    ByteBuffer[] data = randomData(12, 4096, true, new Random(5));
    ByteBuffer[] parity = buffers(4, 4096, true);
    ByteBuffer[] units = codeword(coder, data, 4096, true);
    units[3] = null;
    int[] wanted = {3};
    ByteBuffer[] out = buffers(1, 4096, true);
    com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    for (int i = 0; i < 2000; i++) {
      coder.encode(data, parity);
      coder.reconstruct(units, wanted, out);
    }
    long before = mx.getCurrentThreadAllocatedBytes();
    for (int i = 0; i < 1000; i++) {
      coder.encode(data, parity);
      coder.reconstruct(units, wanted, out);
    }
    long allocated = mx.getCurrentThreadAllocatedBytes() - before;
    assertTrue(allocated < 1000, "allocated " + allocated + " bytes in 1000 encode+decode calls");
    assertEquals(4096, out[0].remaining());
  }
}
