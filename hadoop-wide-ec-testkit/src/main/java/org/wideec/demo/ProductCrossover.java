package org.wideec.demo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToLongFunction;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeUpdate;
import org.wideec.archive.UpdateChoice;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.update.ReEncoding;
import org.wideec.update.UpdateScheme;

/**
 * The product layer's arithmetic, kept apart from the cluster so it can be checked on its own: cross-rack bytes per
 * reclaimed GiB, the sweep's points (1, 2, 4, ... changed data units of one stripe, and k) and the crossover, the
 * fewest changed units at which the model's re-encoding of the stripe crosses racks less than the measured delta
 * update (RackCU §III prices both in chunks; here a chunk is a whole unit, since whole blocks change). Shared by the
 * embedded product layer and the multi-process cluster's update phase.
 */
public final class ProductCrossover {
  private static final double GIB = 1024.0 * 1024 * 1024;

  /**
   * One sweep point: {@code changed} data units removed from one stripe in one batch; {@code dropped} when that was
   * all of its data, so the stripe left the manifest and neither an update nor a re-encode had parity to write.
   */
  public record Point(int changed, boolean dropped, long measuredCrossRackBytes, long plannedCrossRackBytes,
      long reEncodeCrossRackBytes) {
    public boolean reEncodeWins() {
      return reEncodeCrossRackBytes < measuredCrossRackBytes;
    }

    public Map<String, Object> toJson() {
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
  public static List<Integer> points(int k) {
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
  public static int crossover(List<Point> sweep, ToLongFunction<Point> update) {
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
  public static double perReclaimedGiB(long crossRackBytes, long reclaimedBytes) {
    if (reclaimedBytes <= 0) {
      throw new IllegalArgumentException("the update freed " + reclaimedBytes + " bytes: nothing to price "
          + crossRackBytes + " cross-rack bytes against");
    }
    return crossRackBytes / (reclaimedBytes / GIB);
  }

  /**
   * The scheme's planned cross-rack bytes of these stripe updates (a dry run's {@code preview}); a stripe the update
   * drops writes no parity and costs nothing.
   */
  public static long plannedBytes(Map<StripeManifest, List<StripeUpdate>> preview, String scheme) {
    long bytes = 0;
    for (List<StripeUpdate> us : preview.values()) {
      for (StripeUpdate u : us) {
        if (!u.dropsStripe()) {
          bytes += UpdateScheme.byName(scheme).plan(u.pattern()).crossRackChunks() * u.before().unitLength();
        }
      }
    }
    return bytes;
  }

  /**
   * The cross-rack bytes of what the parity updater runs for these stripe updates: the scheme's delta plan or, where
   * re-encoding crosses racks less and {@code whenCheaper} allows it, the re-encoding chain ({@link UpdateChoice});
   * a stripe the update drops costs nothing.
   */
  public static long chosenBytes(Map<StripeManifest, List<StripeUpdate>> preview, String scheme,
      EncodePlan.Shape shape, boolean whenCheaper) {
    long bytes = 0;
    for (List<StripeUpdate> us : preview.values()) {
      for (StripeUpdate u : us) {
        if (!u.dropsStripe()) {
          bytes += UpdateChoice.of(u, UpdateScheme.byName(scheme), Set.of(), shape, whenCheaper).crossRackBytes();
        }
      }
    }
    return bytes;
  }

  /** The model's cross-rack bytes of re-encoding every stripe these updates touch ({@link ReEncoding}). */
  public static long reEncodeBytes(Map<StripeManifest, List<StripeUpdate>> preview) {
    long bytes = 0;
    for (List<StripeUpdate> us : preview.values()) {
      for (StripeUpdate u : us) {
        bytes += new ReEncoding().plan(u.pattern()).crossRackChunks() * u.before().unitLength();
      }
    }
    return bytes;
  }

  /**
   * A sweep's JSON: its points, reEncodeWinsFromChangedUnits (against the measured update) and
   * reEncodeBeatsPlanFromChangedUnits (against the plan), null where the update wins at the largest point.
   */
  public static Map<String, Object> toJson(List<Point> sweep) {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("points", sweep.stream().map(Point::toJson).toList());
    int from = crossover(sweep, Point::measuredCrossRackBytes);
    int planFrom = crossover(sweep, Point::plannedCrossRackBytes);
    j.put("reEncodeWinsFromChangedUnits", from < 0 ? null : from);
    j.put("reEncodeBeatsPlanFromChangedUnits", planFrom < 0 ? null : planFrom);
    return j;
  }
}
