package org.wideec.repair;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.wideec.coder.StripedCodec;
import org.wideec.code.LinearCode;
import org.wideec.code.RemainingTolerance;

class RepairUrgencyTest {
  @Test
  void aGroupThatCanLoseNothingMoreGoesBeforeOneQueuedEarlierWithMargin() {
    LinearCode lrc = StripedCodec.AZURE_LRC_L2.codeFor(12, 4);
    RepairUrgency oneLost = RepairUrgency.of(RemainingTolerance.of(lrc, 0), 0);
    RepairUrgency threeLost = RepairUrgency.of(RemainingTolerance.of(lrc, 0, 1, 12), 1);
    assertEquals(0, threeLost.tolerance(), "a data unit, its group's other data unit and a global parity: one more"
        + " loss of the wrong unit loses data");
    List<RepairUrgency> queue = new ArrayList<>(List.of(oneLost, threeLost));
    queue.sort(RepairUrgency.MOST_URGENT_FIRST);
    assertEquals(List.of(threeLost, oneLost), queue);
  }

  @Test
  void aWideStripeIsRankedByItsCodesGuaranteeLessWhatItMisses() {
    LinearCode lrc = StripedCodec.AZURE_LRC_L2.codeFor(12, 4);
    int g = lrc.guaranteedTolerance();
    assertEquals(3, g, "Azure-LRC 12+2+2 survives any three losses");
    assertEquals(2, RepairUrgency.guaranteed(lrc, 1, 0).tolerance());
    assertEquals(0, RepairUrgency.guaranteed(lrc, 3, 0).tolerance());
    assertEquals(0, RepairUrgency.guaranteed(lrc, 5, 0).tolerance(), "never below 0: such a stripe is rebuilt first");
  }

  @Test
  void equalMarginsKeepTheirQueueOrderAndLostGroupsGoLast() {
    RepairUrgency lost = new RepairUrgency(-1, 0);
    RepairUrgency a = new RepairUrgency(2, 1);
    RepairUrgency b = new RepairUrgency(2, 2);
    RepairUrgency c = new RepairUrgency(1, 3);
    List<RepairUrgency> queue = new ArrayList<>(List.of(lost, b, a, c));
    queue.sort(RepairUrgency.MOST_URGENT_FIRST);
    assertEquals(List.of(c, a, b, lost), queue);
  }
}
