package org.wideec.update;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The seed's large-scale simulation (RackCU §V-B), where its average traffic reductions come from: each volume's trace
 * replayed on RS(12,4) in 10 racks of 20 nodes with a drawn layout per stripe
 * ({@link UpdateTraceReplayer#seedSimulation}), repeated over several runs (the seed: ten), and the reductions
 * averaged as the seed states them ("RackCU reduces X% of the cross-rack update traffic on average compared to ...":
 * the mean over traces of 1 - RackCU / other), beside the mean of the per-volume ratios the bench reports elsewhere.
 */
public final class SeedSimulation {
  /**
   * @param reductionOverBaseline mean over volumes and runs of 1 - RackCU / baseline (the seed: 58.9 %)
   * @param reductionOverCau mean of 1 - RackCU / CAU (the seed: 29.8 %)
   * @param baselineOverRackcu mean of baseline / RackCU
   * @param cauOverRackcu mean of CAU / RackCU
   * @param crossRackChunks per scheme, summed over volumes and runs
   */
  public record Result(int runs, double reductionOverBaseline, double reductionOverCau, double baselineOverRackcu,
      double cauOverRackcu, Map<String, Long> crossRackChunks) {
    /** The ratio a mean reduction amounts to: 1 / (1 - reduction), as 58.9 % is 2.43x. */
    public static double asRatio(double reduction) {
      return 1 / (1 - reduction);
    }
  }

  private SeedSimulation() {}

  public static Result run(List<SyntheticVolume> volumes, int updates, long seed, int runs) {
    if (volumes.isEmpty() || runs < 1 || updates < 1) {
      throw new IllegalArgumentException("the simulation needs a volume, a run and an update, got " + volumes.size()
          + ", " + runs + ", " + updates);
    }
    double[] sum = new double[4];
    Map<String, Long> chunks = new LinkedHashMap<>();
    for (int run = 1; run <= runs; run++) {
      UpdateTraceReplayer replayer = UpdateTraceReplayer.seedSimulation(run);
      for (SyntheticVolume v : volumes) {
        Map<String, UpdateTraffic> t = replayer.replay(v.generate(updates, seed));
        t.forEach((scheme, traffic) -> chunks.merge(scheme, traffic.crossRackChunks(), Long::sum));
        double rackcu = t.get("rackcu").crossRackChunks();
        double baseline = t.get("baseline").crossRackChunks();
        double cau = t.get("cau").crossRackChunks();
        sum[0] += 1 - rackcu / baseline;
        sum[1] += 1 - rackcu / cau;
        sum[2] += baseline / rackcu;
        sum[3] += cau / rackcu;
      }
    }
    double n = (double) runs * volumes.size();
    return new Result(runs, sum[0] / n, sum[1] / n, sum[2] / n, sum[3] / n, chunks);
  }
}
