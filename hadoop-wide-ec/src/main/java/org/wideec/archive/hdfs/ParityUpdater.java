package org.wideec.archive.hdfs;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeUpdate;
import org.wideec.archive.UpdateLifecycle;
import org.wideec.update.RackCu;
import org.wideec.update.UpdateScheme;

/**
 * Parity updates of archived systematic stripes ({@code wide-ec rm}, {@code wide-ec replace}): the steps and their
 * order are the {@link UpdateLifecycle}'s ({@link UpdateRun}). Holding the archive's lock (one writer per archive, so
 * per stripe), a run sets the files aside ({@link MemberAside}), rolls back what a crashed run left uncommitted, plans
 * every stripe that holds a set-aside member as one batch ({@link UpdateBatch}: several removals in a stripe are one
 * update), writes the new parity as new blocks (on the DataNodes as the scheme's plan says, or re-encoded there along
 * the archival chain when that crosses racks less or a member's old bytes are gone ({@link #REENCODE_KEY}),
 * {@link DataNodeParityDeltaExecutor}; or in this process, {@link ParityDeltaWriter}: {@link #EXECUTOR_KEY}),
 * verifies it by decoding ({@link UpdateVerifier}), commits by the
 * rename of the next manifest version over the current one ({@link ManifestStore#write}), and frees what the old
 * version used once {@link #GRACE_KEY} has passed since the commit. Every step is shown to the crash tests' hook; a
 * rerun after a crash at any point rolls back (before the commit) or forward (after it).
 *
 * <p>Degraded reads and repairs read the manifest when they start and reach units by inode id: the units the old
 * version named stay until the grace period is over, which is how such a read pins the version it started with.
 */
public final class ParityUpdater {
  private static final Logger LOG = LoggerFactory.getLogger(ParityUpdater.class);
  /** How long the parity and set-aside blocks a committed update superseded stay readable before they are deleted. */
  public static final String GRACE_KEY = "wide-ec.update.gc.grace.ms";
  public static final long GRACE_DEFAULT = 3_600_000;
  /** Bytes of each unit the update reads, computes and writes at a time. */
  public static final String CHUNK_KEY = "wide-ec.update.chunk.bytes";
  public static final int CHUNK_DEFAULT = 1 << 20;
  /**
   * Who computes the new parity: {@code datanode} (the DataNodes carry out the scheme's plan over their slice ports;
   * needs our DataNode plugin and block tokens, else the client's is used, the reason logged) or {@code client} (this
   * process reads the changed units and old parity through HDFS).
   */
  public static final String EXECUTOR_KEY = "wide-ec.update.executor";
  public static final String EXECUTOR_DEFAULT = "datanode";
  /**
   * Whether the DataNodes re-encode a stripe's rewritten parities instead of running the scheme's delta plan when
   * re-encoding crosses racks strictly less ({@link org.wideec.archive.UpdateChoice}); false: the delta plan always
   * runs, except for a member a stock client deleted, which is re-encoded either way (its old bytes are gone).
   */
  public static final String REENCODE_KEY = "wide-ec.update.reencode.when-cheaper";
  public static final boolean REENCODE_DEFAULT = true;

  /**
   * Called after each step (the crash tests' fault injector): locked, aside, rolled-back, planned, parity-written,
   * verified, committed, freed.
   */
  @FunctionalInterface
  public interface Hook {
    Hook NONE = step -> { };

    void after(String step) throws IOException;
  }

  /**
   * A fill's planning, called holding the archive's lock with the manifest it protects ({@link FillUpdate}): the
   * stripe updates that archive new blocks into virtual slots, none when nothing fits.
   */
  @FunctionalInterface
  public interface FillPlanner {
    List<StripeUpdate> plan(StripeManifest current) throws IOException;
  }

  /**
   * What a run did.
   *
   * @param version the manifest version after the run (unchanged when nothing was pending)
   * @param filesRemoved member files whose units this run zeroed in the parity (its own and any left pending)
   * @param stripesUpdated stripes whose parity was rewritten
   * @param stripesDropped stripes that lost every data unit and left the manifest
   * @param parityWritten new parity blocks written
   * @param rolledBack uncommitted parity files of a crashed run deleted
   * @param freed superseded parity and set-aside files deleted
   * @param freeDeferred superseded files kept because the grace period has not passed
   * @param executor who computed the new parity: datanode, client, or datanode+client when some stripes fell back
   */
  public record Result(String archive, long version, int filesRemoved, int stripesUpdated, int stripesDropped,
      int parityWritten, int rolledBack, int freed, int freeDeferred, long bytesRead, long bytesWritten,
      String executor) {}

