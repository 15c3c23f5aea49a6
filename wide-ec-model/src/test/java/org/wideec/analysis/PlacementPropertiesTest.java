package org.wideec.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.ErasurePatterns;
import org.wideec.code.LinearCode;
import org.wideec.placement.CombinedLocalityPlanner;
import org.wideec.placement.FlatPlanner;
import org.wideec.placement.GroupPerRackPlanner;
import org.wideec.placement.PlacementException;
import org.wideec.placement.PlacementPlan;
import org.wideec.placement.PlacementPlanner;
import org.wideec.placement.TopologyLocalityPlanner;
import org.wideec.topology.Topology;

/** Random k, f, gamma and topologies: every plan survives a rack and any f nodes; CL never costs more. */
class PlacementPropertiesTest {

  /** Any single rack, and (sampled) any f units, lost together are decodable. */
  static void assertTolerant(PlacementPlan p, int f, Random r) {
    ErasurePatterns patterns = ErasurePatterns.of(p.code());
    for (int rack = 0; rack < p.racks(); rack++) {
      assertTrue(patterns.isDecodable(p.units(rack)), p + ": losing rack " + rack);
    }
    assertEquals(2000, patterns.sampleDecodable(f, 2000, r), p + ": some " + f + " lost nodes are fatal");
  }

  @RepeatedTest(12)
  void combinedLocalitySurvivesARackAndFNodesAndNeverCostsMoreThanFlatOrTl(RepetitionInfo info) {
    Random r = new Random(1000 + info.getCurrentRepetition());
    int k = 8 + r.nextInt(56);
    int f = 2 + r.nextInt(3);
    double gamma = 1 + (f + 1.0 + r.nextInt(6)) / k;
    int rMin;
    try {
      rMin = LocalityTradeoff.rMin(k, f, gamma);
    } catch (IllegalArgumentException e) {
      return; // cap too tight for any LRC: covered by the rMin error test
    }
    CombinedLocalityDesign d = CombinedLocalityDesign.derive(k, f, gamma);
    assertTrue(d.redundancy() <= gamma + 1e-12);
    assertTrue(d.r() >= rMin);
    PlacementPlan cl = d.plan();
    assertTrue(cl.maxUnitsPerRack() <= f);
    assertTolerant(cl, f, r);
    PlacementCosts clCost = d.costs();
    PlacementCosts flat = PlacementCosts.of(new FlatPlanner().plan(d.code()));
    PlacementCosts tl = PlacementCosts.of(new TopologyLocalityPlanner().plan(Codes.fromSpec("rs:k=" + k + ",m=" + f)));
    for (int u = 0; u < d.code().n(); u++) {
      assertTrue(clCost.crossRackCost()[u] <= flat.crossRackCost()[u], "unit " + u + " CL vs flat");
    }
    assertTrue(clCost.carc() <= flat.carc() + 1e-12);
    assertTrue(clCost.cdrc() <= tl.cdrc() + 1e-12, "CL " + clCost.cdrc() + " vs TL " + tl.cdrc());
    // The plan fits any topology with enough racks and nodes, and says so when it does not.
    Topology big = Topology.uniform(cl.racks() + r.nextInt(3), f + r.nextInt(2));
    assertEquals(cl.racks(), new CombinedLocalityPlanner().plan(d.code(), big).racks());
    Topology tooFew = Topology.uniform(cl.racks() - 1, f);
    PlacementException e = assertThrows(PlacementException.class, () -> new CombinedLocalityPlanner().plan(d.code(), tooFew));
    assertTrue(e.getMessage().contains("needs " + cl.racks() + " racks"), e.getMessage());
  }

  @RepeatedTest(6)
  void topologyLocalityAndFlatPlansOfRandomCodesAreTolerant(RepetitionInfo info) {
    Random r = new Random(2000 + info.getCurrentRepetition());
    int k = 6 + r.nextInt(30);
    int m = 2 + r.nextInt(4);
    LinearCode rs = Codes.fromSpec("rs:k=" + k + ",m=" + m);
    assertTolerant(new TopologyLocalityPlanner().plan(rs), m, r);
    assertTolerant(new FlatPlanner().plan(rs), m, r);
    LinearCode lrc = Codes.fromSpec("azure-lrc:k=" + k + ",l=" + (1 + r.nextInt(3)) + ",g=" + (1 + r.nextInt(2)));
    assertTolerant(new CombinedLocalityPlanner().plan(lrc), PlacementPlanner.tolerance(lrc), r);
  }

  @Test
  void uniLrcGroupsOnePerRackAreTolerantAndAzureGroupsAreRejected() {
    Random r = new Random(3);
    for (String spec : new String[] {"unilrc:alpha=1,z=4", "unilrc:alpha=2,z=3", "unilrc:alpha=2,z=10"}) {
      LinearCode c = Codes.fromSpec(spec);
      assertTolerant(new GroupPerRackPlanner(1).plan(c), PlacementPlanner.tolerance(c), r);
    }
    PlacementException e = assertThrows(PlacementException.class,
        () -> new GroupPerRackPlanner(1).plan(Codes.fromSpec("azure-lrc:k=12,l=2,g=2")));
    assertTrue(e.getMessage().contains("does not survive the loss of rack"), e.getMessage());
  }

  @Test
  void impossibleParametersGetClearErrors() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LocalityTradeoff.rMin(128, 4, 1.02));
    assertTrue(e.getMessage().contains("fits redundancy 1.02"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> LocalityTradeoff.rMin(128, 4, 0.9));
    PlacementException flat = assertThrows(PlacementException.class,
        () -> new FlatPlanner().plan(Codes.fromSpec("rs:k=10,m=4"), Topology.uniform(8, 3)));
    assertTrue(flat.getMessage().contains("needs 14 racks, the topology has 8"), flat.getMessage());
    PlacementException nodes = assertThrows(PlacementException.class,
        () -> new TopologyLocalityPlanner().plan(Codes.fromSpec("rs:k=10,m=4"), Topology.uniform(4, 2)));
    assertTrue(nodes.getMessage().contains("puts 4 units in one rack"), nodes.getMessage());
  }
}
