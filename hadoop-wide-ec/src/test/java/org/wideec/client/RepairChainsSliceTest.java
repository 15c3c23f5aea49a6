package org.wideec.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** How a degraded read's range is cut into slices for its chain (ECPipe §3.2's 1 + (m - 1) / s). */
class RepairChainsSliceTest {
  static final int CHUNK = 512;
  static final int MAX = 256 * 1024;

  @Test
  void aOneMebibyteCellTravelsInThirtyTwoSlicesOfThirtyTwoKibibytes() {
    assertEquals(32 * 1024, RepairChains.sliceBytes(1 << 20, RepairChains.TARGET_SLICES, CHUNK, MAX));
  }

  @Test
  void slicesAreWholeChecksumChunks() {
    int slice = RepairChains.sliceBytes(1_000_000, RepairChains.TARGET_SLICES, CHUNK, MAX);
    assertEquals(0, slice % CHUNK);
    assertEquals(31_744, slice); // 1_000_000 / 32 = 31_250, rounded up to chunks
  }

  @Test
  void aSmallRangeKeepsTheMinimumSliceRatherThanTinyFrames() {
    assertEquals(RepairChains.MIN_SLICE, RepairChains.sliceBytes(64 * 1024, RepairChains.TARGET_SLICES, CHUNK, MAX));
    assertEquals(RepairChains.MIN_SLICE, RepairChains.sliceBytes(4096, RepairChains.TARGET_SLICES, CHUNK, MAX));
  }

  @Test
  void fewerSlicesWhenAskedForThemCostFewerFramesAtEveryHop() {
    assertEquals(16 * 1024, RepairChains.sliceBytes(1 << 20, 64, CHUNK, MAX));
    assertEquals(RepairChains.MIN_SLICE, RepairChains.sliceBytes(1 << 20, 1000, CHUNK, MAX));
  }

  @Test
  void aLargeRangeIsCappedAtTheTransportsSlice() {
    assertEquals(MAX, RepairChains.sliceBytes(64L << 20, RepairChains.TARGET_SLICES, CHUNK, MAX));
    assertEquals(16 * 1024, RepairChains.sliceBytes(64L << 20, RepairChains.TARGET_SLICES, 4096, 16 * 1024 + 100));
  }
}
