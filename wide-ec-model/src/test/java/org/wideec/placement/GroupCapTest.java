package org.wideec.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class GroupCapTest {
  private static final GroupCap.Shape LRC_12_4 = new GroupCap.Shape("azure-lrc-l2", 12, 4);
  private static final GroupCap.Shape RS_3_2 = new GroupCap.Shape("rs", 3, 2);
  private static final GroupCap.Shape XOR_2_1 = new GroupCap.Shape("xor", 2, 1);

  @Test
  void aFullWideGroupIsCappedByItsOwnPlanNotByTheLeastTolerantEnabledPolicy() {
    // 16 units can only be a full 12+2+2 group: RS-3-2 and XOR-2-1 groups have at most 5 and 3 units.
    assertEquals(new GroupCap(true, false, 3), GroupCap.of(List.of(LRC_12_4, RS_3_2, XOR_2_1), 16, "auto"));
  }

  @Test
  void aSmallGroupThatCouldBeStockIsMarkedAmbiguous() {
    // 5 units: a 12+2+2 group with one data unit, or a full RS-3-2 group.
    assertEquals(new GroupCap(true, true, 3), GroupCap.of(List.of(LRC_12_4, RS_3_2, XOR_2_1), 5, "auto"));
    assertEquals(new GroupCap(false, true, 0), GroupCap.of(List.of(LRC_12_4, XOR_2_1), 3, "auto"));
  }

  @Test
  void anUnbuildablePolicyOfOursIsIgnoredNotThrown() {
    assertEquals(new GroupCap(false, false, 0), GroupCap.of(List.of(new GroupCap.Shape("unilrc", 5, 6)), 11, "auto"));
  }

  @Test
  void schemesAreCheckedOnceWithTheAllowedValues() {
    assertEquals("cl", PlacementConf.scheme(" CL "));
    assertEquals("auto", PlacementConf.scheme(null));
    PlacementException e = assertThrows(PlacementException.class, () -> PlacementConf.scheme("combined-localty"));
    assertEquals("wide-ec.placement.scheme = 'combined-localty' is not a placement scheme (allowed: auto, flat, tl, cl,"
        + " unilrc)", e.getMessage());
  }
}
