package org.wideec.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.wideec.cli.Options;

/** The product layer's arithmetic: sweep points, the crossover, bytes per reclaimed GiB, and the layer switch. */
class ProductCrossoverTest {
  private static ProductCrossover.Point p(int changed, long measured, long reEncode) {
    return new ProductCrossover.Point(changed, false, measured, measured, reEncode);
  }

  private static int measured(List<ProductCrossover.Point> sweep) {
    return ProductCrossover.crossover(sweep, ProductCrossover.Point::measuredCrossRackBytes);
  }

  @Test
  void theSweepDoublesTheChangedUnitsBelowKThenTakesAllK() {
    assertEquals(List.of(1, 2, 4, 6), ProductCrossover.points(6));
    assertEquals(List.of(1, 2, 4, 8, 12), ProductCrossover.points(12));
    assertEquals(List.of(1, 2, 4, 8, 16), ProductCrossover.points(16));
    assertEquals(List.of(1), ProductCrossover.points(1));
    assertThrows(IllegalArgumentException.class, () -> ProductCrossover.points(0));
  }

  @Test
  void theCrossoverIsTheFirstPointFromWhichReEncodingStaysCheaper() {
    assertEquals(4, measured(List.of(p(1, 10, 50), p(2, 20, 40), p(4, 40, 30), p(6, 60, 20))));
    assertEquals(1, measured(List.of(p(1, 10, 5), p(2, 20, 4))));
  }

  @Test
  void aDroppedStripeIsReportedButTakesNoPartInTheCrossover() {
    ProductCrossover.Point dropped = new ProductCrossover.Point(6, true, 0, 0, 0);
    assertEquals(2, measured(List.of(p(1, 10, 50), p(2, 20, 10), p(4, 40, 30), dropped)));
    assertEquals(-1, measured(List.of(p(1, 10, 50), dropped)));
  }

  @Test
  void thePlannedCrossoverComparesThePlanNotTheMeasuredBytes() {
    List<ProductCrossover.Point> sweep = List.of(new ProductCrossover.Point(1, false, 100, 10, 50),
        new ProductCrossover.Point(2, false, 200, 60, 40));
    assertEquals(1, measured(sweep));
    assertEquals(2, ProductCrossover.crossover(sweep, ProductCrossover.Point::plannedCrossRackBytes));
  }

  @Test
  void aTieOrADeltaWinAtTheLargestPointMeansNoCrossover() {
    assertEquals(-1, measured(List.of(p(1, 10, 50), p(2, 20, 20))), "a tie goes to the delta");
    assertEquals(-1, measured(List.of(p(1, 10, 5), p(2, 20, 30))), "won then lost again");
    assertEquals(-1, measured(List.of()));
  }

  @Test
  void aPointSaysWhatItMeasuredAndWhoWins() {
    Map<String, Object> j = new ProductCrossover.Point(2, false, 300, 256, 200).toJson();
    assertEquals(Map.of("changedUnits", 2, "stripeDropped", false, "measuredCrossRackBytes", 300L, "plannedCrossRackBytes", 256L,
        "reEncodeCrossRackBytes", 200L, "reEncodeWins", true), j);
  }

  @Test
  void crossRackBytesArePricedPerReclaimedGibibyte() {
    assertEquals(3.0 * 1024 * 1024 * 1024, ProductCrossover.perReclaimedGiB(3L << 30, 1L << 30), 1e-6);
    assertEquals(2.0 * (1L << 30), ProductCrossover.perReclaimedGiB(1L << 20, 512 * 1024), 1e-6);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ProductCrossover.perReclaimedGiB(100, 0));
    assertEquals("the update freed 0 bytes: nothing to price 100 cross-rack bytes against", e.getMessage());
  }

  @Test
  void theLayerSwitchChoosesPaperByDefaultProductOrBoth() {
    assertEquals("paper", UpdateBench.layers(new Options(new String[] {"--quick"}, VALUED, SWITCHES)));
    assertEquals("product", UpdateBench.layers(new Options(new String[] {"--product"}, VALUED,
        SWITCHES)));
    assertEquals("both", UpdateBench.layers(new Options(new String[] {"--layers", "both"}, VALUED,
        SWITCHES)));
    assertThrows(Options.UsageException.class, () -> UpdateBench.layers(new Options(new String[] {"--product",
        "--layers", "paper"}, VALUED, SWITCHES)));
    assertThrows(Options.UsageException.class, () -> UpdateBench.layers(new Options(new String[] {"--layers",
        "real"}, VALUED, SWITCHES)));
  }

  private static final java.util.Set<String> VALUED = java.util.Set.of("layers");
  private static final java.util.Set<String> SWITCHES = java.util.Set.of("quick", "product");
}
