package org.wideec.coder;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.OptionalLong;

/**
 * Times each candidate {@link WideTuning} on an RS(128,4)-shaped multiply whose inputs stream from memory (a
 * rotating set of stripes twice the last-level cache, at most 256 MiB), and returns the fastest: the idea of
 * Backblaze JavaReedSolomon's CodingLoop benchmark, on the machine that will run the code. Rounds alternate the
 * candidates so a burst of load elsewhere hits them all; each keeps its best round.
 */
final class WideCalibration {
  static final int SOURCES = 128;
  static final int ROWS = 4;
  static final int CELL = 64 << 10;
  static final int ROUNDS = 3;
  static final long ROUND_NANOS = 20_000_000L;

  private WideCalibration() {}

  static WideTuning run(List<WideTuning> candidates) {
    if (!IsalNative.isAvailable()) {
      throw new IllegalStateException("native coder unavailable: " + IsalNative.unavailableReason());
    }
    OptionalLong llc = LastLevelCache.bytes();
    if (llc.isEmpty()) {
      throw new IllegalStateException("last-level cache size unknown (no " + LastLevelCache.SYSFS + ")");
    }
    long stripeBytes = (long) (SOURCES + ROWS) * CELL;
    int stripes = (int) Math.max(2, Math.min(256L << 20, 2 * llc.getAsLong()) / stripeBytes + 1);
    ByteBuffer[][] in = new ByteBuffer[stripes][SOURCES];
    ByteBuffer[][] out = new ByteBuffer[stripes][ROWS];
    byte[] pattern = new byte[CELL];
    for (int i = 0; i < CELL; i++) {
      pattern[i] = (byte) (i * 131 + 7);
    }
    for (int s = 0; s < stripes; s++) {
      for (int c = 0; c < SOURCES; c++) {
        in[s][c] = ByteBuffer.allocateDirect(CELL + 64).alignedSlice(64);
        in[s][c].put(0, pattern);
      }
      for (int r = 0; r < ROWS; r++) {
        out[s][r] = ByteBuffer.allocateDirect(CELL + 64).alignedSlice(64);
      }
    }
    byte[] matrix = new byte[SOURCES * ROWS];
    for (int i = 0; i < matrix.length; i++) {
      matrix[i] = (byte) (1 + (i * 37) % 255);
    }
    ByteBuffer tables = IsalNative.tableBuffer(SOURCES, ROWS);
    IsalNative.initTables(SOURCES, ROWS, matrix, tables);
    int[] inPos = new int[SOURCES];
    int[] outPos = new int[ROWS];
    int maxSlice = candidates.stream().mapToInt(WideTuning::sliceBytes).max().orElse(CELL);
    ByteBuffer scratch = ByteBuffer.allocateDirect(maxSlice * ROWS + 64).alignedSlice(64);
    double[] best = new double[candidates.size()];
    int next = 0;
    for (int round = 0; round < ROUNDS; round++) {
      for (int i = 0; i < candidates.size(); i++) {
        WideTuning t = candidates.get(i);
        long calls = 0;
        long start = System.nanoTime();
        long elapsed;
        do {
          IsalNative.multiply(tables, SOURCES, ROWS, in[next], inPos, out[next], outPos, CELL, scratch, t.group(),
              t.sliceBytes(), t.prefetchBytes(), t.kernel());
          next = (next + 1) % stripes;
          calls++;
          elapsed = System.nanoTime() - start;
        } while (elapsed < ROUND_NANOS);
        best[i] = Math.max(best[i], (double) calls / elapsed);
      }
    }
    int winner = 0;
    for (int i = 1; i < best.length; i++) {
      if (best[i] > best[winner]) {
        winner = i;
      }
    }
    return candidates.get(winner);
  }
}
