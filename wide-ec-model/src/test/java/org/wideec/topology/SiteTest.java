package org.wideec.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.wideec.repair.UnitLocation;

class SiteTest {
  @Test
  void aSiteWithoutANodeOrARackIsRefusedNamingBoth() {
    for (String[] bad : new String[][] {{null, "/r1"}, {"", "/r1"}, {" ", "/r1"}, {"dn1:9866", null},
        {"dn1:9866", ""}, {"dn1:9866", "  "}}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Site(bad[0], bad[1]));
      assertEquals("a site needs a node and a rack, got node " + bad[0] + ", rack " + bad[1], e.getMessage());
    }
  }

  @Test
  void unitLocationsAndEndpointsAnswerWithTheirSitesNodeAndRack() {
    Site s = new Site("dn1:9866", "/r1");
    UnitLocation u = new UnitLocation(3, s);
    Endpoint e = new Endpoint("10.0.0.1", 7000, s);
    assertEquals(s, u.site());
    assertEquals("dn1:9866", u.node());
    assertEquals("/r1", u.rack());
    assertEquals("dn1:9866", e.node());
    assertEquals("/r1", e.rack());
    assertEquals("dn1:9866 (/r1, slice port 10.0.0.1:7000)", e.toString());
    assertThrows(IllegalArgumentException.class, () -> new UnitLocation(3, null));
    assertThrows(IllegalArgumentException.class, () -> new Endpoint("10.0.0.1", 7000, null));
  }

  @Test
  void aZeroUnitStandsInTheReadersRack() {
    UnitLocation z = UnitLocation.zero(5, "/r2");
    assertEquals(5, z.unit());
    assertEquals("/r2", z.rack());
    assertEquals("(zero unit)", z.node());
  }
}