  private final DistributedFileSystem dfs;
  private final ManifestStore store;
  private final long graceMs;
  private final int chunkBytes;
  private final Random rnd;
  private final Hook hook;
  private final UpdateScheme scheme;
  private final boolean reEncodeWhenCheaper;

  public ParityUpdater(DistributedFileSystem dfs, ManifestStore store, long graceMs, int chunkBytes, Random rnd,
      Hook hook) {
    this(dfs, store, graceMs, chunkBytes, rnd, hook, new RackCu());
  }

  /**
   * @param scheme the update scheme whose plan the DataNodes carry out ({@link #EXECUTOR_KEY}); the client
   *     executor's reads do not depend on it
   */
  public ParityUpdater(DistributedFileSystem dfs, ManifestStore store, long graceMs, int chunkBytes, Random rnd,
      Hook hook, UpdateScheme scheme) {
    this(dfs, store, graceMs, chunkBytes, rnd, hook, scheme, REENCODE_DEFAULT);
  }

  /** @param reEncodeWhenCheaper {@link #REENCODE_KEY} */
  public ParityUpdater(DistributedFileSystem dfs, ManifestStore store, long graceMs, int chunkBytes, Random rnd,
      Hook hook, UpdateScheme scheme, boolean reEncodeWhenCheaper) {
    if (graceMs < 0) {
      throw new IllegalArgumentException(GRACE_KEY + " must be at least 0, got " + graceMs);
    }
    if (chunkBytes < 1) {
      throw new IllegalArgumentException(CHUNK_KEY + " must be at least 1, got " + chunkBytes);
    }
    this.dfs = dfs;
    this.store = store;
    this.graceMs = graceMs;
    this.chunkBytes = chunkBytes;
    this.rnd = rnd;
    this.hook = hook;
    this.scheme = scheme;
    this.reEncodeWhenCheaper = reEncodeWhenCheaper;
  }

  /** The updater as configured ({@link #GRACE_KEY}, {@link #CHUNK_KEY}), running RackCU's plans. */
  public static ParityUpdater from(DistributedFileSystem dfs, ManifestStore store,
      org.apache.hadoop.conf.Configuration conf, Hook hook) {
    return from(dfs, store, conf, hook, "rackcu");
  }

  /** The updater as configured, running the named scheme's plans (baseline, cau, rackcu) on the DataNodes. */
  public static ParityUpdater from(DistributedFileSystem dfs, ManifestStore store,
      org.apache.hadoop.conf.Configuration conf, Hook hook, String scheme) {
    long chunk = conf.getLongBytes(CHUNK_KEY, CHUNK_DEFAULT);
    if (chunk > Integer.MAX_VALUE / 2) {
      throw new IllegalArgumentException(CHUNK_KEY + " must be below 1 GiB, got " + chunk);
    }
    return new ParityUpdater(dfs, store, conf.getLong(GRACE_KEY, GRACE_DEFAULT), (int) chunk,
        new java.security.SecureRandom(), hook, UpdateScheme.byName(scheme),
        conf.getBoolean(REENCODE_KEY, REENCODE_DEFAULT));
  }

  /**
   * The racks the stored units of {@code up} are read in now, by unit: what a dry run plans from, as the DataNodes'
   * run does ({@link StripeUpdate#pattern(Map)}). Empty (the planned racks) when a member cannot be located, e.g. a
   * file deleted behind wide-ec's back: such an update re-encodes, and the run says why.
   */
  public Map<Integer, String> readRacks(StripeUpdate up) {
    try {
      return UpdateSources.located(dfs, up, Set.of()).readRacks();
    } catch (IOException e) {
      LOG.debug("stripe {}: planned from its manifest's racks: {}", up.before().stripeId(), e.getMessage());
      return Map.of();
    }
  }

