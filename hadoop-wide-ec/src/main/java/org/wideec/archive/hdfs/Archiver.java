package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivalPlan;
import org.wideec.archive.ArchivalPlanner;
import org.wideec.archive.ArchiveGrouping;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.PlacementKind;
import org.wideec.archive.StripeLayout;
import org.wideec.archive.StripeLifecycle;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.code.Codes;
import org.wideec.code.UnitRole;
import org.wideec.time.Backoff;

/**
 * Runs the {@link StripeLifecycle} of DESIGN.md §3.2 over one archive, for either {@link StripeLayout}: the stepping
 * ({@link #drive}) is shared, the layout's HDFS work is a {@link LayoutSteps}. For the systematic layout, over one
 * archived file or directory:
 * {@link #archive} up to COMMITTED (every data block keeps its full replication), then {@link #trim} to TRIMMED
 * (each data block down to its planned replica, kept by the NameNode plugin's trimmer).
 *
 * <p>Per stripe: PLANNED → ENCODING (parity directory recorded, emptied) → the encoder writes the parity →
 * PARITY_WRITTEN (parity block ids, generation stamps, CRC32Cs, data CRCs) → every parity re-read through HDFS and
 * matched against its CRC, every data block's generation stamp and length checked against the manifest →
 * VERIFIED → COMMITTED, and each file whose stripes are all committed gets its pointer xattr. The manifest is
 * written (temp-then-rename) before anything else, and every transition is recorded in it before it takes effect,
 * each checked by {@link StripeState#checkTransition}. A data block that changed since planning (append, truncate,
 * delete) makes its stripe STALE: recorded first, then its parity is deleted.
 *
 * <p>Rerunning resumes from the manifest, never from a new plan: PLANNED is encoded; ENCODING and PARITY_WRITTEN
 * roll back to PLANNED (recorded first; the redo empties the parity directory before writing) and are encoded
 * again, since a crash may have left any part of the parity; VERIFIED goes on to COMMITTED; COMMITTED gets its
 * pointers (set again: a crash may have come between the record and the xattr); STALE is left as it is (freeing
 * and re-archiving stale stripes is later work). Asking for another code than the manifest's is refused.
 */
public final class Archiver {
  private static final Logger LOG = LoggerFactory.getLogger(Archiver.class);

  /** Called after every manifest write: the fault injector of the crash tests, a no-op otherwise. */
  @FunctionalInterface
  public interface Hook {
    Hook NONE = (manifest, stripe) -> { };

    /** @param stripe the stripe whose transition was just recorded, null for the initial PLANNED manifest */
    void recorded(StripeManifest manifest, ArchivedStripe stripe) throws IOException;
  }

  /** Told after each stripe is done with (committed, already committed, or stale). */
  @FunctionalInterface
  public interface Listener {
    Listener NONE = (stripe, done, total) -> { };

    void stripeDone(ArchivedStripe stripe, long doneBytes, long totalBytes);
  }

  /**
   * What a run did.
   *
   * @param resumed an existing manifest was resumed rather than a new plan recorded
   * @param rolledBack stripes found in ENCODING or PARITY_WRITTEN and redone
   * @param dataBytesRead data bytes the encoder read
   * @param parityBytesWritten parity bytes the encoder stored
   * @param stale one line per stripe that is STALE, naming what changed
   * @param offPlan one line per parity block HDFS placed off plan
   * @param moved one line per data block copied onto its planned node before an encoder that reads the kept
   *     replicas ran (file, block, from, to)
   * @param encodedOffPlan one line per data block such an encoder had to read off its planned node, because it could
   *     not be moved there (the encode then crossed racks other than the dry run said)
   */
  public record Result(StripeManifest manifest, boolean resumed, int rolledBack, long dataBytesRead,
      long parityBytesWritten, List<String> stale, List<String> offPlan, List<String> moved,
      List<String> encodedOffPlan) {}

  /**
   * What a trim did.
   *
   * @param trimmed stripes recorded TRIMMED by this run
   * @param offPlan one line per data block whose only replica left is not on its planned node (or whose planned
   *     node holds none): its stripe stays COMMITTED
   * @param notTrimmed one line per file or stripe left untrimmed for another reason (refused, timed out)
   * @param stale one line per stripe found STALE before its file was lowered
   * @param moved one line per data block this run copied onto its planned node, with those the trim begun while the
   *     archive's later stripes encoded moved (file, block, from, to)
   */
  public record TrimResult(StripeManifest manifest, int trimmed, List<String> offPlan, List<String> notTrimmed,
      List<String> stale, List<String> moved) {
    public boolean clean() {
      return offPlan.isEmpty() && notTrimmed.isEmpty() && stale.isEmpty();
    }
  }

