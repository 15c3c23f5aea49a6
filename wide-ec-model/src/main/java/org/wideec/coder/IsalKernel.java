package org.wideec.coder;

import java.nio.ByteBuffer;
import org.wideec.code.LinearCode;

/**
 * Kernel on ISA-L through JNI. Direct buffers only; every argument is checked here, in Java, so nothing
 * malformed reaches native code: counts, lengths, writability, direct buffers, at most 255 sources or rows.
 * Tables ({@code ec_init_tables}) are built once per {@link CodingMatrix}; an all-XOR matrix (a local
 * repair) runs ISA-L's {@code xor_gen} instead.
 */
public final class IsalKernel implements CodingKernel {
  /** Multiplies sliced and kernels chosen as {@link WideTuning#current()} says. */
  public static final IsalKernel INSTANCE = new IsalKernel(null);

  /** Per-thread position arrays and wide-stripe scratch, so a call allocates nothing. */
  private static final ThreadLocal<int[][]> POSITIONS = ThreadLocal.withInitial(() -> new int[][] {
      new int[LinearCode.MAX_UNITS], new int[LinearCode.MAX_UNITS]});
  private static final ThreadLocal<ByteBuffer[]> SCRATCH = ThreadLocal.withInitial(() -> new ByteBuffer[1]);

  /** Null: {@link WideTuning#current()}, looked up on the first multiply. */
  private final WideTuning tuning;

  private IsalKernel(WideTuning tuning) {
    this.tuning = tuning;
  }

  /** A kernel slicing wide multiplies as {@code tuning} says, whatever this process chose (tests, benchmarks). */
  public static IsalKernel tuned(WideTuning tuning) {
    return new IsalKernel(java.util.Objects.requireNonNull(tuning, "tuning"));
  }

  @Override
  public String name() {
    return "isa-l";
  }

  @Override
  public void multiply(CodingMatrix m, ByteBuffer[] inputs, ByteBuffer[] outputs, int len) {
    check(m, inputs, outputs, len);
    if (len == 0) {
      return;
    }
    int[][] pos = POSITIONS.get();
    positions(outputs, pos[1]);
    if (m.isAllXor()) {
      for (int r = 0; r < m.rows(); r++) {
        ByteBuffer[] sources = m.xorSources(r, inputs);
        int count = sources.length;
        for (int i = 0; i < count; i++) {
          pos[0][i] = sources[i].position();
        }
        if (count == 0) {
          for (int i = 0; i < len; i++) {
            outputs[r].put(pos[1][r] + i, (byte) 0);
          }
        } else {
          IsalNative.xor(sources, pos[0], count, outputs[r], pos[1][r], len);
        }
      }
      return;
    }
    positions(inputs, pos[0]);
    WideTuning t = tuning != null ? tuning : WideTuning.current();
    if (t.gfni() && IsalNative.gfniKernel()) {
      // The GFNI kernel slices every multiply itself (group, slice, prefetch), narrow or wide, and needs no scratch.
      IsalNative.multiply(tables(m), m.cols(), m.rows(), inputs, pos[0], outputs, pos[1], len, null, t.group(),
          t.sliceBytes(), t.prefetchBytes(), 1);
    } else if (m.cols() <= Math.max(t.group(), tuning != null ? 0 : WIDE_SOURCES)) {
      // ISA-L streams up to WIDE_SOURCES sources all at once; a kernel built with a tuning applies it to every
      // multiply (so tests reach every path).
      IsalNative.multiply(tables(m), m.cols(), m.rows(), inputs, pos[0], outputs, pos[1], len, null,
          LinearCode.MAX_UNITS, 0, 0, 0);
    } else {
      IsalNative.multiply(tables(m), m.cols(), m.rows(), inputs, pos[0], outputs, pos[1], len,
          scratch(m.rows(), t.sliceBytes()), t.group(), t.sliceBytes(), t.prefetchBytes(), 0);
    }
  }

  /**
   * Delta update for parity maintenance: outputs[r] ^= m(r, source) * delta, over len bytes.
   */
  public void update(CodingMatrix m, int source, ByteBuffer delta, ByteBuffer[] outputs, int len) {
    if (source < 0 || source >= m.cols()) {
      throw new IllegalArgumentException("source " + source + " outside 0.." + (m.cols() - 1));
    }
    check(m, new ByteBuffer[] {delta}, outputs, len, 1);
    int[] outPos = POSITIONS.get()[1];
    positions(outputs, outPos);
    IsalNative.update(tables(m), m.cols(), m.rows(), source, delta, delta.position(), outputs, outPos, len);
  }

  /** Sources beyond which a multiply is wide and sliced (as before per-processor tuning: ECWide §2.2). */
  static final int WIDE_SOURCES = 32;

  private static ByteBuffer tables(CodingMatrix m) {
    return m.nativeTables(mm -> {
      ByteBuffer t = IsalNative.tableBuffer(mm.cols(), mm.rows());
      IsalNative.initTables(mm.cols(), mm.rows(), mm.packed(), t);
      return t;
    });
  }

  private static ByteBuffer scratch(int rows, int sliceBytes) {
    ByteBuffer[] holder = SCRATCH.get();
    int need = sliceBytes * rows;
    if (holder[0] == null || holder[0].capacity() < need) {
      // 64-byte aligned: ISA-L's vector loads and stores are fastest on aligned rows.
      holder[0] = ByteBuffer.allocateDirect(need + 64).alignedSlice(64);
    }
    return holder[0];
  }

  private static void positions(ByteBuffer[] buffers, int[] into) {
    for (int i = 0; i < buffers.length; i++) {
      into[i] = buffers[i].position();
    }
  }

  private static void check(CodingMatrix m, ByteBuffer[] inputs, ByteBuffer[] outputs, int len) {
    check(m, inputs, outputs, len, m.cols());
  }

  private static void check(CodingMatrix m, ByteBuffer[] inputs, ByteBuffer[] outputs, int len, int inputCount) {
    if (!IsalNative.isAvailable()) {
      throw new IllegalStateException("native ISA-L coder unavailable: " + IsalNative.unavailableReason());
    }
    if (m.cols() > LinearCode.MAX_UNITS || m.rows() > LinearCode.MAX_UNITS) {
      throw new IllegalArgumentException("native coder takes at most " + LinearCode.MAX_UNITS
          + " sources and rows, got " + m.cols() + " x " + m.rows());
    }
    BufferChecks.kernelArguments("native coder", m, inputs, inputCount, outputs, len, true);
  }
}
