package org.wideec.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.apache.hadoop.hdfs.protocol.DatanodeID;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.junit.jupiter.api.Test;

class UnitsBeingStoredTest {
  private static DatanodeInfo node(String ip) {
    return new DatanodeInfo.DatanodeInfoBuilder()
        .setNodeID(new DatanodeID(ip, ip, "uuid-" + ip, 9866, 9864, 9865, 9867)).build();
  }

  @Test
  void aSecondWriterOfTheSameUnitToTheSameTargetIsRefusedByNameUntilTheFirstEnds() throws IOException {
    ExtendedBlock unit = new ExtendedBlock("BP-1", -9223372036854775613L, 1 << 20, 1015);
    DatanodeInfo target = node("10.77.5.29");
    UnitsBeingStored.Claim first = UnitsBeingStored.take(unit, target);
    try {
      assertTrue(UnitsBeingStored.isBeingStored("BP-1", unit.getBlockId(), target));
      UnitsBeingStored.AlreadyBeingStored e = assertThrows(UnitsBeingStored.AlreadyBeingStored.class,
          () -> UnitsBeingStored.take(unit, target));
      assertEquals("blk_-9223372036854775613 is already being stored on 10.77.5.29:9866 by another rebuild on this"
          + " DataNode", e.getMessage());
      assertTrue(UnitsBeingStored.refused(new IOException("storing failed", e)), "found behind a wrapper");
      // Another target, another pool or another unit is another write.
      UnitsBeingStored.take(unit, node("10.77.5.30")).release();
      UnitsBeingStored.take(new ExtendedBlock("BP-2", unit.getBlockId(), 1, 1015), target).release();
      UnitsBeingStored.take(new ExtendedBlock("BP-1", unit.getBlockId() + 1, 1, 1015), target).release();
    } finally {
      first.release();
    }
    first.release(); // twice is harmless
    assertFalse(UnitsBeingStored.isBeingStored("BP-1", unit.getBlockId(), target));
    UnitsBeingStored.take(unit, target).release();
    assertFalse(UnitsBeingStored.refused(new IOException("Broken pipe")));
  }
}
