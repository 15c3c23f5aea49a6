package org.wideec.update;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.placement.PlacementPlan;

/**
 * How much RackCU saves depends on how many units of a stripe each rack holds (RackCU §V-B, Experiment A.3: the
 * traffic of RackCU and CAU grows with the racks, the baseline's does not). The seed's simulation puts RS(12,4) on 10
 * racks of 20 nodes with data and parity racks apart but does not say how the 16 chunks share the 10 racks; these are
 * the model's averages over the five synthetic volumes (first 1,000 updates, seed 1) on the testbed layout and on the
 * 10-rack layouts that keep data and parity apart with at most m units per rack, pinned so docs/updates.md can quote
 * them.
 */
class SeedLayoutSensitivityTest {
  private static final LinearCode RS_12_4 = Codes.fromSpec("rs:k=12,m=4");

  /** {baseline / RackCU, CAU / RackCU}, each the mean over the volumes of the per-volume ratio. */
  private static double[] meanRatios(int[] rackOf) {
    List<UpdateScheme> schemes = new ArrayList<>();
    for (String s : List.of("baseline", "cau", "rackcu")) {
      schemes.add(UpdateScheme.byName(s));
    }
    UpdateTraceReplayer r = new UpdateTraceReplayer(new PlacementPlan("layout", RS_12_4, rackOf), 4096, schemes);
    double baseline = 0;
    double cau = 0;
    List<SyntheticVolume> volumes = SyntheticVolume.figure6Range();
    for (SyntheticVolume v : volumes) {
      Map<String, UpdateTraffic> t = r.replay(v.generate(1000, 1));
      double rackcu = t.get("rackcu").crossRackChunks();
      baseline += t.get("baseline").crossRackChunks() / rackcu;
      cau += t.get("cau").crossRackChunks() / rackcu;
    }
    return new double[] {baseline / volumes.size(), cau / volumes.size()};
  }

  private static void assertMeanRatios(double baselineOverRackcu, double cauOverRackcu, int... rackOf) {
    double[] r = meanRatios(rackOf);
    assertEquals(baselineOverRackcu, r[0], 0.005, "baseline / RackCU");
    assertEquals(cauOverRackcu, r[1], 0.005, "CAU / RackCU");
  }

  @Test
  void theTestbedLayoutEightRacksOfTwo() {
    assertMeanRatios(2.64, 1.32, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
  }

  @Test
  void tenRacksWithTwoParityRacksOfTwoSaveAsTheTestbedDoes() {
    assertMeanRatios(2.64, 1.32, 0, 0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 7, 8, 8, 9, 9);
  }

  @Test
  void tenRacksWithOneParityPerRackGainMoreOnCauAndLessOnTheBaseline() {
    assertMeanRatios(2.37, 1.46, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 7, 8, 9);
  }

  /**
   * The seed's own simulation setting (§V-B: 10 racks of 20 nodes, a drawn layout per stripe with data and parity
   * racks apart, its figures the mean of ten runs) meets both of its average reductions, 58.9 % below the baseline
   * (2.43x) and 29.8 % below CAU (1.42x), whether averaged as the seed states them (mean reduction) or as the bench
   * does (mean ratio). Pinned so docs/updates.md can quote them.
   */
  @Test
  void theSeedsSimulatedDataCenterMeetsBothAverageReductionsOverTenRuns() {
    SeedSimulation.Result r = SeedSimulation.run(SyntheticVolume.figure6Range(), 1000, 1, 10);
    System.out.printf("seed simulation, ten runs: reduction vs baseline %.4f, vs CAU %.4f; baseline / RackCU %.4f,"
        + " CAU / RackCU %.4f; chunks %s%n", r.reductionOverBaseline(), r.reductionOverCau(), r.baselineOverRackcu(),
        r.cauOverRackcu(), r.crossRackChunks());
    assertEquals(0.6177, r.reductionOverBaseline(), 0.0005, "1 - RackCU / baseline");
    assertEquals(0.3264, r.reductionOverCau(), 0.0005, "1 - RackCU / CAU");
    assertEquals(2.698, r.baselineOverRackcu(), 0.005, "baseline / RackCU");
    assertEquals(1.496, r.cauOverRackcu(), 0.005, "CAU / RackCU");
    assertTrue(r.reductionOverBaseline() >= 0.589 && r.reductionOverCau() >= 0.298,
        "the seed's average reductions, 58.9 % and 29.8 %");
    assertTrue(r.baselineOverRackcu() >= 2.4 && r.cauOverRackcu() >= 1.4, "the issue's targets, 2.4x and 1.4x");
  }

  @Test
  void oneUnitPerRackMakesCauTheBaseline() {
    double[] r = meanRatios(new int[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
    assertEquals(2.14, r[0], 0.005);
    assertEquals(r[0], r[1], 1e-9);
  }
}
