package org.wideec.update;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A synthetic block-update trace shaped like the MSR Cambridge volumes the RackCU seed replays (§V-A): a mean
 * update size per volume (its Figure 6 spans 4.3-52.0 KB over the 36 traces), offsets skewed by a Zipf law over
 * fixed-size regions (a few hot regions take most updates), and hyper-exponential inter-arrivals (bursts between
 * quiet spells). The seed publishes only the range of the means; the volumes between its ends, the length law, the
 * skew and the arrivals are our assumptions (docs/updates.md lists which is which, with the format,
 * {@link UpdateTraceFormat}). Seeded: the same volume and seed give the same trace.
 *
 * @param meanUpdateBytes mean length of an update as generated: lengths are exponential, rounded up to whole
 *     512-byte sectors, the exponential's mean chosen so that the rounded lengths average this
 * @param volumeBytes size of the volume's address space
 * @param regionBytes size of the regions the Zipf law ranks
 * @param zipfExponent Zipf exponent s (region of rank r is chosen with weight 1 / r^s)
 * @param burstProbability probability that an inter-arrival is drawn from the burst rate
 * @param burstMeanMicros mean inter-arrival inside a burst
 * @param quietMeanMicros mean inter-arrival between bursts
 */
public record SyntheticVolume(String name, int meanUpdateBytes, long volumeBytes, int regionBytes, double zipfExponent,
    double burstProbability, double burstMeanMicros, double quietMeanMicros) {
  public static final int SECTOR = 512;
  /** Longest update generated: 1 MiB, as block-layer requests are split at that size. */
  public static final int MAX_UPDATE = 1 << 20;

  public SyntheticVolume {
    if (meanUpdateBytes < SECTOR || volumeBytes < regionBytes || regionBytes < MAX_UPDATE || zipfExponent <= 0
        || burstProbability < 0 || burstProbability > 1 || burstMeanMicros <= 0 || quietMeanMicros <= 0) {
      throw new IllegalArgumentException("volume " + name + ": need mean >= 512 B, regions of at least 1 MiB within"
          + " the volume, a positive Zipf exponent, a burst probability in [0,1] and positive means");
    }
  }

  /** A volume with this mean update size and the defaults (16 GiB, 4 MiB regions, s = 1.0, 90 % 200 us / 20 ms). */
  public static SyntheticVolume withMeanUpdate(String name, int meanUpdateBytes) {
    return new SyntheticVolume(name, meanUpdateBytes, 16L << 30, 4 << 20, 1.0, 0.9, 200, 20_000);
  }

  /**
   * Five volumes spanning the seed's Figure 6: mean update sizes 4.3 KB and 52.0 KB (its smallest and largest, in
   * decimal KB as it writes them) and three between in geometric steps (8, 15 and 28 KB: ours, Figure 6's bars are
   * not given as numbers).
   */
  public static List<SyntheticVolume> figure6Range() {
    return List.of(withMeanUpdate("vol-4.3k", 4_300), withMeanUpdate("vol-8k", 8_000), withMeanUpdate("vol-15k", 15_000),
        withMeanUpdate("vol-28k", 28_000), withMeanUpdate("vol-52k", 52_000));
  }

  /**
   * The mean of the exponential whose lengths, rounded up to whole sectors, average {@link #meanUpdateBytes}: the
   * rounded length is a geometric number of sectors, of mean SECTOR / (1 - e^(-SECTOR / mu)).
   */
  double exponentialMean() {
    // A mean of one sector: every update is one sector (an exponential far below it always rounds up to one).
    return meanUpdateBytes <= SECTOR ? SECTOR / 10.0 : -SECTOR / Math.log(1 - (double) SECTOR / meanUpdateBytes);
  }

  /** The first {@code count} updates of this volume's trace for a seed. */
  public List<TraceUpdate> generate(int count, long seed) {
    Random rnd = new Random(seed ^ name.hashCode());
    int regions = (int) Math.min(Integer.MAX_VALUE, volumeBytes / regionBytes);
    double[] cumulative = zipfCumulative(regions);
    int[] regionOfRank = shuffled(regions, rnd);
    List<TraceUpdate> out = new ArrayList<>(count);
    double time = 0;
    for (int i = 0; i < count; i++) {
      double mean = rnd.nextDouble() < burstProbability ? burstMeanMicros : quietMeanMicros;
      time += -mean * Math.log(1 - rnd.nextDouble());
      int sectors = (int) Math.ceil(-exponentialMean() * Math.log(1 - rnd.nextDouble()) / SECTOR);
      int length = Math.min(MAX_UPDATE, Math.max(1, sectors) * SECTOR);
      int region = regionOfRank[rank(cumulative, rnd.nextDouble())];
      long within = (long) (rnd.nextDouble() * ((regionBytes - length) / SECTOR + 1)) * SECTOR;
      out.add(new TraceUpdate((long) time, (long) region * regionBytes + within, length));
    }
    return out;
  }

  private double[] zipfCumulative(int regions) {
    double[] c = new double[regions];
    double sum = 0;
    for (int r = 0; r < regions; r++) {
      sum += 1 / Math.pow(r + 1, zipfExponent);
      c[r] = sum;
    }
    for (int r = 0; r < regions; r++) {
      c[r] /= sum;
    }
    return c;
  }

  private static int rank(double[] cumulative, double x) {
    int i = java.util.Arrays.binarySearch(cumulative, x);
    return Math.min(cumulative.length - 1, i >= 0 ? i : -i - 1);
  }

  /** Hot regions scattered over the volume rather than at its start. */
  private static int[] shuffled(int n, Random rnd) {
    int[] a = new int[n];
    for (int i = 0; i < n; i++) {
      a[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
    return a;
  }
}