  /** Told while the trim waits: data blocks settled (on plan or off plan) out of all being trimmed. */
  @FunctionalInterface
  public interface TrimProgress {
    TrimProgress NONE = (settled, total) -> { };

    void at(long settledBlocks, long totalBlocks);
  }

  private final DistributedFileSystem dfs;
  private final ManifestStore store;
  private final StripeEncoder encoder;
  private final Hook hook;
  private final Listener listener;
  private final ArchiveGrouping grouping;
  /** Blocks moved by the trim begun while an archive encoded ({@link TrimAhead}), by archive, until its trim runs. */
  private final java.util.Map<String, List<String>> movedAhead = new java.util.concurrent.ConcurrentHashMap<>();

  public Archiver(DistributedFileSystem dfs, ManifestStore store, StripeEncoder encoder, Hook hook, Listener listener) {
    this(dfs, store, encoder, hook, listener, null);
  }

  /** @param grouping how a new plan groups the blocks into stripes; null: {@code wide-ec.archive.grouping} */
  public Archiver(DistributedFileSystem dfs, ManifestStore store, StripeEncoder encoder, Hook hook, Listener listener,
      ArchiveGrouping grouping) {
    this.grouping = grouping;
    this.dfs = dfs;
    this.store = store;
    this.encoder = encoder;
    this.hook = hook;
    this.listener = listener;
  }

  /** Archives {@code path} with the code, or resumes its manifest (the code must then be the recorded one). */
  public Result archive(Path path, String codeSpec, PlacementKind placement) throws IOException {
    return archive(path, codeSpec, placement, false);
  }

  /**
   * As {@link #archive(Path, String, PlacementKind)}; with {@code trimAhead}, for a caller that trims next, each
   * file's trim begins as soon as its stripes are all committed ({@link TrimAhead}), and has ended on return.
   */
  public Result archive(Path path, String codeSpec, PlacementKind placement, boolean trimAhead) throws IOException {
    try (java.io.Closeable held = store.lock(store.inodeOf(path));
        BlockMover mover = new BlockMover(dfs)) { // made on the first move: only an encoder reading kept replicas moves
      return archiveHeld(path, codeSpec, placement, mover, trimAhead);
    }
  }

  private Result archiveHeld(Path path, String codeSpec, PlacementKind placement, BlockMover mover,
      boolean trimAhead) throws IOException {
    long archiveInode = store.inodeOf(path);
    String spec = Codes.canonical(codeSpec);
    StripeManifest found = store.find(archiveInode);
    boolean resumed = found != null;
    ManifestRecorder rec;
    if (resumed) {
      Path at = store.layout().manifest(archiveInode);
      StripeLifecycle.checkResumable(found, spec, path.toString(), at.toString());
      LOG.info("resuming {} from {}", path, at);
      rec = new ManifestRecorder(store, archiveInode, found, hook);
    } else {
      ArchivalPlan plan = ArchivalPlanner.plan(new ArchivalSource(dfs, grouping).request(path, spec, placement));
      rec = ManifestRecorder.planned(store, archiveInode,
          plan.toManifest(id -> store.layout().parityDir(archiveInode, id).toString()), hook);
    }
    PlanMoves moves = new PlanMoves(dfs, mover);
    SystematicSteps steps = new SystematicSteps(dfs, rec, encoder, moves, path);
    Run run;
    if (trimAhead) {
      List<String> moved = java.util.Collections.synchronizedList(new ArrayList<>());
      try (TrimAhead ahead = new TrimAhead(new StripeTrim(dfs, rec, moves, (id, why) -> markStale(rec, steps, id, why)),
          path, steps::paths, moved)) {
        steps.whenFilesTakeEffect(ahead::tookEffect);
        run = drive(dfs, rec, steps, listener);
      } finally {
        movedAhead.put(path.toString(), moved);
      }
    } else {
      run = drive(dfs, rec, steps, listener);
    }
    return new Result(rec.manifest(), resumed, run.rolledBack, run.bytesRead, run.bytesWritten, run.stale,
        run.offPlan, steps.moved(), steps.encodedOffPlan());
  }

