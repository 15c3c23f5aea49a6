package org.wideec.demo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * The product layer's arithmetic, kept apart from the cluster so it can be checked on its own: cross-rack bytes per
 * reclaimed GiB, the sweep's points (1, 2, 4, ... changed data units of one stripe, and k) and the crossover, the
 * fewest changed units at which the model's re-encoding of the stripe crosses racks less than the measured delta
 * update (RackCU §III prices both in chunks; here a chunk is a whole unit, since whole blocks change).
 */
final class ProductCrossover {
  private static final double GIB = 1024.0 * 1024 * 1024;

  /**
   * One sweep point: {@code changed} data units removed from one stripe in one batch; {@code dropped} when that was
   * all of its data, so the stripe left the manifest and neither an update nor a re-encode had parity to write.
   */
  record Point(int changed, boolean dropped, long measuredCrossRackBytes, long plannedCrossRackBytes,
      long reEncodeCrossRackBytes) {
    boolean reEncodeWins() {
      return reEncodeCrossRackBytes < measuredCrossRackBytes;
    }

    Map<String, Object> toJson() {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("changedUnits", changed);
      j.put("stripeDropped", dropped);
      j.put("measuredCrossRackBytes", measuredCrossRackBytes);
      j.put("plannedCrossRackBytes", plannedCrossRackBytes);
      j.put("reEncodeCrossRackBytes", reEncodeCrossRackBytes);
      j.put("reEncodeWins", reEncodeWins());
      return j;
    }
  }

  private ProductCrossover() {}

  /** 1, 2, 4, ... below k, then k: the batch sizes the sweep measures. */
  static List<Integer> points(int k) {
    if (k < 1) {
      throw new IllegalArgumentException("a stripe has at least one data unit, got k = " + k);
    }
    List<Integer> out = new ArrayList<>();
    for (int c = 1; c < k; c *= 2) {
      out.add(c);
    }
    out.add(k);
    return out;
  }

  /**
   * The fewest changed units from which re-encoding wins against the update's bytes (measured or planned) at every
   * larger point too, or -1 when the delta update wins (or ties) at the largest point; a tie goes to the delta update,
   * as the chooser breaks it. Dropped stripes are skipped: with no data left there is nothing to choose.
   */
  static int crossover(List<Point> sweep, ToLongFunction<Point> update) {
    int from = -1;
    for (Point p : sweep) {
      if (p.dropped()) {
        continue;
      }
      if (p.reEncodeCrossRackBytes() < update.applyAsLong(p)) {
        if (from < 0) {
          from = p.changed();
        }
      } else {
        from = -1;
      }
    }
    return from;
  }

  /** Cross-rack bytes spent per GiB of storage the update freed; refuses a run that freed nothing. */
  static double perReclaimedGiB(long crossRackBytes, long reclaimedBytes) {
    if (reclaimedBytes <= 0) {
      throw new IllegalArgumentException("the update freed " + reclaimedBytes + " bytes: nothing to price "
          + crossRackBytes + " cross-rack bytes against");
    }
    return crossRackBytes / (reclaimedBytes / GIB);
  }
}
