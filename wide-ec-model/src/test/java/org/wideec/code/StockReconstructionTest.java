package org.wideec.code;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class StockReconstructionTest {
  // Units: data 0..k-1, G1, G2, then one local parity per group of k/2 data units.
  private static final LinearCode LRC_6_2_2 = Codes.fromSpec("azure-lrc:k=6,l=2,g=2");
  private static final LinearCode LRC_12_2_2 = Codes.fromSpec("azure-lrc:k=12,l=2,g=2");

  @Test
  void azureLrc6_2_2LosingUnits3_5_6DecodesButStockReconstructionReadsARankDeficientSet() {
    assertTrue(LRC_6_2_2.isDecodable(3, 5, 6));
    // The first six survivors in index order: data 0, 1, 2, 4, then G2 (7) and L1 (8), which only repeats 0, 1, 2.
    assertArrayEquals(new int[] {0, 1, 2, 4, 7, 8}, StockReconstruction.sources(LRC_6_2_2, 6, new int[] {3, 5, 6}));
    assertFalse(StockReconstruction.canRebuild(LRC_6_2_2, 6, new int[] {3, 5, 6}));
  }

  @Test
  void azureLrc12_2_2LosingUnits8_10_12DecodesButStockReconstructionReadsARankDeficientSet() {
    assertTrue(LRC_12_2_2.isDecodable(8, 10, 12));
    assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5, 6, 7, 9, 11, 13, 14},
        StockReconstruction.sources(LRC_12_2_2, 12, new int[] {8, 10, 12}));
    assertFalse(StockReconstruction.canRebuild(LRC_12_2_2, 12, new int[] {8, 10, 12}));
  }

  @Test
  void aLossStockReconstructionRebuildsIsRebuildable() {
    // 0 and 6: sources 1..5, 7 (G2) and 8: G2 and L1 rebuild both.
    assertTrue(StockReconstruction.canRebuild(LRC_6_2_2, 6, new int[] {0, 6}));
    assertTrue(StockReconstruction.canRebuild(LRC_12_2_2, 12, new int[] {3, 5, 6}));
    assertTrue(StockReconstruction.canRebuild(LRC_12_2_2, 12, new int[] {12, 13, 14, 15}), "parities from all data");
  }

  @Test
  void aSkippedSurvivorIsReplacedByTheNextInIndexOrder() {
    // Losing 3 alone reads 0, 1, 2, 4, 5, G1: full rank. With 5 busy it reads G2 instead of 5... still full rank;
    // with 4 and 5 busy it reads 0, 1, 2, G1, G2, L1, which cannot rebuild 3.
    assertArrayEquals(new int[] {0, 1, 2, 4, 6, 7}, StockReconstruction.sources(LRC_6_2_2, 6, new int[] {3}, 5));
    assertTrue(StockReconstruction.canRebuild(LRC_6_2_2, 6, new int[] {3}, 5));
    assertFalse(StockReconstruction.canRebuild(LRC_6_2_2, 6, new int[] {3}, 4, 5));
  }

  @Test
  void aShortGroupReadsOnlyAsManySourcesAsItHasDataUnits() {
    // Two data units hold bytes: the reader reads the first two survivors and supplies zeros for units 2..5.
    assertArrayEquals(new int[] {1, 6}, StockReconstruction.sources(LRC_6_2_2, 2, new int[] {0}));
    assertTrue(StockReconstruction.canRebuild(LRC_6_2_2, 2, new int[] {0}));
    assertNull(StockReconstruction.sources(LRC_6_2_2, 2, new int[] {0, 1, 6, 7, 8, 9}));
  }

  @Test
  void exhaustiveCountsOfLossesOnlyOurWorkerRebuilds() {
    assertEquals(10, StockReconstruction.lossesOnlyOurWorkerRebuilds(LRC_6_2_2));
    assertEquals(56, StockReconstruction.lossesOnlyOurWorkerRebuilds(LRC_12_2_2));
    assertEquals(0, StockReconstruction.lossesOnlyOurWorkerRebuilds(Codes.fromSpec("rs:k=10,m=4")));
    assertNull(StockReconstruction.smallestLossOnlyOurWorkerRebuilds(Codes.fromSpec("rs:k=10,m=4")));
    assertArrayEquals(new int[] {3, 4, 5}, StockReconstruction.smallestLossOnlyOurWorkerRebuilds(LRC_6_2_2));
    assertArrayEquals(new int[] {6, 7, 8}, StockReconstruction.smallestLossOnlyOurWorkerRebuilds(LRC_12_2_2));
  }

  @Test
  void azureLrc6_2_2FailsStockReconstructionExactlyOnThreeLossesAmongTheSecondGroupAndTheGlobals() {
    // Three of {3, 4, 5, G1, G2} lost leave L1 among the first six survivors, and L1 adds nothing to 0, 1, 2.
    for (int a = 0; a < 10; a++) {
      for (int b = a + 1; b < 10; b++) {
        for (int c = b + 1; c < 10; c++) {
          boolean expected = a >= 3 && c <= 7;
          assertEquals(expected, LRC_6_2_2.isDecodable(a, b, c) && !StockReconstruction.canRebuild(LRC_6_2_2, 6,
              new int[] {a, b, c}), "[" + a + ", " + b + ", " + c + "]");
        }
      }
    }
  }
}
