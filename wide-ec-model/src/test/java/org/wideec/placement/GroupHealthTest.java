package org.wideec.placement;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.wideec.code.LinearCode;
import org.wideec.coder.StripedCodec;

class GroupHealthTest {
  private static final LinearCode LRC = StripedCodec.AZURE_LRC_L2.codeFor(12, 4);

  /** Live units placed as the plan says, with rack names /r0, /r1, ... */
  private static Map<Integer, String> placed(PlacementPlan plan, int... lost) {
    Map<Integer, String> live = new HashMap<>();
    for (int u = 0; u < plan.code().n(); u++) {
      live.put(u, "/r" + plan.rackOf(u));
    }
    for (int u : lost) {
      live.remove(u);
    }
    return live;
  }

  @Test
  void aHealthyGroupOnTheStockReadablePlanSurvivesAnyRackForStockClients() {
    PlacementPlan plan = StripedPlacement.planFor("azure-lrc-l2", 12, 4, StripedPlacement.AUTO);
    GroupHealth h = GroupHealth.of(LRC, new BitSet(), placed(plan));
    assertTrue(h.decodable() && h.stockReadable() && h.stockReadableAfterRackLoss());
    assertFalse(h.needsAttention());
    assertEquals(3, h.remaining().value());
  }

  @Test
  void theCombinedLocalityArrangementIsFlaggedForTheRackThatDefeatsTheStockReader() {
    PlacementPlan cl = new CombinedLocalityPlanner().plan(LRC);
    GroupHealth h = GroupHealth.of(LRC, new BitSet(), placed(cl));
    assertTrue(h.stockReadable());
    assertFalse(h.stockReadableAfterRackLoss());
    assertEquals("/r3", h.worstRack(), "rack 3 holds units 6, 7, 8 of the second group");
    assertTrue(h.needsAttention());
  }

  @Test
  void aLossTheCodeDecodesButTheStockReaderCannotIsReportedAsSuch() {
    PlacementPlan plan = StripedPlacement.planFor("azure-lrc-l2", 12, 4, StripedPlacement.AUTO);
    GroupHealth h = GroupHealth.of(LRC, new BitSet(), placed(plan, 9, 10, 11));
    assertArrayEquals(new int[] {9, 10, 11}, h.lost());
    assertTrue(h.decodable());
    assertFalse(h.stockReadable());
    assertEquals(0, h.remaining().value());
    assertTrue(h.atRisk());
  }

  @Test
  void dataUnitsPastTheEndOfAShortGroupAreNotLost() {
    PlacementPlan plan = StripedPlacement.planFor("azure-lrc-l2", 12, 4, StripedPlacement.AUTO);
    BitSet absent = new BitSet();
    absent.set(2, 12);
    GroupHealth h = GroupHealth.of(LRC, absent, placed(plan, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
    assertArrayEquals(new int[0], h.lost());
    assertTrue(h.stockReadable() && h.stockReadableAfterRackLoss());
  }

  @Test
  void fiveLossesInOneGroupLoseData() {
    PlacementPlan plan = StripedPlacement.planFor("azure-lrc-l2", 12, 4, StripedPlacement.AUTO);
    GroupHealth h = GroupHealth.of(LRC, new BitSet(), placed(plan, 0, 1, 2, 3, 4));
    assertFalse(h.decodable());
    assertFalse(h.stockReadable());
    assertTrue(h.remaining().dataLost());
  }
}
