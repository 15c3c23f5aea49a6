package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.wideec.archive.ArchiveSummary;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.PlacementKind;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeState;

/**
 * The archival of one archive unit (a file, or a directory archived as one manifest), start to end: {@link
 * Archiver#archive} to COMMITTED, then, unless told not to, {@link Archiver#trim} to TRIMMED (each file's trim
 * begun while the later stripes encode, {@link TrimAhead}). The plain {@code wide-ec
 * archive} command and each mapper of the archival MapReduce job run exactly this, so both resume the same way and
 * report the same facts; they differ only in how they show them (lines and JSON, or job counters).
 */
public final class ArchiveOrchestrator {
  /** The encoders {@code --encoder} names. */
  public static final java.util.List<String> ENCODERS = java.util.List.of("classic", "chain");

  /**
   * What one archive unit's run did.
   *
   * @param alreadyDone the manifest found before this run had every stripe in its final state already (TRIMMED, or
   *     COMMITTED or TRIMMED when not trimming): the run changed nothing
   * @param stripesEncoded stripes this run took from PLANNED into ENCODING (a resumed run encodes none it found
   *     VERIFIED or later)
   * @param trimmed the trim's result, null when not trimming
   */
  public record Outcome(Path path, Archiver.Result archived, Archiver.TrimResult trimmed, boolean alreadyDone,
      int stripesEncoded) {

    public StripeManifest manifest() {
      return trimmed != null ? trimmed.manifest() : archived.manifest();
    }

    public ArchiveSummary summary() {
      return ArchiveSummary.of(manifest());
    }

    /** Every stripe ended in the state asked for (TRIMMED, or COMMITTED with no trim) and nothing was left over. */
    public boolean complete() {
      for (ArchivedStripe s : manifest().stripes()) {
        if (!finalState(s.state(), trimmed != null)) {
          return false;
        }
      }
      return archived.stale().isEmpty() && (trimmed == null || trimmed.clean());
    }

    /** Data blocks moved onto their planned nodes, before encoding and while trimming. */
    public int blocksMoved() {
      return archived.moved().size() + (trimmed == null ? 0 : trimmed.moved().size());
    }
  }

  private final DistributedFileSystem dfs;
  private final ManifestStore store;
  private final StripeEncoder encoder;
  private final Archiver.Hook hook;
  private final org.wideec.archive.ArchiveGrouping grouping;

  public ArchiveOrchestrator(DistributedFileSystem dfs, ManifestStore store, StripeEncoder encoder, Archiver.Hook hook) {
    this(dfs, store, encoder, hook, null);
  }

  /** @param grouping how a new plan groups the blocks into stripes; null: {@code wide-ec.archive.grouping} */
  public ArchiveOrchestrator(DistributedFileSystem dfs, ManifestStore store, StripeEncoder encoder, Archiver.Hook hook,
      org.wideec.archive.ArchiveGrouping grouping) {
    this.grouping = grouping;
    this.dfs = dfs;
    this.store = store;
    this.encoder = encoder;
    this.hook = hook;
  }

  /** The encoder {@code name} ({@link #ENCODERS}); close it (if Closeable) when done. */
  public static StripeEncoder encoder(DistributedFileSystem dfs, String name) throws IOException {
    return switch (name) {
      case "classic" -> ClientClassicEncoder.from(dfs);
      case "chain" -> ChainEncoder.from(dfs);
      default -> throw new IllegalArgumentException("--encoder must be one of " + String.join(", ", ENCODERS)
          + ", got '" + name + "'");
    };
  }

  /** The state a stripe must reach: TRIMMED, or with {@code trim} false COMMITTED (TRIMMED is past it). */
  public static boolean finalState(StripeState s, boolean trim) {
    return s == StripeState.TRIMMED || (!trim && s == StripeState.COMMITTED);
  }

  /**
   * Archives (or resumes) {@code path}, then trims it when {@code trim}; {@code listener} hears of each stripe done,
   * {@code trimProgress} of the blocks settled while the NameNode trims.
   */
  public Outcome run(Path path, String codeSpec, PlacementKind placement, boolean trim, Archiver.Listener listener,
      Archiver.TrimProgress trimProgress) throws IOException {
    StripeManifest before = store.find(store.inodeOf(path));
    boolean alreadyDone = before != null && !before.stripes().isEmpty()
        && before.stripes().stream().allMatch(s -> finalState(s.state(), trim));
    AtomicInteger encoded = new AtomicInteger();
    Archiver.Hook counting = (manifest, stripe) -> {
      if (stripe != null && stripe.state() == StripeState.ENCODING) {
        encoded.incrementAndGet();
      }
      hook.recorded(manifest, stripe);
    };
    Archiver archiver = new Archiver(dfs, store, encoder, counting, listener, grouping);
    Archiver.Result r = archiver.archive(path, codeSpec, placement, trim);
    Archiver.TrimResult t = trim ? archiver.trim(path, trimProgress) : null;
    return new Outcome(path, r, t, alreadyDone, encoded.get());
  }
}
