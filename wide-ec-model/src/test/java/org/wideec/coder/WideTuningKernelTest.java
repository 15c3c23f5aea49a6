package org.wideec.coder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.gf.Gf256;
import org.wideec.gf.Matrix;

/**
 * Every slicing of the native wide path gives the bytes of the table-driven Java kernel: each calibration
 * candidate, the table's choices and edge tunings (one source per pass, 64-byte slices, prefetch further than
 * a slice), on ISA-L's kernels and on the GFNI kernel, for every k from 2 to 255, 1 to 9 rows, odd lengths and
 * unaligned positions, into outputs holding random bytes.
 */
class WideTuningKernelTest {
  static final int[] LENGTHS = {1, 63, 4097, 16_385, 33_333, 70_001, 131_149};
  static final int OFFSET_MAX = 8;
  /** Direct buffers reused by every case: allocating them per case leaves the JVM waiting for GC to free them. */
  static final ByteBuffer[] IN = new ByteBuffer[255];
  static final ByteBuffer[] OUT = new ByteBuffer[9];

  static {
    for (int i = 0; i < IN.length; i++) {
      IN[i] = ByteBuffer.allocateDirect(131_149 + OFFSET_MAX);
    }
    for (int i = 0; i < OUT.length; i++) {
      OUT[i] = ByteBuffer.allocateDirect(131_149 + OFFSET_MAX);
    }
  }

  static List<WideTuning> tunings() {
    List<WideTuning> t = new ArrayList<>(WideTuning.candidates());
    t.addAll(WideTuning.BY_PROCESSOR.values());
    t.add(new WideTuning(1, 64, 0));
    t.add(new WideTuning(2, 192, 64));
    t.add(new WideTuning(7, 4096, 100_000));
    t.add(new WideTuning(31, 1 << 20, 2048));
    t.add(new WideTuning(254, 64 << 10, 0));
    // The GFNI kernel (ISA-L's where the processor lacks it), rows 1 to 9 (whole and partial blocks of four rows; 5
    // to 9 rows run passes of up to 8 sources with registers held, gfni_rows_held, 1 to 4 rows the other loop):
    // every source in one pass; passes of 1 to 8 sources over slices shorter than, equal to and longer than a call's
    // bytes, with prefetch off, shorter than a line, not a multiple of a line, crossing one or many passes.
    t.add(new WideTuning(255, 64 << 10, 0, true));
    t.add(new WideTuning(5, 192, 0, true));
    t.add(new WideTuning(1, 64, 100_000, true));
    t.add(new WideTuning(3, 4096, 1000, true));
    t.add(new WideTuning(4, 64 << 10, 3 << 10, true));
    t.add(new WideTuning(8, 1 << 20, 32, true));
    t.add(new WideTuning(2, 128, 64 << 10, true));
    return t;
  }

  @Test
  void theGfniKernelRunsWhereTheProcessorHasIt() throws Exception {
    NativeRequirement.nativeCoder();
    String flags = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/cpuinfo")).stream()
        .filter(l -> l.startsWith("flags")).findFirst().orElse("");
    java.util.Set<String> has = java.util.Set.of(flags.substring(flags.indexOf(':') + 1).trim().split("\\s+"));
    boolean expected = has.contains("gfni") && has.contains("avx512f") && has.contains("avx512bw");
    org.junit.jupiter.api.Assertions.assertEquals(expected, IsalNative.gfni(), "flags: gfni, avx512f, avx512bw in " + has.size());
  }

  @Test
  void everyTuningGivesTheJavaKernelsBytesForEveryKFrom2To255() {
    NativeRequirement.nativeCoder();
    Random r = new Random(15);
    List<WideTuning> tunings = tunings();
    for (int k = 2; k <= 255; k++) {
      int rows = 1 + k % 9;
      // Up to two 16 KiB slices here; the longer lengths, for a few widths, below.
      check(k, rows, LENGTHS[k % 5], k % 5, tunings, r);
    }
  }

  @Test
  void everyTuningGivesTheSameBytesAtEveryLengthForSomeWidths() {
    NativeRequirement.nativeCoder();
    Random r = new Random(16);
    for (int k : new int[] {2, 9, 33, 128, 255}) {
      for (int len : LENGTHS) {
        check(k, 4, len, 3, tunings(), r);
        // more than four rows (a block of four, then of three: the GFNI kernel's held passes) over several slices
        check(k, 7, len, 5, tunings(), r);
      }
    }
  }

  @Test
  void wideCodesDecodeIdenticallyUnderEveryTuning() {
    NativeRequirement.nativeCoder();
    for (String spec : new String[] {"rs:k=128,m=4", "azure-lrc:k=128,r=27,g=3"}) {
      LinearCode code = Codes.fromSpec(spec);
      ErasureCoder java = new ErasureCoder(code, JavaKernel.INSTANCE);
      ByteBuffer[] data = ErasureCoderTest.randomData(code.k(), 40_001, true, new Random(spec.hashCode()));
      ByteBuffer[] units = ErasureCoderTest.codeword(java, data, 40_001, true);
      int[] erased = {0, 5, 64};
      ByteBuffer[] avail = ErasureCoderTest.without(units, erased);
      for (WideTuning t : tunings()) {
        ErasureCoder nat = new ErasureCoder(code, IsalKernel.tuned(t));
        ByteBuffer[] again = ErasureCoderTest.codeword(nat, data, 40_001, true);
        ByteBuffer[] out = ErasureCoderTest.buffers(erased.length, 40_001, true);
        nat.reconstruct(avail, erased, out);
        for (int u = 0; u < code.n(); u++) {
          assertArrayEquals(ErasureCoderTest.bytes(units[u]), ErasureCoderTest.bytes(again[u]), spec + " " + t + " unit " + u);
        }
        for (int i = 0; i < erased.length; i++) {
          assertArrayEquals(ErasureCoderTest.bytes(units[erased[i]]), ErasureCoderTest.bytes(out[i]),
              spec + " " + t + " decode of " + erased[i]);
        }
      }
    }
  }

