package org.wideec.update;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.placement.PlacementPlan;

/** The layout of the seed's simulation (RackCU §V-B, Experiment A.3): drawn per stripe, data and parity apart. */
class SimulatedDataCenterPlacementTest {
  private static final LinearCode RS_12_4 = Codes.fromSpec("rs:k=12,m=4");

  @Test
  void everyStripeKeepsDataAndParityRacksApartWithAtMostMUnitsPerRack() {
    SimulatedDataCenterPlacement layouts = SimulatedDataCenterPlacement.seedSimulation(RS_12_4, 1);
    Set<String> distinct = new HashSet<>();
    for (long stripe = 0; stripe < 2_000; stripe++) {
      PlacementPlan p = layouts.plan(stripe);
      assertTrue(p.racks() <= 10, "stripe " + stripe + " spans " + p.racks() + " racks of 10");
      assertTrue(p.maxUnitsPerRack() <= 4, "stripe " + stripe + ": " + p);
      for (int r = 0; r < p.racks(); r++) {
        int[] units = p.units(r);
        boolean data = units[0] < 12;
        for (int u : units) {
          assertEquals(data, u < 12, "stripe " + stripe + " mixes data and parity in rack " + r + ": " + p);
        }
      }
      distinct.add(java.util.Arrays.toString(p.rackOf()));
    }
    // A drawn layout: the stripes do not all share one (a fixed layout would give every run the same count).
    assertTrue(distinct.size() > 1_000, distinct.size() + " layouts among 2,000 stripes");
  }

  @Test
  void theSameRunAndStripeGiveTheSameLayoutAndAnotherRunAnother() {
    SimulatedDataCenterPlacement a = SimulatedDataCenterPlacement.seedSimulation(RS_12_4, 1);
    SimulatedDataCenterPlacement b = SimulatedDataCenterPlacement.seedSimulation(RS_12_4, 2);
    int differ = 0;
    for (long stripe = 0; stripe < 100; stripe++) {
      assertArrayEquals(a.plan(stripe).rackOf(), SimulatedDataCenterPlacement.seedSimulation(RS_12_4, 1)
          .plan(stripe).rackOf());
      differ += java.util.Arrays.equals(a.plan(stripe).rackOf(), b.plan(stripe).rackOf()) ? 0 : 1;
    }
    assertTrue(differ > 90, differ + " of 100 stripes laid out differently in two runs");
  }

  @Test
  void aDataCenterTooSmallToKeepDataAndParityApartIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new SimulatedDataCenterPlacement(RS_12_4, 3, 20, 1));
    assertEquals("rs:k=12,m=4 needs 4 racks of at most 4 units with data and parity apart, the data center has 3",
        e.getMessage());
  }
}
