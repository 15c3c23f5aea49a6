package org.wideec.archive.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.wideec.engine.UpdateRoleBudget;

/** An update's slice: whole checksum chunks within the frame and a role's budget, so slice 1 never starts mid-chunk. */
class DataNodeParityDeltaSliceTest {
  private static final int MIB = 1 << 20;

  @Test
  void threeRowsOfAFrameRoundDownToWholeChunks() {
    // 1 MiB / 3 rows = 349525 bytes: the next slice would start 213 bytes into a 512-byte chunk.
    assertEquals(349184, DataNodeParityDeltaExecutor.sliceBytes(4 * MIB, MIB, 3, 10, 512));
  }

  @Test
  void aRoleHoldingManyRowsGetsSlicesItsBudgetHoldsInWholeChunks() {
    long buffered = UpdateRoleBudget.bufferedSlices(200, true, 4, 4, 200, 2);
    int slice = DataNodeParityDeltaExecutor.sliceBytes(MIB, MIB, 4, buffered, 512);
    assertEquals(0, slice % 512);
    assertEquals(UpdateRoleBudget.roleBudget(MIB) / buffered / 512 * 512, slice);
  }

  @Test
  void aSliceIsAtLeastOneChunk() {
    assertEquals(512, DataNodeParityDeltaExecutor.sliceBytes(MIB, 1000, 3, 1, 512));
  }
}
