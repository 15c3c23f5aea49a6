package org.wideec.update;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;

class UpdateChooserTest {
  private static final UpdatePattern RS_12_4 = UpdatePattern.of(RackSeparatedPlacement.plan(Codes.fromSpec("rs:k=12,m=4"), 2));

  @Test
  void oneChangedUnitIsUpdatedByDeltas() {
    assertEquals("rackcu", new UpdateChooser(new RackCu()).choose(RS_12_4.withChanged(5)).scheme());
    assertEquals("baseline", new UpdateChooser(new BaselineUpdate()).choose(RS_12_4.withChanged(5)).scheme());
  }

  @Test
  void deletingTenOfTwelveUnitsReEncodesFromTheTwoLiveOnes() {
    int[] ten = IntStream.range(0, 10).toArray();
    UpdatePattern deletes = RS_12_4.withChanged(ten).clearing(ten);
    UpdatePlan chosen = new UpdateChooser(new RackCu()).choose(deletes);
    assertEquals("reencode", chosen.scheme());
    // The chain: d10 -> d11 (rack 5) -> the collector in a parity rack, 4 rows; 2 rows delivered to the other.
    assertEquals(6, chosen.crossRackChunks());
    assertEquals(12, new RackCu().plan(deletes).crossRackChunks());
  }

  @Test
  void manyChangedUnitsReEncodeRatherThanRackBlindDeltas() {
    UpdatePattern ten = RS_12_4.withChanged(IntStream.range(0, 10).toArray());
    assertEquals(40, new BaselineUpdate().plan(ten).crossRackChunks());
    UpdatePlan chosen = new UpdateChooser(new BaselineUpdate()).choose(ten);
    assertEquals("reencode", chosen.scheme());
    // The chain crosses each of the 6 data racks' boundaries with 4 rows, then delivers 2 rows to the other parity rack.
    assertEquals(6 * 4 + 2, chosen.crossRackChunks());
  }

  @Test
  void everyUnitChangedKeepsRackCusDeltas() {
    // Every unit changed and none cleared: RackCU gathers 10 data deltas and sends 4 parity deltas; the chain
    // carries 4 rows out of each of the 6 data racks and delivers 2.
    UpdatePattern all = RS_12_4.withChanged(IntStream.range(0, 12).toArray());
    assertEquals(14, new RackCu().plan(all).crossRackChunks());
    assertEquals(26, new ReEncoding().plan(all).crossRackChunks());
    assertEquals("rackcu", new UpdateChooser(new RackCu()).choose(all).scheme());
  }

  @Test
  void aTieKeepsTheDeltaUpdate() {
    assertEquals(false, UpdateChooser.prefersReEncoding(6, 6), "re-encoding also reads every live unit from disk");
    assertEquals(true, UpdateChooser.prefersReEncoding(5, 6));
  }
}
