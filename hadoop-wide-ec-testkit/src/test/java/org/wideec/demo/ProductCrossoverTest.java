package org.wideec.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchiveScope;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.archive.StripeUpdate;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.cli.Options;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;

/**
 * The product layer's arithmetic: sweep points, the crossover, how a sweep point is measured (the delta update, and
 * the default run where it re-encodes), a figure held to its plan, bytes per reclaimed GiB, and the layer switch.
 */
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
  void aPointSaysWhichFigureIsTheDeltaUpdateWhichTheModelAndWhatTheDefaultRunDid() {
    Map<String, Object> j = new ProductCrossover.Point(2, false, 300, 256, 200,
        new ProductCrossover.WhenCheaper(true, 190, 210, true)).toJson();
    assertEquals(Map.of("changedUnits", 2, "stripeDropped", false, "deltaMeasuredCrossRackBytes", 300L,
        "deltaPlannedCrossRackBytes", 256L, "reEncodeCrossRackBytes", 200L, "reEncodeWins", true, "whenCheaper",
        Map.of("reEncodes", true, "chosenCrossRackBytes", 190L, "measuredCrossRackBytes", 210L,
            "ranOnItsOwnArchive", true)), j);
  }

  @Test
  void theSweepSaysFromWhichPointTheDefaultRunReEncodes() {
    ProductCrossover.WhenCheaper delta = new ProductCrossover.WhenCheaper(false, 10, 10, false);
    ProductCrossover.WhenCheaper reEncoded = new ProductCrossover.WhenCheaper(true, 5, 5, true);
    List<ProductCrossover.Point> sweep = List.of(new ProductCrossover.Point(1, false, 10, 10, 50, delta),
        new ProductCrossover.Point(2, false, 20, 20, 10, reEncoded), new ProductCrossover.Point(4, false, 40, 40, 10,
            reEncoded), new ProductCrossover.Point(6, true, 0, 0, 0));
    Map<String, Object> j = ProductCrossover.toJson(sweep);
    assertEquals(2, j.get("whenCheaperReEncodesFromChangedUnits"));
    assertEquals(2, j.get("reEncodeWinsFromChangedUnits"));
    assertNull(ProductCrossover.toJson(sweep.subList(0, 1)).get("whenCheaperReEncodesFromChangedUnits"));
  }

  @Test
  void theDefaultRunIsMeasuredOnAnArchiveOfItsOwnExactlyWhereItReEncodes() throws Exception {
    EncodePlan.Shape chain = EncodePlan.Shape.CHAIN;
    // One removed unit: RackCU's delta plan is the cheaper; five of six: re-encoding the one left is.
    List<String> runs = new ArrayList<>();
    ProductCrossover.Point one = ProductCrossover.measure(6, 1, "rackcu", chain, trials(runs, Set.of(100L), 111));
    assertEquals(List.of("delta 1 re-encoding off"), runs);
    assertFalse(one.whenCheaper().reEncodes());
    assertEquals(one.plannedCrossRackBytes(), one.whenCheaper().chosenCrossRackBytes());
    assertEquals(111, one.whenCheaper().measuredCrossRackBytes(), "the delta run is the default run");
    assertFalse(one.whenCheaper().ownArchive());

    runs.clear();
    Set<Long> five = Set.of(100L, 101L, 102L, 103L, 104L);
    ProductCrossover.Point p = ProductCrossover.measure(6, 5, "baseline", chain, trials(runs, five, 222));
    assertEquals(List.of("delta 5 re-encoding off", "when-cheaper 5 re-encoding when cheaper"), runs);
    assertEquals(222, p.measuredCrossRackBytes());
    assertTrue(p.whenCheaper().reEncodes() && p.whenCheaper().ownArchive(), p.toJson().toString());
    assertTrue(p.whenCheaper().chosenCrossRackBytes() < p.plannedCrossRackBytes(), p.toJson().toString());
    assertEquals(222, p.whenCheaper().measuredCrossRackBytes());
  }

  /** Trials over {@link #stripe()} removing {@code inodes}, each measuring {@code bytes}; {@code runs} says which ran. */
  private static ProductCrossover.Trials trials(List<String> runs, Set<Long> inodes, long bytes) {
    StripeManifest m = new StripeManifest("/d", ArchiveScope.DIRECTORY, List.of(stripe()));
    return (changed, run) -> new ProductCrossover.Trial(() -> Map.of(m, List.of(StripeUpdate.removing(stripe(),
        inodes))), reEncodeWhenCheaper -> {
          runs.add(run + " " + changed + (reEncodeWhenCheaper ? " re-encoding when cheaper" : " re-encoding off"));
          return bytes;
        });
  }

  /** An azure-lrc:k=6,l=2,g=2 stripe: data 0-2 in /r0, 3-5 in /r1; parities 6 and 9 in /r0, 7 in /r1, 8 in /r2. */
  private static ArchivedStripe stripe() {
    String spec = "azure-lrc:k=6,l=2,g=2";
    LinearCode code = Codes.pinnedFromSpec(spec);
    List<StripeMember> members = new ArrayList<>();
    for (int u = 0; u < code.k(); u++) {
      members.add(StripeMember.data(100 + u, 5000 + u, 1, 4096, "dn" + u, "/r" + u / 3).withCrc(u));
    }
    for (int u = code.k(); u < code.n(); u++) {
      members.add(new StripeMember(code.role(u), false, 200 + u, 6000 + u, 1, 4096, u, "dn" + u, "/r" + (u % 3)));
    }
    return new ArchivedStripe(3, spec, 1, StripeState.TRIMMED, "/.wideec/parity/9/3", 300, members);
  }

  @Test
  void aSweepBatchTakesTheStripesDataUnitsRackByRackWhateverFileHoldsWhichUnit() throws Exception {
    String spec = "rs:k=6,m=3";
    LinearCode code = Codes.pinnedFromSpec(spec);
    List<StripeMember> members = new ArrayList<>();
    for (int u = 0; u < code.k(); u++) {
      members.add(StripeMember.data(100 + u, 5000 + u, 1, 4096, "dn" + u, "/r" + u % 2).withCrc(u));
    }
    for (int u = code.k(); u < code.n(); u++) {
      members.add(new StripeMember(code.role(u), false, 200 + u, 6000 + u, 1, 4096, u, "dn" + u, "/r2"));
    }
    ArchivedStripe s = new ArchivedStripe(3, spec, 1, StripeState.TRIMMED, "/.wideec/parity/9/3", 300, members);
    Map<StripeManifest, List<StripeUpdate>> all = Map.of(new StripeManifest("/d", ArchiveScope.DIRECTORY,
        List.of(s)), List.of(StripeUpdate.removing(s, Set.of(100L, 101L, 102L, 103L, 104L, 105L))));
    // File fi holds unit 5 - i; units 0, 2, 4 are in /r0, 1, 3, 5 in /r1.
    List<Path> files = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      files.add(new Path("/d/f" + i));
    }
    ProductCrossover.InodeOf inodeOf = f -> 105 - Integer.parseInt(f.getName().substring(1));
    assertEquals(List.of(new Path("/d/f5"), new Path("/d/f3"), new Path("/d/f1"), new Path("/d/f4")),
        ProductCrossover.batch(all, files, inodeOf, 4), "/r0's units 0, 2, 4, then /r1's unit 1");
    assertEquals(List.of(new Path("/d/f5")), ProductCrossover.batch(all, files, inodeOf, 1));
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> ProductCrossover.batch(all, files.subList(0, 5), inodeOf, 1)); // f5, unit 0, missing
    assertEquals("stripe 3 unit 0 is not one file's only block", e.getMessage());
  }

  @Test
  void aFigureIsHeldToItsPlanWhenEveryPlannedByteAndLessThanAUnitBesidesCrossedRacks() {
    assertTrue(ProductCrossover.heldTo(3 << 20, 3 << 20, 1 << 20));
    assertTrue(ProductCrossover.heldTo(3 << 20, (3 << 20) + (1 << 20) - 1, 1 << 20));
    assertFalse(ProductCrossover.heldTo(3 << 20, (3 << 20) + (1 << 20), 1 << 20), "a whole unit more");
    assertFalse(ProductCrossover.heldTo(3 << 20, (3 << 20) - 1, 1 << 20), "a planned byte missing");
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