  /** COMMITTED → TRIMMED for the archive at {@code path}: see {@link StripeTrim}. */
  public TrimResult trim(Path path, TrimProgress progress) throws IOException {
    try (java.io.Closeable held = store.lock(store.inodeOf(path));
        BlockMover mover = new BlockMover(dfs)) { // its NameNode proxy and block keys are made on the first move
      long archiveInode = store.inodeOf(path);
      StripeManifest found = store.find(archiveInode);
      if (found == null) {
        throw new IOException(path + " has no manifest at " + store.layout().manifest(archiveInode)
            + "; archive it first");
      }
      ManifestRecorder rec = new ManifestRecorder(store, archiveInode, found, hook);
      PlanMoves moves = new PlanMoves(dfs, mover);
      SystematicSteps steps = new SystematicSteps(dfs, rec, encoder, moves, path);
      TrimResult t = new StripeTrim(dfs, rec, moves, (id, why) -> markStale(rec, steps, id, why)).trim(path, progress);
      List<String> ahead = movedAhead.remove(path.toString());
      List<String> moved = new ArrayList<>(ahead == null ? List.of() : ahead);
      moved.addAll(t.moved());
      return new TrimResult(t.manifest(), t.trimmed(), t.offPlan(), t.notTrimmed(), t.stale(), moved);
    }
  }

  /** What one pass over an archive's stripes did (shared by both layouts' results). */
  static final class Run {
    int rolledBack;
    long bytesRead;
    long bytesWritten;
    final List<String> stale = new ArrayList<>();
    final List<String> offPlan = new ArrayList<>();

    /** Adds what one stripe's run did. */
    void add(Run r) {
      rolledBack += r.rolledBack;
      bytesRead += r.bytesRead;
      bytesWritten += r.bytesWritten;
      stale.addAll(r.stale);
      offPlan.addAll(r.offPlan);
    }
  }

  /**
   * Steps every stripe of the recorded manifest as far as the {@link StripeLifecycle} allows, then lets the layout
   * take effect. A stripe found STALE is left as it is; a change found on the way makes its stripe (or, where the
   * layout says, every stripe) STALE, recorded before its units are deleted. Stripes are independent (each records
   * its own transitions, one manifest write at a time), so as many run at once as the encoder allows ({@link
   * StripeEncoder#concurrentStripes}; the non-systematic layout one at a time, as a change there stales every
   * stripe). A stripe that fails leaves those not yet started as recorded, as a failure one stripe at a time does;
   * the ones running finish, and the run then fails with the first failure in stripe order.
   */
  static Run drive(DistributedFileSystem dfs, ManifestRecorder rec, LayoutSteps steps, Listener listener)
      throws IOException {
    List<ArchivedStripe> stripes = rec.manifest().stripes();
    Progress progress = new Progress(listener, stripes.stream().mapToLong(Archiver::dataBytes).sum());
    int concurrent = steps.layout() == StripeLayout.SYSTEMATIC ? steps.encoder().concurrentStripes() : 1;
    Run run = new Run();
    if (concurrent <= 1 || stripes.size() <= 1) {
      for (ArchivedStripe planned : stripes) {
        progress.done(stepOne(dfs, rec, steps, planned, run));
      }
    } else {
      run.add(ConcurrentStripes.step(stripes, Math.min(concurrent, stripes.size()), (planned, mine) ->
          progress.done(stepOne(dfs, rec, steps, planned, mine))));
    }
    try {
      steps.finish();
    } catch (StaleStripeException e) {
      run.stale.addAll(markStale(rec, steps, e.stripeId(), e));
    }
    return run;
  }

  /** Tells the listener of each stripe done with, with the data bytes done so far. */
  private static final class Progress {
    private final Listener listener;
    private final long total;
    private long done;

    Progress(Listener listener, long total) {
      this.listener = listener;
      this.total = total;
    }

    synchronized void done(ArchivedStripe s) {
      done += dataBytes(s);
      listener.stripeDone(s, done, total);
    }
  }

  /** One stripe as far as it goes, as {@link #drive} describes; the stripe as recorded after. */
  private static ArchivedStripe stepOne(DistributedFileSystem dfs, ManifestRecorder rec, LayoutSteps steps,
      ArchivedStripe planned, Run run) throws IOException {
    ArchivedStripe s = rec.stripe(planned.stripeId()); // a change to the file may have made it STALE meanwhile
    if (planned.state() == StripeState.STALE) {
      run.stale.add("stripe " + s.stripeId() + " is STALE (recorded earlier)");
    } else if (s.state() != StripeState.STALE) {
      try {
        s = step(dfs, rec, steps, s, run);
      } catch (StaleStripeException e) {
        run.stale.addAll(markStale(rec, steps, s.stripeId(), e));
        s = rec.stripe(s.stripeId());
      }
    }
    return s;
  }

