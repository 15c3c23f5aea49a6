package org.wideec.placement.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Set;
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
        + " mismatch; unit 6: blk_1006 CRC mismatch; units [5] were stored"), Set.of(1073741829L, 1005L, 1006L));
    assertTrue(r.refused());
    assertTrue(r.refuses(1073741829L));
    assertTrue(r.refuses(1006));
    assertFalse(r.refuses(1005), "a stored unit is named by its number only");
  }

  @Test
  void aBlockGroupsUnitsAreNamedByTheirNegativeIdsAndAHelpersBlockRefusesEveryUnit() {
    long u0 = -9223372036854775616L;
    long u3 = u0 + 3;
    long u4 = u0 + 4;
    OrderRefusal r = OrderRefusal.of(new IOException("1 of 2 rebuilt units not stored: unit 3: blk_-9223372036854775613"
        + " is already being stored on 10.77.5.29:9866; units [4] were stored"), Set.of(u3, u4));
    assertTrue(r.refuses(u3));
    assertFalse(r.refuses(u4), "stored, named by its number only");
    OrderRefusal helper = OrderRefusal.of(new IOException("helper replica blk_-9223372036854775610 on 10.77.1.11:9866"
        + " is corrupt"), Set.of(u3, u4));
    assertTrue(helper.refuses(u3), "a helper's block is none of the order's units: the whole order is refused");
    assertTrue(helper.refuses(u4));
  }

  @Test
  void aRefusalNamingNoBlockCoversEveryUnit() {
    OrderRefusal r = OrderRefusal.of(new IOException("connection refused"), Set.of(1005L));
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
        OrderRefusal.of(new IllegalStateException(), Set.of()).failure(NODE));
  }
}
