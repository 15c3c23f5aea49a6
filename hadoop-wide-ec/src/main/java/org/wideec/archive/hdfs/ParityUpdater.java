package org.wideec.archive.hdfs;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
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
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeUpdate;
import org.wideec.archive.UpdateLifecycle;
import org.wideec.archive.UpdateLifecycle.Step;
import org.wideec.code.UnitRole;

/**
 * Parity updates of archived systematic stripes ({@code wide-ec rm}), run in this process: the steps and their order
 * are the {@link UpdateLifecycle}'s. Holding the archive's lock (one writer per archive, so per stripe), a run sets the
 * files aside ({@link MemberAside}), rolls back what a crashed run left uncommitted, plans every stripe that holds a
 * set-aside member as one batch ({@link StripeUpdate}: several removals in a stripe are one update), writes the new
 * parity as new blocks ({@link ParityDeltaWriter}), verifies it by decoding ({@link UpdateVerifier}), commits by the
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
   */
  public record Result(String archive, long version, int filesRemoved, int stripesUpdated, int stripesDropped,
      int parityWritten, int rolledBack, int freed, int freeDeferred, long bytesRead, long bytesWritten) {}

  private final DistributedFileSystem dfs;
  private final ManifestStore store;
  private final long graceMs;
  private final int chunkBytes;
  private final Random rnd;
  private final Hook hook;

  public ParityUpdater(DistributedFileSystem dfs, ManifestStore store, long graceMs, int chunkBytes, Random rnd,
      Hook hook) {
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
  }

  /** The updater as configured ({@link #GRACE_KEY}, {@link #CHUNK_KEY}). */
  public static ParityUpdater from(DistributedFileSystem dfs, ManifestStore store,
      org.apache.hadoop.conf.Configuration conf, Hook hook) {
    long chunk = conf.getLongBytes(CHUNK_KEY, CHUNK_DEFAULT);
    if (chunk > Integer.MAX_VALUE / 2) {
      throw new IllegalArgumentException(CHUNK_KEY + " must be below 1 GiB, got " + chunk);
    }
    return new ParityUpdater(dfs, store, conf.getLong(GRACE_KEY, GRACE_DEFAULT), (int) chunk,
        new java.security.SecureRandom(), hook);
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
      out.put(current, plan(current, inodes, leftovers.replacements()).updates);
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
    out.put(current, plan(current, Set.of(old), Map.of(old, store.inodeOf(src))).updates);
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
   * wide-ec's back ({@code hdfs dfs -rm}, which reprotection covered meanwhile): its old bytes are decoded from the
   * rest of its stripe and removed from the parity like a {@code wide-ec rm}'s.
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
   * superseded units became due for freeing. What a cron job or an operator runs ({@code wide-ec rm --finish}).
   */
  public List<Result> resumeAll() throws IOException {
    List<Result> out = new ArrayList<>();
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
      out.add(resume(archive));
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
   * The lifecycle's steps for what the run finds, each checked before it runs; the lock held. {@code reconcile}: members
   * a stock client deleted are removals too. {@code filling}: the run's updates are the fill's, not pending removals.
   */
  private Result run(long archive, boolean reconcile, FillPlanner filling) throws IOException {
    Path manifestPath = store.layout().manifest(archive);
    StripeManifest current = store.read(manifestPath);
    String name = current.archivedPath() + " (manifest " + manifestPath.toUri().getPath() + ")";
    UpdateLeftovers leftovers = new UpdateLeftovers(dfs, store, archive, current);
    UpdateLifecycle.Found found = leftovers.find(reconcile);
    List<StripeUpdate> fills = List.of();
    if (filling != null) {
      if (found.pending()) {
        throw new IOException("fill of " + name + " refused: removals or replacements of inodes "
            + leftovers.pendingInodes() + " are pending; run wide-ec rm --finish, then the fill");
      }
      fills = filling.plan(current);
      found = new UpdateLifecycle.Found(found.uncommitted(), !fills.isEmpty(), found.superseded());
    }
    EnumSet<Step> done = EnumSet.noneOf(Step.class);
    Batch batch = null;
    int rolledBack = 0;
    UpdateLeftovers.Freed freed = new UpdateLeftovers.Freed(0, 0);
    ParityDeltaWriter writer = new ParityDeltaWriter(dfs, chunkBytes);
    for (Step step : UpdateLifecycle.steps(found)) {
      UpdateLifecycle.checkMayRun(step, done, found.uncommitted(), name);
      switch (step) {
        case ROLL_BACK -> {
          store.checkHeld(archive, "rolling back the uncommitted update of " + name);
          rolledBack = leftovers.rollBack();
          hook.after("rolled-back");
        }
        case PLAN -> {
          batch = filling != null ? Batch.of(fills)
              : plan(current, leftovers.pendingInodes(), leftovers.replacements());
          hook.after("planned");
        }
        case WRITE_PARITY -> {
          store.checkHeld(archive, "writing the updated parity of " + name);
          batch.write(writer, current.version() + 1, leftovers.goneInodes());
          hook.after("parity-written");
        }
        case VERIFY -> {
          batch.verify(new UpdateVerifier(dfs, chunkBytes, rnd), current.version() + 1);
          hook.after("verified");
        }
        case COMMIT -> {
          current = current.nextVersion(batch.nextStripes(current));
          store.write(archive, current); // checks the lock, then one rename makes the next version current
          hook.after("committed");
          LOG.info("update of {} committed as manifest version {}: {} stripes rewritten, {} dropped, {} files"
              + " removed", name, current.version(), batch.updated(), batch.dropped(), batch.files.size());
        }
        case FREE -> {
          long committedAt = dfs.getFileStatus(manifestPath).getModificationTime();
          boolean due = UpdateLifecycle.freeDue(committedAt, System.currentTimeMillis(), graceMs);
          UpdateLeftovers now = new UpdateLeftovers(dfs, store, archive, current);
          now.find();
          pointReplacements(manifestPath, current, now.committedReplacements());
          freed = now.free(due);
          if (due) {
            hook.after("freed");
          }
        }
      }
      done.add(step);
    }
    return new Result(current.archivedPath(), current.version(), batch == null ? 0 : batch.files.size(),
        batch == null ? 0 : batch.updated(), batch == null ? 0 : batch.dropped(),
        batch == null ? 0 : batch.parityWritten(), rolledBack, freed.deleted(), freed.deferred(), writer.read,
        writer.written);
  }

  /**
   * Every stripe holding a pending member, with the update that zeroes those members or, for a replaced one, takes
   * its replacement's blocks in file order (a leftover old block is zeroed).
   */
  private Batch plan(StripeManifest current, Set<Long> pending, Map<Long, Long> replacements) throws IOException {
    Map<Long, StripeMember> replaced = new java.util.HashMap<>();
    for (Map.Entry<Long, Long> e : replacements.entrySet()) {
      replaced.putAll(pairBlocks(current, e.getKey(), e.getValue()));
    }
    Batch b = new Batch();
    b.files.addAll(pending);
    for (ArchivedStripe s : current.stripes()) {
      boolean holds = s.members().stream()
          .anyMatch(m -> m.role() == UnitRole.DATA && !m.padding() && pending.contains(m.inodeId()));
      if (holds) {
        if (s.state() != org.wideec.archive.StripeState.COMMITTED
            && s.state() != org.wideec.archive.StripeState.TRIMMED) {
          throw new IOException("update of " + current.archivedPath() + ": stripe " + s.stripeId() + " is " + s.state()
              + "; only a committed stripe's parity matches its data, so only it takes a delta update (the set-aside"
              + " files stay pending; run wide-ec fsck " + current.archivedPath() + ")");
        }
        b.updates.add(StripeUpdate.changing(s, pending, replaced));
      }
    }
    return b;
  }

  /** Old block id → the replacement's block in the same place of its file, on the old unit's planned node. */
  private Map<Long, StripeMember> pairBlocks(StripeManifest current, long oldInode, long newInode) throws IOException {
    Map<Long, StripeMember> byBlock = new java.util.HashMap<>();
    for (ArchivedStripe s : current.stripes()) {
      for (StripeMember m : s.members()) {
        if (m.role() == UnitRole.DATA && !m.padding() && m.inodeId() == oldInode) {
          byBlock.put(m.blockId(), m);
        }
      }
    }
    org.apache.hadoop.hdfs.protocol.LocatedBlocks oldListed = ListedBlocks.of(dfs,
        ArchiveLayout.inodePath(oldInode).toString());
    org.apache.hadoop.hdfs.protocol.LocatedBlocks newListed = ListedBlocks.of(dfs,
        ArchiveLayout.inodePath(newInode).toString());
    if (oldListed == null || newListed == null) {
      throw new IOException("a pending replacement of inode " + oldInode + " by inode " + newInode + " cannot go on: "
          + (oldListed == null ? "the replaced file" : "its replacement") + " is gone (deleted by a stock client);"
          + " restore it or run wide-ec rm --finish after removing the aside entry");
    }
    List<org.apache.hadoop.hdfs.protocol.LocatedBlock> olds = oldListed.getLocatedBlocks();
    List<org.apache.hadoop.hdfs.protocol.LocatedBlock> news = newListed.getLocatedBlocks();
    if (news.size() > olds.size()) {
      throw new IOException("replacement inode " + newInode + " has " + news.size() + " blocks, the file it replaces"
          + " (inode " + oldInode + ") " + olds.size());
    }
    Map<Long, StripeMember> out = new java.util.HashMap<>();
    for (int i = 0; i < news.size(); i++) {
      StripeMember old = byBlock.get(olds.get(i).getBlock().getBlockId());
      org.apache.hadoop.hdfs.protocol.ExtendedBlock nb = news.get(i).getBlock();
      if (old != null) {
        out.put(old.blockId(), StripeMember.data(newInode, nb.getBlockId(), nb.getGenerationStamp(), nb.getNumBytes(),
            old.plannedNode(), old.plannedRack()));
      }
    }
    return out;
  }

  /** Gives each replacement file a committed version holds the archive's pointer (idempotent: a rerun redoes it). */
  private void pointReplacements(Path manifestPath, StripeManifest current, Set<Long> replacementInodes)
      throws IOException {
    for (long inode : replacementInodes) {
      store.setPointer(inode, new org.wideec.archive.ArchivePointer(manifestPath.toUri().getPath(),
          current.stripesOf(inode)));
    }
  }

  /** One run's updates, one per stripe, and the members each rewritten parity got. */
  private static final class Batch {
    final Set<Long> files = new HashSet<>();
    final List<StripeUpdate> updates = new ArrayList<>();
    final Map<Long, ArchivedStripe> next = new LinkedHashMap<>();

    static Batch of(List<StripeUpdate> updates) {
      Batch b = new Batch();
      b.updates.addAll(updates);
      return b;
    }

    void write(ParityDeltaWriter writer, long version, Set<Long> gone) throws IOException {
      for (StripeUpdate u : updates) {
        if (!u.dropsStripe()) {
          next.put(u.before().stripeId(), u.next(writer.write(u, version, gone)));
        }
      }
    }

    void verify(UpdateVerifier verifier, long version) throws IOException {
      for (StripeUpdate u : updates) {
        if (!u.dropsStripe()) {
          verifier.verify(u, next.get(u.before().stripeId()), version);
        }
      }
    }

    /** The stripes of the next version: each updated one replaced, each dropped one left out. */
    List<ArchivedStripe> nextStripes(StripeManifest current) {
      Set<Long> dropped = new HashSet<>();
      updates.stream().filter(StripeUpdate::dropsStripe).forEach(u -> dropped.add(u.before().stripeId()));
      List<ArchivedStripe> out = new ArrayList<>();
      for (ArchivedStripe s : current.stripes()) {
        if (!dropped.contains(s.stripeId())) {
          out.add(next.getOrDefault(s.stripeId(), s));
        }
      }
      return out;
    }

    int updated() {
      return next.size();
    }

    int dropped() {
      return updates.size() - next.size();
    }

    int parityWritten() {
      return updates.stream().filter(u -> !u.dropsStripe()).mapToInt(u -> u.rewrittenParities().length).sum();
    }
  }
}
