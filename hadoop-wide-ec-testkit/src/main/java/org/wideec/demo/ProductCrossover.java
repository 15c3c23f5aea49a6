package org.wideec.demo;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;
import org.apache.hadoop.fs.Path;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeUpdate;
import org.wideec.archive.UpdateChoice;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.update.ReEncoding;
import org.wideec.update.UpdateChooser;
import org.wideec.update.UpdateScheme;

/**
 * The product layer's arithmetic, kept apart from the cluster so it can be checked on its own: cross-rack bytes per
 * reclaimed GiB, the sweep's points (1, 2, 4, ... changed data units of one stripe, and k) and the crossover, the
 * fewest changed units at which re-encoding the stripe crosses racks less than the delta update (RackCU §III prices
 * the delta in chunks; here a chunk is a whole unit, since whole blocks change). Re-encoding is priced as the updater
 * prices and runs it ({@link UpdateChoice}, {@link ReEncoding#chain}). Shared by the embedded product layer and the
 * multi-process cluster's update phase.
 */
public final class ProductCrossover {
  private static final double GIB = 1024.0 * 1024 * 1024;

  /**
   * One sweep point: {@code changed} data units removed from one stripe in one batch; {@code dropped} when that was
   * all of its data, so the stripe left the manifest and neither an update nor a re-encode had parity to write.
   * {@code measuredCrossRackBytes} is the scheme's delta update as run with re-encoding off, beside its plan and the
   * price of re-encoding instead (both as the updater prices them, {@link UpdateChoice}); {@code whenCheaper} is what
   * the updater's default run does with the same batch.
   */
  public record Point(int changed, boolean dropped, long measuredCrossRackBytes, long plannedCrossRackBytes,
      long reEncodeCrossRackBytes, WhenCheaper whenCheaper) {
    /** A point whose default run is the delta update itself (no stripe of it would be re-encoded). */
    public Point(int changed, boolean dropped, long measuredCrossRackBytes, long plannedCrossRackBytes,
        long reEncodeCrossRackBytes) {
      this(changed, dropped, measuredCrossRackBytes, plannedCrossRackBytes, reEncodeCrossRackBytes,
          new WhenCheaper(false, plannedCrossRackBytes, measuredCrossRackBytes, false));
    }

    /**
     * The updater's decision on this point's plans ({@link UpdateChooser#prefersReEncoding}): re-encoding crosses
     * racks strictly less than the delta plan. Against the plan, not the measurement: the run adds a few hundred
     * bytes of reports no plan prices, which would turn a tie into a win the updater never takes.
     */
    public boolean reEncodeWins() {
      return !dropped && UpdateChooser.prefersReEncoding(reEncodeCrossRackBytes, plannedCrossRackBytes);
    }

    public Map<String, Object> toJson() {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("changedUnits", changed);
      j.put("stripeDropped", dropped);
      j.put("deltaMeasuredCrossRackBytes", measuredCrossRackBytes);
      j.put("deltaPlannedCrossRackBytes", plannedCrossRackBytes);
      j.put("reEncodeCrossRackBytes", reEncodeCrossRackBytes);
      j.put("reEncodeWins", reEncodeWins());
      j.put("whenCheaper", whenCheaper.toJson());
      return j;
    }
  }

  /**
   * What the updater's default run ({@code wide-ec.update.reencode.when-cheaper} true) does with a sweep point's
   * batch: whether it re-encodes any stripe ({@link UpdateChoice}), the cross-rack bytes of its choice, and those
   * measured. Where it re-encodes, it runs on an archive of its own ({@code ownArchive}); elsewhere it is the delta
   * update, and the delta run's measurement is its own.
   */
  public record WhenCheaper(boolean reEncodes, long chosenCrossRackBytes, long measuredCrossRackBytes,
      boolean ownArchive) {
    public Map<String, Object> toJson() {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("reEncodes", reEncodes);
      j.put("chosenCrossRackBytes", chosenCrossRackBytes);
      j.put("measuredCrossRackBytes", measuredCrossRackBytes);
      j.put("ranOnItsOwnArchive", ownArchive);
      return j;
    }
  }

  /**
   * A sweep point's archive: a fresh archive of one full stripe of one-block files, a batch of them to remove; the
   * stripe updates removing the batch would make (the dry run's, before it runs), and the removal of the batch in one
   * {@code rm}, re-encoding when cheaper or never, which returns the cross-rack bytes measured.
   */
  public record Trial(Preview preview, Removal removal) {
    @FunctionalInterface
    public interface Preview {
      Map<StripeManifest, List<StripeUpdate>> get() throws Exception;
    }

    @FunctionalInterface
    public interface Removal {
      long remove(boolean reEncodeWhenCheaper) throws Exception;
    }
  }

  /** Makes a sweep point's archives; {@code run} names which run an archive is for ("delta", "when-cheaper"). */
  @FunctionalInterface
  public interface Trials {
    Trial fresh(int changed, String run) throws Exception;
  }