  /**
   * Removes archived files: each leaves the namespace at once, then one update per archive zeroes them all in the
   * parity. Files of several archives are updated archive by archive.
   */
  public List<Result> remove(List<Path> paths) throws IOException {
    Map<Long, List<Path>> byArchive = new LinkedHashMap<>();
    for (Path p : paths) {
      byArchive.computeIfAbsent(MemberAside.archiveOf(dfs, store, p), a -> new ArrayList<>()).add(p);
    }
    List<Result> out = new ArrayList<>();
    for (Map.Entry<Long, List<Path>> e : byArchive.entrySet()) {
      try (Closeable held = store.lock(e.getKey())) {
        hook.after("locked");
        for (Path p : e.getValue()) {
          MemberAside.Hidden h = MemberAside.hide(dfs, store, p, e.getKey());
          LOG.info("wide-ec rm: {} (inode {}) set aside at {}; its blocks stay in their stripes until the update"
              + " commits", h.path(), h.inode(), h.aside());
        }
        hook.after("aside");
        out.add(run(e.getKey()));
      }
    }
    return out;
  }

  /**
   * Replaces an archived file's content ({@code wide-ec replace}): the old file goes aside, {@code src} (a closed file
   * with the new content) is renamed in, and one update applies old XOR new to the parity of every stripe holding the
   * old blocks. A rerun after a crash between the two renames finishes them.
   */
  public Result replace(Path path, Path src) throws IOException {
    long unfinished = MemberAside.unfinishedReplacement(dfs, store, path, src);
    if (unfinished >= 0) {
      return resume(unfinished);
    }
    long archive = MemberAside.archiveOf(dfs, store, path);
    if (store.read(store.layout().manifest(archive)).scope() == org.wideec.archive.ArchiveScope.FILE) {
      throw new IOException(Path.getPathWithoutSchemeAndAuthority(path) + " was archived on its"
          + " own (its manifest is named by its inode); unarchive it and archive the new content instead");
    }
    MemberAside.checkReplacement(dfs, store, path, src);
    try (Closeable held = store.lock(archive)) {
      hook.after("locked");
      MemberAside.Hidden h = MemberAside.replace(dfs, store, path, src, archive);
      LOG.info("wide-ec replace: {} (inode {}) set aside at {}, {} renamed in", h.path(), h.inode(), h.aside(), src);
      hook.after("aside");
      return run(archive);
    }
  }

  /**
   * The stripe updates removing these files would make, archive by archive, changing nothing ({@code --dry-run}); each
   * archive's pending removals are in the batch too, as the run would apply them.
   */
  public Map<StripeManifest, List<StripeUpdate>> preview(List<Path> paths) throws IOException {
    Map<Long, Set<Long>> byArchive = new LinkedHashMap<>();
    for (Path p : paths) {
      byArchive.computeIfAbsent(MemberAside.archiveOf(dfs, store, p), a -> new HashSet<>()).add(store.inodeOf(p));
    }
    Map<StripeManifest, List<StripeUpdate>> out = new LinkedHashMap<>();
    for (Map.Entry<Long, Set<Long>> e : byArchive.entrySet()) {
      StripeManifest current = store.read(store.layout().manifest(e.getKey()));
      UpdateLeftovers leftovers = new UpdateLeftovers(dfs, store, e.getKey(), current);
      leftovers.find();
      Set<Long> inodes = new HashSet<>(e.getValue());
      inodes.addAll(leftovers.pendingInodes());
      out.put(current, UpdateBatch.plan(dfs, current, inodes, leftovers.replacements()).updates);
    }
    return out;
  }

  /** The stripe update replacing {@code path} by {@code src} would make, changing nothing ({@code --dry-run}). */
  public Map<StripeManifest, List<StripeUpdate>> previewReplace(Path path, Path src) throws IOException {
    long archive = MemberAside.archiveOf(dfs, store, path);
    MemberAside.checkReplacement(dfs, store, path, src);
    StripeManifest current = store.read(store.layout().manifest(archive));
    long old = store.inodeOf(path);
    Map<StripeManifest, List<StripeUpdate>> out = new LinkedHashMap<>();
    out.put(current, UpdateBatch.plan(dfs, current, Set.of(old), Map.of(old, store.inodeOf(src))).updates);
    return out;
  }

