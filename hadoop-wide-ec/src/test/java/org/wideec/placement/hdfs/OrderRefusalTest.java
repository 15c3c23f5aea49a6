package org.wideec.placement.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo.DatanodeInfoBuilder;
import org.junit.jupiter.api.Test;

/**
 * A rebuild order's failure read per unit: a joint order's refusal covers exactly the units it names by block, one
 * that names no block covers every unit, and an order not refused covers none.
 */
class OrderRefusalTest {
  private static final DatanodeInfo NODE = new DatanodeInfoBuilder().setIpAddr("10.0.0.7").setXferPort(9866)
      .setHostName("dn7").setDatanodeUuid("uuid-7").build();

  @Test
  void aJointOrdersRefusalCoversExactlyTheUnitsItNamesByBlock() {
    OrderRefusal r = OrderRefusal.of(new IOException("2 of 3 rebuilt units not stored: unit 4: blk_1073741829 CRC"
        + " mismatch; unit 6: blk_1006 CRC mismatch; units [5] were stored"));
    assertTrue(r.refused());
    assertTrue(r.refuses(1073741829L));
    assertTrue(r.refuses(1006));
    assertFalse(r.refuses(1005), "a stored unit is named by its number only");
  }

  @Test
  void aRefusalNamingNoBlockCoversEveryUnit() {
    OrderRefusal r = OrderRefusal.of(new IOException("connection refused"));
    assertTrue(r.refuses(1005));
    assertEquals("rebuild on 10.0.0.7:9866 failed: connection refused", r.failure(NODE));
    assertEquals("10.0.0.7:9866 stored it, but the NameNode lists no live replica there after 3000 ms ("
        + ArchiveRepairSettings.CONFIRM_KEY + "); connection refused", r.unconfirmed(NODE, 3000));
  }

  @Test
  void anOrderNotRefusedCoversNoUnitAndAFailureWithoutMessageIsNamedByItsType() {
    assertFalse(OrderRefusal.NONE.refused());
    assertFalse(OrderRefusal.NONE.refuses(1005));
    assertEquals("10.0.0.7:9866 stored it, but the NameNode lists no live replica there after 3000 ms ("
        + ArchiveRepairSettings.CONFIRM_KEY + ")", OrderRefusal.NONE.unconfirmed(NODE, 3000));
    assertEquals("rebuild on 10.0.0.7:9866 failed: java.lang.IllegalStateException",
        OrderRefusal.of(new IllegalStateException()).failure(NODE));
  }
}