  /**
   * The GFNI kernel and the sliced path never read ISA-L's part of the tables, whose layout is ISA-L's own (from 2.31
   * on it is chosen at run time: 8 bytes per coefficient on GFNI machines): with that part zeroed they still give the
   * Java kernel's bytes. (ISA-L's own unsliced kernels do read it; they are ISA-L's business.)
   */
  @Test
  void theGfniAndSlicedPathsNeverReadIsaLsTableLayout() {
    NativeRequirement.nativeCoder();
    Random r = new Random(41);
    for (int k : new int[] {3, 10, 33, 128}) {
      int rows = 1 + k % 6;
      int len = 4097 + k;
      byte[] coefficients = new byte[k * rows];
      r.nextBytes(coefficients);
      int[][] a = new int[rows][k];
      for (int i = 0; i < rows; i++) {
        for (int c = 0; c < k; c++) {
          a[i][c] = coefficients[i * k + c] & 0xff;
        }
      }
      ByteBuffer tables = IsalNative.tableBuffer(k, rows);
      IsalNative.initTables(k, rows, coefficients, tables);
      for (int i = 0; i < 32 * k * rows; i++) {
        tables.put(i, (byte) 0);
      }
      ByteBuffer[] in = new ByteBuffer[k];
      ByteBuffer[] heapIn = new ByteBuffer[k];
      int[] inPos = new int[k];
      for (int c = 0; c < k; c++) {
        byte[] b = new byte[len];
        r.nextBytes(b);
        in[c] = IN[c].clear().limit(len);
        in[c].put(0, b);
        heapIn[c] = ByteBuffer.wrap(b);
      }
      ByteBuffer[] expected = new ByteBuffer[rows];
      for (int i = 0; i < rows; i++) {
        expected[i] = ByteBuffer.allocate(len);
      }
      JavaKernel.INSTANCE.multiply(new CodingMatrix(Matrix.of(Gf256.INSTANCE, a)), heapIn, expected, len);
      // {group, slice, kernel, prefetch}: GFNI unsliced, sliced, and sliced with prefetch (where the processor lacks
      // GFNI only ISA-L's sliced path is checked).
      int[][] paths = IsalNative.gfni()
          ? new int[][] {{255, 0, 1, 0}, {2, 1024, 0, 0}, {7, 4096, 1, 0}, {4, 65536, 1, 3072}}
          : new int[][] {{2, 1024, 0, 0}};
      for (int[] p : paths) {
        if (p[0] >= k && p[2] == 0) {
          continue;
        }
        ByteBuffer[] out = new ByteBuffer[rows];
        for (int i = 0; i < rows; i++) {
          out[i] = OUT[i].clear().limit(len);
        }
        ByteBuffer scratch = ByteBuffer.allocateDirect(2 * rows * Math.max(p[1], 64) + 64).alignedSlice(64);
        IsalNative.multiply(tables, k, rows, in, inPos, out, new int[rows], len, scratch, p[0], p[1], p[3], p[2]);
        for (int i = 0; i < rows; i++) {
          assertArrayEquals(ErasureCoderTest.bytes(expected[i]), ErasureCoderTest.bytes(out[i]),
              "k=" + k + " rows=" + rows + " group=" + p[0] + " slice=" + p[1] + " kernel=" + p[2] + " row " + i);
        }
      }
    }
  }

  private static void check(int k, int rows, int len, int offset, List<WideTuning> tunings, Random r) {
    int[][] a = new int[rows][k];
    for (int[] row : a) {
      for (int c = 0; c < k; c++) {
        row[c] = r.nextInt(256);
      }
    }
    CodingMatrix m = new CodingMatrix(Matrix.of(Gf256.INSTANCE, a));
    ByteBuffer[] heapIn = new ByteBuffer[k];
    ByteBuffer[] directIn = new ByteBuffer[k];
    byte[] tmp = new byte[len];
    for (int c = 0; c < k; c++) {
      r.nextBytes(tmp);
      heapIn[c] = ByteBuffer.allocate(len + offset).position(offset);
      heapIn[c].put(offset, tmp);
      directIn[c] = IN[c].clear().position(offset).slice().limit(len);
      directIn[c].put(0, tmp);
    }
    ByteBuffer[] expected = new ByteBuffer[rows];
    for (int i = 0; i < rows; i++) {
      expected[i] = ByteBuffer.allocate(len);
    }
    JavaKernel.INSTANCE.multiply(m, heapIn, expected, len);
    for (WideTuning t : tunings) {
      ByteBuffer[] out = new ByteBuffer[rows];
      for (int i = 0; i < rows; i++) {
        out[i] = OUT[i].clear().position(offset).slice().limit(len);
        // whatever the buffer held: a kernel that added into it instead of overwriting it would show
        byte[] old = new byte[len];
        r.nextBytes(old);
        out[i].put(0, old);
      }
      IsalKernel.tuned(t).multiply(m, directIn, out, len);
      for (int i = 0; i < rows; i++) {
        assertArrayEquals(ErasureCoderTest.bytes(expected[i]), ErasureCoderTest.bytes(out[i]),
            "k=" + k + " rows=" + rows + " len=" + len + " offset=" + offset + " " + t + " row " + i);
      }
    }
  }
}
