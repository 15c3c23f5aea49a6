package org.wideec.analysis;

/**
 * Mean time to data loss of one stripe from the Markov model of ECWide §3.6 (after Azure [34]): states
 * count failed nodes 0..f, f+1 is data loss; node failures at rate (n - j) lambda; the first failure is
 * repaired at mu = epsilon (N-1) B / (C S), where C is the average cross-rack repair traffic in chunks;
 * multiple failures at mu' = 1/T.
 *
 * <p>Units: S in TiB (2^40 bytes) and B in Gb/s (10^9 bits/s); with these, the model reproduces ECWide's
 * Tables 5 and 6 to within 3% in every cell. Solved by first-passage
 * times of the birth-death chain, which stays accurate at 10^15 years where a dense solve would not.
 *
 * @param nodes N, nodes in the system (ECWide default 400)
 * @param capacityTiB S, capacity of a node (16 TiB)
 * @param repairFraction epsilon, share of each node's bandwidth given to repair (0.1)
 * @param detectMinutes T, minutes to detect and start a multi-node repair (30)
 * @param mttfYears 1/lambda, mean time to failure of a node (4 years)
 * @param bandwidthGbps B, network bandwidth of a node (1 Gb/s)
 */
public record Mttdl(int nodes, double capacityTiB, double repairFraction, double detectMinutes, double mttfYears,
    double bandwidthGbps) {
  static final double YEAR_SECONDS = 365.0 * 24 * 3600;

  public static Mttdl ecwideDefaults() {
    return new Mttdl(400, 16, 0.1, 30, 4, 1);
  }

  public Mttdl {
    if (nodes < 2 || capacityTiB <= 0 || repairFraction <= 0 || detectMinutes <= 0 || mttfYears <= 0 || bandwidthGbps <= 0) {
      throw new IllegalArgumentException("MTTDL parameters must be positive (and N >= 2): N=" + nodes + " S=" + capacityTiB
          + " epsilon=" + repairFraction + " T=" + detectMinutes + " 1/lambda=" + mttfYears + " B=" + bandwidthGbps);
    }
  }

  /**
   * MTTDL in years of a stripe of n units that survives any f failures and repairs one lost unit with C
   * chunks of (cross-rack) traffic on average.
   */
  public double years(int n, int f, double c) {
    if (f < 0 || f >= n || c <= 0) {
      throw new IllegalArgumentException("need 0 <= f < n and C > 0, got n=" + n + " f=" + f + " C=" + c);
    }
    double lambda = 1 / (mttfYears * YEAR_SECONDS);
    double capacityBytes = capacityTiB * Math.pow(2, 40);
    double bandwidthBytes = bandwidthGbps * 1e9 / 8;
    double mu = repairFraction * (nodes - 1) * bandwidthBytes / (c * capacityBytes);
    double muMulti = 1 / (detectMinutes * 60);
    // d[j]: expected time to go from j failed nodes to j+1; d[j] = (1 + mu_j d[j-1]) / lambda_j.
    double total = 0;
    double previous = 0;
    for (int j = 0; j <= f; j++) {
      double fail = (n - j) * lambda;
      double repair = j == 0 ? 0 : (j == 1 ? mu : muMulti);
      double d = (1 + repair * previous) / fail;
      total += d;
      previous = d;
    }
    return total / YEAR_SECONDS;
  }
}