  /**
   * Measures one sweep point, the same way on every bench: the scheme's delta update with re-encoding off, on a fresh
   * archive, beside its plan and the price of re-encoding instead, both as the updater prices them; then the default
   * run. Where the updater would
   * re-encode a stripe of that archive, the default run is measured on an archive of its own, its choice priced on
   * that archive; elsewhere it is the delta update just measured.
   */
  public static Point measure(int k, int changed, String scheme, EncodePlan.Shape shape, Trials trials)
      throws Exception {
    Trial delta = trials.fresh(changed, "delta");
    Map<StripeManifest, List<StripeUpdate>> preview = delta.preview().get();
    List<UpdateChoice> choices = choices(preview, scheme, shape, true);
    long planned = choices.stream().mapToLong(UpdateChoice::deltaCrossRackBytes).sum();
    long reEncode = choices.stream().mapToLong(UpdateChoice::reEncodeCrossRackBytes).sum();
    long measured = delta.removal().remove(false);
    WhenCheaper dflt;
    if (choices.stream().noneMatch(UpdateChoice::reEncodes)) {
      dflt = new WhenCheaper(false, bytes(choices), measured, false);
    } else {
      Trial own = trials.fresh(changed, "when-cheaper");
      List<UpdateChoice> ownChoices = choices(own.preview().get(), scheme, shape, true);
      dflt = new WhenCheaper(ownChoices.stream().anyMatch(UpdateChoice::reEncodes), bytes(ownChoices),
          own.removal().remove(true), true);
    }
    return new Point(changed, changed == k, measured, planned, reEncode, dflt);
  }

  private ProductCrossover() {}

  /** A file's inode number, as the NameNode has it. */
  @FunctionalInterface
  public interface InodeOf {
    long of(Path file) throws IOException;
  }

  /**
   * A sweep point's batch: the files of a one-stripe archive of one-block files ({@code all}, the dry run removing
   * every one of them) that hold its first {@code c} data units rack by rack: the units in the planned rack of unit 0
   * first, then those in the rack of the lowest unit left, and so on. Which block the archiver gives which unit, and
   * so which units share a rack, follows from where HDFS happened to put the blocks; taking the units rack by rack
   * makes every archive of a point (the delta run's, the default run's) and every run remove the same shape.
   *
   * @throws IllegalStateException when the files make more than one stripe, or a unit is not one file's only block
   */
  public static List<Path> batch(Map<StripeManifest, List<StripeUpdate>> all, List<Path> files, InodeOf inodeOf,
      int c) throws IOException {
    List<StripeUpdate> updates = all.values().stream().flatMap(List::stream).toList();
    if (updates.size() != 1) {
      throw new IllegalStateException("a sweep archive is one stripe, " + files + " make " + updates.size());
    }
    ArchivedStripe s = updates.get(0).before();
    Map<String, List<Integer>> byRack = new LinkedHashMap<>();
    for (int u = 0; u < s.code().k(); u++) {
      byRack.computeIfAbsent(s.member(u).plannedRack(), r -> new ArrayList<>()).add(u);
    }
    Map<Long, Path> byInode = new LinkedHashMap<>();
    for (Path f : files) {
      byInode.put(inodeOf.of(f), f);
    }
    List<Path> out = new ArrayList<>();
    for (int u : byRack.values().stream().flatMap(List::stream).limit(c).toList()) {
      Path f = s.member(u).padding() ? null : byInode.get(s.member(u).inodeId());
      if (f == null || out.contains(f)) {
        throw new IllegalStateException("stripe " + s.stripeId() + " unit " + u + " is not one file's only block");
      }
      out.add(f);
    }
    return out;
  }

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
    return fromChangedUnits(sweep, p -> p.reEncodeCrossRackBytes() < update.applyAsLong(p));
  }

  /**
   * The fewest changed units from which {@code reEncoded} holds at every larger point too, or -1 when it does not
   * hold at the largest point; dropped stripes are skipped.
   */
  static int fromChangedUnits(List<Point> sweep, Predicate<Point> reEncoded) {
    int from = -1;
    for (Point p : sweep) {
      if (p.dropped()) {
        continue;
      }
      if (reEncoded.test(p)) {
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
    return bytes(choices(preview, scheme, shape, whenCheaper));
  }

  /** The updater's choice for each stripe these updates keep (a dropped stripe writes nothing, so has none). */
  public static List<UpdateChoice> choices(Map<StripeManifest, List<StripeUpdate>> preview, String scheme,
      EncodePlan.Shape shape, boolean whenCheaper) {
    List<UpdateChoice> out = new ArrayList<>();
    for (List<StripeUpdate> us : preview.values()) {
      for (StripeUpdate u : us) {
        if (!u.dropsStripe()) {
          out.add(UpdateChoice.of(u, UpdateScheme.byName(scheme), Set.of(), shape, whenCheaper));
        }
      }
    }
    return out;
  }

  private static long bytes(List<UpdateChoice> choices) {
    return choices.stream().mapToLong(UpdateChoice::crossRackBytes).sum();
  }

  /**
   * Whether a measured figure is held to its plan: every planned byte crossed racks, and besides them less than one
   * unit, the few bytes of the roles' reports, digests and the manifest that no plan prices.
   */
  public static boolean heldTo(long planned, long measured, long unitBytes) {
    return measured >= planned && measured - planned < unitBytes;
  }

  /**
   * A sweep's JSON: its points; reEncodeWinsFromChangedUnits (re-encoding's price against the delta update
   * measured with re-encoding off) and reEncodeBeatsPlanFromChangedUnits (against the delta plan), null where the
   * delta update wins at the largest point; whenCheaperReEncodesFromChangedUnits, the fewest changed units from which
   * the default run re-encodes at every larger point too, null where it runs the delta plan at the largest point.
   */
  public static Map<String, Object> toJson(List<Point> sweep) {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("points", sweep.stream().map(Point::toJson).toList());
    int from = crossover(sweep, Point::measuredCrossRackBytes);
    int planFrom = crossover(sweep, Point::plannedCrossRackBytes);
    int defaultFrom = fromChangedUnits(sweep, p -> p.whenCheaper().reEncodes());
    j.put("reEncodeWinsFromChangedUnits", from < 0 ? null : from);
    j.put("reEncodeBeatsPlanFromChangedUnits", planFrom < 0 ? null : planFrom);
    j.put("whenCheaperReEncodesFromChangedUnits", defaultFrom < 0 ? null : defaultFrom);
    return j;
  }
}
