package org.wideec.repair;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which window of each sampled slice a second decode checks. */
class RebuildValidationTest {
  private static final RebuildValidation WINDOWED = new RebuildValidation(true, 2, 1024);

  @Test
  void aWindowSmallerThanTheSliceThatDividesItIsUsedElseWholeSlices() {
    assertEquals(16 * 1024, new RebuildValidation(true, 2, RebuildValidation.DEFAULT_WINDOW_BYTES).windowFor(256 * 1024));
    assertEquals(4096, new RebuildValidation(true, 2).windowFor(4096), "0: whole slices");
    assertEquals(4096, new RebuildValidation(true, 2, 1536).windowFor(4096), "1536 does not divide 4096");
    assertEquals(4096, new RebuildValidation(true, 2, 8192).windowFor(4096), "no larger than the slice");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new RebuildValidation(true, 2, 1000));
    assertTrue(e.getMessage().contains("positive multiple of 512"), e.getMessage());
  }

  @Test
  void theLastSliceIsCheckedAtTheRangesLastByteTheOthersAnywhereInside() {
    // 50,001 bytes in slices of 4096: 13 slices, the last of 849 bytes; windows of 1024, the range's last is 48.
    Set<Integer> seen = new HashSet<>();
    Random random = new Random(5);
    for (int i = 0; i < 200; i++) {
      int[] w = WINDOWED.windows(new int[] {3, 12}, 50_001, 4096, random);
      assertEquals(48, w[1], "the short last slice's one window");
      assertTrue(w[0] >= 12 && w[0] < 16, "inside slice 3: " + w[0]);
      seen.add(w[0]);
    }
    assertEquals(Set.of(12, 13, 14, 15), seen, "every window of a slice is drawn");
    // A range ending on a slice boundary: its last slice's last window.
    assertArrayEquals(new int[] {511}, new RebuildValidation(true, 2, 16 * 1024)
        .windows(new int[] {31}, 8L << 20, 256 * 1024, new Random(1)));
    // Whole slices: the windows are the slices.
    assertArrayEquals(new int[] {3, 12}, new RebuildValidation(true, 2).windows(new int[] {3, 12}, 50_001, 4096,
        new Random(1)));
  }

  @Test
  void aSliceOutsideTheRangeIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> WINDOWED.windows(new int[] {13}, 50_001, 4096, new Random(1)));
  }
}
