package org.wideec.placement;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.wideec.analysis.PlacementCosts;
import org.wideec.code.InvalidCodeSpecException;
import org.wideec.code.LinearCode;
import org.wideec.code.StockStripedReader;
import org.wideec.coder.StripedCodec;

class StockReadablePlacementTest {

  /** Racks each local group spans: with in-rack aggregation, a unit's cross-rack repair cost is that minus one. */
  private static int[] groupSpans(PlacementPlan p) {
    return StockReadablePlacement.groupsOf(p.code()).stream()
        .mapToInt(g -> (int) Arrays.stream(g).map(p::rackOf).distinct().count()).toArray();
  }

  @Test
  void azureLrc12x2x2KeepsAtMostTwoDataUnitsOfTheSecondGroupPerRack() {
    PlacementPlan base = new CombinedLocalityPlanner().plan(StripedCodec.AZURE_LRC_L2.codeFor(12, 4));
    assertEquals(List.of(3, 4), StockReadablePlacement.unreadableRacks(base), "{6,7,8} and {9,10,11} break the stock reader");
    PlacementPlan p = StripedPlacement.planFor("azure-lrc-l2", 12, 4, StripedPlacement.AUTO);
    // {0,1,2} {3,4,5} {G1,G2,L1} {6,7} {8,9} {10,11,L2}
    assertArrayEquals(new int[] {0, 0, 0, 1, 1, 1, 3, 3, 4, 4, 5, 5, 2, 2, 2, 5}, p.rackOf());
    assertArrayEquals(groupSpans(base), groupSpans(p), "same combined-locality repair cost");
    assertEquals(PlacementCosts.of(base).cdrc(), PlacementCosts.of(p).cdrc(), 1e-9);
  }

  @ParameterizedTest
  @CsvSource({"azure-lrc-l2,12,4", "azure-lrc-l2,6,4", "azure-lrc1-l2,10,5", "unilrc,6,6", "uniform-cauchy-lrc-l2,10,4",
      "wide-rs,10,4"})
  void everyShippedPolicyIsReadableByStockClientsAfterAnyRackLoss(String codec, int k, int m) {
    PlacementPlan p = StripedPlacement.planFor(codec, k, m, StripedPlacement.AUTO);
    for (int r = 0; r < p.racks(); r++) {
      assertTrue(StockStripedReader.canRead(p.code(), p.units(r)), p + ": rack " + r + " " + Arrays.toString(p.units(r)));
    }
  }

  @Test
  void azureLrcPlusOne10x2x2SpreadsItsSecondGroupOverOneMoreRack() {
    // L2 is the fourth parity: three data units of group 2 in a rack are read with G1, G2, L1 and cannot decode,
    // so group 2's five data units need three racks. No arrangement keeps combined locality's two.
    LinearCode code = StripedCodec.AZURE_LRC1_L2.codeFor(10, 5);
    PlacementPlan base = new CombinedLocalityPlanner().plan(code);
    PlacementPlan p = StripedPlacement.planFor("azure-lrc1-l2", 10, 5, StripedPlacement.AUTO);
    assertArrayEquals(new int[] {2, 2}, groupSpans(base));
    assertArrayEquals(new int[] {2, 3}, groupSpans(p));
  }

  @Test
  void everyBuildableCodecShapeHasAStockReadablePlan() {
    List<String> checked = new ArrayList<>();
    for (StripedCodec codec : StripedCodec.values()) {
      for (int k = 1; k < StripedCodec.MAX_STRIPED_UNITS; k++) {
        for (int m = 1; k + m <= StripedCodec.MAX_STRIPED_UNITS; m++) {
          LinearCode code;
          try {
            code = codec.codeFor(k, m);
          } catch (InvalidCodeSpecException e) {
            continue;
          }
          if (code.minimumDistance().faultsTolerated() < 1) {
            continue; // codes that tolerate no loss have no rack-tolerant plan at all
          }
          PlacementPlan p = StripedPlacement.planFor(codec.codecName(), k, m, StripedPlacement.AUTO);
          for (int r = 0; r < p.racks(); r++) {
            assertTrue(StockStripedReader.canReadEveryStripe(code, k, p.units(r)), p + " rack " + r);
          }
          assertEquals(List.of(), StockReadablePlacement.unreadableRacks(p), p.toString());
          assertTrue(StockStripedReader.tolerance(code) >= 1, code.spec());
          checked.add(code.spec());
        }
      }
    }
    assertTrue(checked.size() > 100, "checked " + checked.size() + " shapes");
  }
}