  /**
   * Archives new blocks into the virtual slots of the archive's stripes ({@code wide-ec archive --fill}): the same
   * steps as a removal, with the updates the planner makes under the lock. Refused while removals or replacements are
   * pending (two updates of one stripe never share a version); a crashed run's uncommitted parity is rolled back first.
   */
  public Result fill(long archive, FillPlanner planner) throws IOException {
    try (Closeable held = store.lock(archive)) {
      hook.after("locked");
      return run(archive, false, planner);
    }
  }

  /** Finishes whatever updates of the archive are pending or left by a crashed run; its lock is taken here. */
  public Result resume(long archive) throws IOException {
    try (Closeable held = store.lock(archive)) {
      hook.after("locked");
      return run(archive);
    }
  }

  /**
   * Finishes the updates of these archived directories, reconciling too each member a stock client deleted behind
   * wide-ec's back ({@code hdfs dfs -rm}, which reprotection covered meanwhile): its stripes are re-encoded on the
   * DataNodes from the members they keep, the deleted unit as zeros (by the client executor, its old bytes are
   * decoded from the rest of its stripe and removed from the parity like a {@code wide-ec rm}'s).
   */
  public List<Result> reconcile(List<Path> archivedDirs) throws IOException {
    List<Result> out = new ArrayList<>();
    for (Path dir : archivedDirs) {
      long archive = store.inodeOf(dir);
      if (!dfs.exists(store.layout().manifest(archive))) {
        throw new IOException(Path.getPathWithoutSchemeAndAuthority(dir) + " has no manifest of its own (manifest "
            + store.layout().manifest(archive).toUri().getPath() + "): name the archived directory");
      }
      try (Closeable held = store.lock(archive)) {
        hook.after("locked");
        out.add(run(archive, true));
      }
    }
    return out;
  }

  /**
   * Finishes every archive's unfinished updates: those a crashed run left (rolled back or forward) and those whose
   * superseded units became due for freeing. What a cron job or an operator runs ({@code wide-ec rm --finish}). An
   * archive that cannot finish now does not stop the others: after all were tried, an IOException names each that
   * failed and why.
   */
  public List<Result> resumeAll() throws IOException {
    List<Result> out = new ArrayList<>();
    List<String> failed = new ArrayList<>();
    Path root = store.layout().asideRoot(0).getParent();
    if (!dfs.exists(root)) {
      return out;
    }
    for (FileStatus st : dfs.listStatus(root)) {
      long archive;
      try {
        archive = Long.parseLong(st.getPath().getName());
      } catch (NumberFormatException e) {
        continue; // not one of ours
      }
      if (!dfs.exists(store.layout().manifest(archive))) {
        continue; // forgotten meanwhile (unarchived, or its last member removed and freed)
      }
      try {
        out.add(resume(archive));
      } catch (IOException e) {
        // One archive that cannot finish (its lock held, a stripe to fsck) must not keep the others' updates waiting.
        LOG.warn("wide-ec rm --finish: the updates of archive inode {} cannot finish now: {}", archive, e.getMessage());
        failed.add("archive inode " + archive + ": " + e.getMessage());
      }
    }
    if (!failed.isEmpty()) {
      throw new IOException(out.size() + " archives finished, " + failed.size() + " could not: "
          + String.join("; ", failed));
    }
    return out;
  }

  private Result run(long archive) throws IOException {
    return run(archive, false, null);
  }

  private Result run(long archive, boolean reconcile) throws IOException {
    return run(archive, reconcile, null);
  }

  /**
   * The lifecycle's steps for what the run finds ({@link UpdateRun}), the new parity computed by the configured
   * executor; the lock held. {@code reconcile}: members a stock client deleted are removals too. {@code filling}: the
   * run's updates are the fill's, not pending removals.
   */
  private Result run(long archive, boolean reconcile, FillPlanner filling) throws IOException {
    try (ParityDeltaExecutor writer = DataNodeParityDeltaExecutor.choose(dfs, scheme, chunkBytes,
        reEncodeWhenCheaper)) {
      return new UpdateRun(dfs, store, archive, writer, new UpdateVerifier(dfs, chunkBytes, rnd), graceMs, hook)
          .run(reconcile, filling);
    }
  }
}
