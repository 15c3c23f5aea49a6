package org.wideec.code;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class StockStripedReaderTest {
  private static final LinearCode LRC_12_2_2 = Codes.fromSpec("azure-lrc:k=12,l=2,g=2");

  @Test
  void readerTakesTheLowestIndexSurvivingParitiesOnePerLostDataUnit() {
    // Units: data 0-11, G1 12, G2 13, L1 14 (group 0-5), L2 15 (group 6-11).
    assertArrayEquals(new int[] {12, 13, 14}, StockStripedReader.parityChoice(LRC_12_2_2, 9, 10, 11));
    assertArrayEquals(new int[] {13}, StockStripedReader.parityChoice(LRC_12_2_2, 0, 12));
    assertArrayEquals(new int[0], StockStripedReader.parityChoice(LRC_12_2_2, 12, 14));
    assertNull(StockStripedReader.parityChoice(LRC_12_2_2, 0, 1, 12, 13, 14));
  }

  @Test
  void threeLossesInTheSecondLocalGroupDecodeButAreUnreadableToAStockClient() {
    assertTrue(LRC_12_2_2.isDecodable(9, 10, 11));
    assertFalse(StockStripedReader.canRead(LRC_12_2_2, 9, 10, 11));
    assertTrue(StockStripedReader.canRead(LRC_12_2_2, 3, 4, 5), "G1, G2 and L1 rebuild three units of group 1");
    assertTrue(StockStripedReader.canRead(LRC_12_2_2, 6, 7, 15), "two data units need only G1 and G2");
    assertTrue(StockStripedReader.canRead(LRC_12_2_2, 12, 13, 14, 15), "no data lost, nothing to decode");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {"azure-lrc:k=12,l=2,g=2 | 2", "azure-lrc:k=6,l=2,g=2 | 2",
      "azure-lrc+1:k=10,l=2,g=2 | 2", "uniform-cauchy-lrc:k=10,l=2,g=2 | 2", "unilrc:alpha=1,z=3 | 3", "rs:k=10,m=4 | 4",
      "rs:k=6,m=3 | 3"})
  void stockClientsReadThroughAnyGLosses(String spec, int tolerance) {
    assertEquals(tolerance, StockStripedReader.tolerance(Codes.fromSpec(spec)));
  }

  @Test
  void remainingToleranceIsTheCodesTrueMarginNotHdfsParityCount() {
    assertEquals(new RemainingTolerance(3, true), RemainingTolerance.of(LRC_12_2_2));
    // Three units of one group lost: any further loss in that group loses data.
    assertEquals(new RemainingTolerance(0, true), RemainingTolerance.of(LRC_12_2_2, 9, 10, 11));
    // One local parity lost: the other three parities still cover any two more losses.
    assertEquals(2, RemainingTolerance.of(LRC_12_2_2, 15).value());
    assertTrue(RemainingTolerance.of(LRC_12_2_2, 0, 1, 2, 3, 4).dataLost());
  }

  @Test
  void countsTheFourLossPatternsHdfsWronglyBelievesReadable() {
    // HDFS is told m = 4; the code decodes 1568 of the 1820 four-loss patterns (docs/codes.md, codes describe).
    long undecodable = 0;
    int[] idx = RecoverabilityCheck.firstCombination(4);
    do {
      undecodable += LRC_12_2_2.isDecodable(idx) ? 0 : 1;
    } while (RepairPlanner.next(idx, 16));
    assertEquals(252, undecodable);
  }

  @Test
  void aPartialLastStripeIsReadWithFewerParitiesAndCanFailWhereAFullOneDoesNot() {
    // UniLRC 6+6 (data 0-5, globals 6-8, locals 9-11): losing {0,1,6,7,8} is read with L9, L10 in a full stripe,
    // but a last stripe that fills only data cell 0 needs one parity, takes L9 alone, and cannot decode unit 0.
    LinearCode uni = Codes.fromSpec("unilrc:alpha=1,z=3");
    assertTrue(StockStripedReader.canRead(uni, 0, 1, 6, 7, 8));
    assertFalse(StockStripedReader.canReadStripe(uni, 1, 0, 1, 6, 7, 8));
    assertFalse(StockStripedReader.canReadEveryStripe(uni, 6, 0, 1, 6, 7, 8));
    assertTrue(StockStripedReader.canReadEveryStripe(LRC_12_2_2, 12, 6, 7, 15));
  }

  @Test
  void onlyACodeAwareReaderServesSomeLossesOfAnLrcButNoneOfAnMdsCode() {
    // With four losses the reader takes all four parities, so every decodable four-loss pattern is readable.
    int[] widest = StockStripedReader.widestLossOnlyTheCodeReads(LRC_12_2_2);
    assertEquals(3, widest.length);
    assertTrue(LRC_12_2_2.isDecodable(widest));
    assertFalse(StockStripedReader.canRead(LRC_12_2_2, widest));
    assertNull(StockStripedReader.widestLossOnlyTheCodeReads(Codes.fromSpec("rs:k=10,m=4")));
  }
}
