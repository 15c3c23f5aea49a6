package org.wideec.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Site;

class RangePaceTest {
  /** Azure-LRC(4,2,2) losing unit 0: its helpers 1 in rack A and L1 (6) in rack B, the client in rack C. */
  private static StripeRepair lostUnit0(RepairScheme scheme) {
    LinearCode lrc = Codes.fromSpec("azure-lrc:k=4,l=2,g=2");
    Map<Integer, UnitLocation> at = new HashMap<>();
    for (int u = 1; u < lrc.n(); u++) {
      at.put(u, new UnitLocation(u, new Site("n" + u, u == 1 ? "A" : u == 6 ? "B" : "D")));
    }
    return StripeRepair.of("s", lrc, new int[] {0}, new long[] {1_000_000}, at, Map.of(), Set.of(), scheme);
  }

  @Test
  void theLinkModelGivesTheRangeTwiceItsPathsIdleTime() {
    Configuration conf = new Configuration(false);
    conf.setLong(RangePace.NODE_RATE, 10_000_000);
    conf.setLong(RangePace.RACK_RATE, 1_000_000);
    RangePace pace = new RangePace(conf);
    // A rack star: C's downlink carries two ranges, 2 s idle; shared with the unit's rebuild, 4 s.
    assertEquals(4_000_000_000L, pace.expectedNanos(lostUnit0(RepairScheme.RACK_STAR), "client", "C", 1_000_000));
    pace.healthyRead(1_000_000, 1_000_000); // a measured pace does not override the model the client was given
    assertEquals(2_000_000_000L, pace.expectedNanos(lostUnit0(RepairScheme.RACK_AGGREGATED), "client", "C", 1_000_000));
  }

  @Test
  void withoutTheModelTheRangeTakesTheRecentPaceOfHealthyReads() {
    RangePace pace = new RangePace(new Configuration(false));
    StripeRepair r = lostUnit0(RepairScheme.RACK_STAR);
    assertEquals(0, pace.expectedNanos(r, "client", "C", 1_000_000), "no read measured yet: not known");
    pace.healthyRead(1_000_000, 100_000_000); // 10 MB/s
    assertEquals(100_000_000L, pace.expectedNanos(r, "client", "C", 1_000_000));
    pace.healthyRead(1_000_000, 50_000_000); // 20 MB/s moves the mean a quarter of the way: 12.5 MB/s
    assertEquals(80_000_000L, pace.expectedNanos(r, "client", "C", 1_000_000));
  }

  @Test
  void oneRateWithoutTheOtherIsRefusedNamingBothKeys() {
    Configuration conf = new Configuration(false);
    conf.setLong(RangePace.RACK_RATE, 1_000_000);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new RangePace(conf));
    assertTrue(e.getMessage().contains(RangePace.NODE_RATE) && e.getMessage().contains(RangePace.RACK_RATE),
        e.getMessage());
  }
}
