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
    assertEquals(4, chosen.crossRackChunks());
    assertEquals(12, new RackCu().plan(deletes).crossRackChunks());
  }

  @Test
  void manyChangedUnitsReEncodeRatherThanRackBlindDeltas() {
    UpdatePattern ten = RS_12_4.withChanged(IntStream.range(0, 10).toArray());
    assertEquals(40, new BaselineUpdate().plan(ten).crossRackChunks());
    UpdatePlan chosen = new UpdateChooser(new BaselineUpdate()).choose(ten);
    assertEquals("reencode", chosen.scheme());
    assertEquals(14, chosen.crossRackChunks());
  }

  @Test
  void aTieKeepsTheDeltaUpdate() {
    // Every unit changed and none cleared: re-encoding reads what RackCU collects and sends the same parity deltas.
    UpdatePattern all = RS_12_4.withChanged(IntStream.range(0, 12).toArray());
    assertEquals(new ReEncoding().plan(all).crossRackChunks(), new RackCu().plan(all).crossRackChunks());
    assertEquals("rackcu", new UpdateChooser(new RackCu()).choose(all).scheme());
  }
}