  /** One stripe from its recorded state to COMMITTED and its share of taking effect. */
  private static ArchivedStripe step(DistributedFileSystem dfs, ManifestRecorder rec, LayoutSteps steps, ArchivedStripe found, Run run)
      throws IOException {
    ArchivedStripe s = found;
    if (StripeLifecycle.resume(s.state()) == StripeLifecycle.Step.ROLL_BACK) {
      s = rec.record(s.rolledBack());
      run.rolledBack++;
    }
    if (StripeLifecycle.next(s.state()) == StripeLifecycle.Step.ENCODE) {
      steps.checkUnchanged(s); // nothing is encoded from data that changed since it was planned
      steps.prepareEncode(s);
      s = encode(dfs, rec, steps, s, run);
    }
    if (StripeLifecycle.next(s.state()) == StripeLifecycle.Step.VERIFY) {
      steps.verifyUnits(s);
      if (!steps.unitsOnlyCopy()) {
        steps.checkUnchanged(s); // the units still encode the data as it is now
      }
      s = rec.record(s.withState(StripeState.VERIFIED));
    }
    if (StripeLifecycle.next(s.state()) == StripeLifecycle.Step.COMMIT) {
      s = rec.record(s.withState(StripeState.COMMITTED));
    }
    if (StripeLifecycle.next(s.state()) == StripeLifecycle.Step.TAKE_EFFECT) {
      steps.afterCommit(s);
    }
    return s;
  }

  /** PLANNED → ENCODING → (the encoder writes into an emptied unit directory) → PARITY_WRITTEN. */
  private static ArchivedStripe encode(DistributedFileSystem dfs, ManifestRecorder rec, LayoutSteps steps,
      ArchivedStripe planned, Run run) throws IOException {
    ArchivedStripe s = rec.record(planned.withState(StripeState.ENCODING));
    Path dir = new Path(s.parityFilePath());
    String what = steps.layout().unitDirectory() + " " + dir;
    // Leftovers of an encoding rolled back by an earlier run: the redo starts from an empty directory.
    rec.checkHeld("emptying the " + what);
    if (dfs.exists(dir) && !dfs.delete(dir, true)) {
      throw new IOException("stripe " + s.stripeId() + ": cannot empty its " + what);
    }
    StripeEncoder.Encoded e = steps.encoder().encode(s);
    run.bytesRead += e.bytesRead();
    run.bytesWritten += e.bytesWritten();
    run.offPlan.addAll(e.offPlan());
    return rec.record(e.written(s));
  }

  /**
   * Records STALE for the changed stripe (or every stripe, where the layout says so), then deletes the units the
   * {@link StripeLifecycle} lets go. Refused where the units are the only copy of the bytes.
   *
   * @return one line per stripe recorded STALE
   */
  static List<String> markStale(ManifestRecorder rec, LayoutSteps steps, long stripeId, StaleStripeException why)
      throws IOException {
    StripeLayout layout = steps.layout();
    if (steps.unitsOnlyCopy()) {
      String name = rec.manifest().archivedPath();
      throw new IOException(name + " is sealed: its codewords are the only copy of its bytes and are kept ("
          + why.getMessage() + "); run wide-ec fsck " + name, why);
    }
    List<ArchivedStripe> hit = layout.changeStalesEveryStripe()
        ? rec.manifest().stripes().stream().filter(s -> s.state() != StripeState.STALE).toList()
        : List.of(rec.stripe(stripeId));
    List<String> lines = new ArrayList<>();
    List<ArchivedStripe> unitsGo = new ArrayList<>();
    for (ArchivedStripe s : hit) {
      boolean go = StripeLifecycle.unitsMayGo(layout, s.state(), false);
      LOG.warn("{}; marking stripe {} STALE and {}", why.getMessage(), s.stripeId(), go ? "deleting its "
          + layout.units() : "keeping its " + layout.units() + " (its other blocks may already be at one replica)");
      ArchivedStripe stale = rec.record(s.withState(StripeState.STALE));
      lines.add("stripe " + s.stripeId() + " is STALE" + (layout.changeStalesEveryStripe() ? ": " + why.getMessage()
          : ""));
      if (go) {
        unitsGo.add(stale);
      }
    }
    steps.deleteUnits(unitsGo);
    return lines;
  }

  static long dataBytes(ArchivedStripe s) {
    return s.members().stream().filter(m -> m.role() == UnitRole.DATA && !m.padding())
        .mapToLong(StripeMember::length).sum();
  }
}
