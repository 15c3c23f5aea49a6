package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.EnumSet;
import java.util.Set;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.UpdateLifecycle;
import org.wideec.archive.UpdateLifecycle.Step;

/**
 * One run of an archive's update lifecycle, the archive's lock held: the steps {@link UpdateLifecycle} says for what
 * the run finds, each checked before it runs and shown to the crash tests' hook after it. Only WRITE_PARITY depends on
 * who computes the parity ({@link ParityDeltaExecutor}); verification and the commit are the same for every executor.
 */
final class UpdateRun {
  private static final Logger LOG = LoggerFactory.getLogger(UpdateRun.class);
  private final DistributedFileSystem dfs;
  private final ManifestStore store;
  private final long archive;
  private final ParityDeltaExecutor writer;
  private final UpdateVerifier verifier;
  private final long graceMs;
  private final ParityUpdater.Hook hook;
  private final Path manifestPath;
  private StripeManifest current;
  private String name;
  private UpdateLeftovers leftovers;
  private UpdateBatch batch;
  private ParityUpdater.FillPlanner filling;
  private java.util.List<org.wideec.archive.StripeUpdate> fills = java.util.List.of();
  private int rolledBack;
  private UpdateLeftovers.Freed freed = new UpdateLeftovers.Freed(0, 0);

  UpdateRun(DistributedFileSystem dfs, ManifestStore store, long archive, ParityDeltaExecutor writer,
      UpdateVerifier verifier, long graceMs, ParityUpdater.Hook hook) {
    this.dfs = dfs;
    this.store = store;
    this.archive = archive;
    this.writer = writer;
    this.verifier = verifier;
    this.graceMs = graceMs;
    this.hook = hook;
    this.manifestPath = store.layout().manifest(archive);
  }

  /**
   * {@code reconcile}: members a stock client deleted are removals too. {@code filling}: the run's updates are the
   * fill's (planned here, under the lock), not pending removals; null for a removal's run.
   */
  ParityUpdater.Result run(boolean reconcile, ParityUpdater.FillPlanner filling) throws IOException {
    current = store.read(manifestPath);
    name = current.archivedPath() + " (manifest " + manifestPath.toUri().getPath() + ")";
    leftovers = new UpdateLeftovers(dfs, store, archive, current);
    UpdateLifecycle.Found found = leftovers.find(reconcile);
    this.filling = filling;
    if (filling != null) {
      if (found.pending()) {
        throw new IOException("fill of " + name + " refused: removals or replacements of inodes "
            + leftovers.pendingInodes() + " are pending; run wide-ec rm --finish, then the fill");
      }
      fills = filling.plan(current);
      found = new UpdateLifecycle.Found(found.uncommitted(), !fills.isEmpty(), found.superseded());
    }
    EnumSet<Step> done = EnumSet.noneOf(Step.class);
    for (Step step : UpdateLifecycle.steps(found)) {
      UpdateLifecycle.checkMayRun(step, done, found.uncommitted(), name);
      switch (step) {
        case ROLL_BACK -> rollBack();
        case PLAN -> plan();
        case WRITE_PARITY -> writeParity();
        case VERIFY -> verify();
        case COMMIT -> commit();
        case FREE -> free();
      }
      done.add(step);
    }
    boolean none = batch == null;
    return new ParityUpdater.Result(current.archivedPath(), current.version(), none ? 0 : batch.files.size(),
        none ? 0 : batch.updated(), none ? 0 : batch.dropped(), none ? 0 : batch.parityWritten(), rolledBack,
        freed.deleted(), freed.deferred(), writer.bytesRead(), writer.bytesWritten(), writer.name());
  }

  private void rollBack() throws IOException {
    store.checkHeld(archive, "rolling back the uncommitted update of " + name);
    rolledBack = leftovers.rollBack();
    hook.after("rolled-back");
  }

  private void plan() throws IOException {
    batch = filling != null ? UpdateBatch.of(fills)
        : UpdateBatch.plan(dfs, current, leftovers.pendingInodes(), leftovers.replacements());
    hook.after("planned");
  }

  private void writeParity() throws IOException {
    store.checkHeld(archive, "writing the updated parity of " + name);
    batch.write(writer, current.version() + 1, leftovers.goneInodes());
    hook.after("parity-written");
  }

  private void verify() throws IOException {
    batch.verify(verifier, current.version() + 1);
    hook.after("verified");
  }

  private void commit() throws IOException {
    current = current.nextVersion(batch.nextStripes(current));
    store.write(archive, current); // checks the lock, then one rename makes the next version current
    hook.after("committed");
    LOG.info("update of {} committed as manifest version {}: {} stripes rewritten, {} dropped, {} files removed"
        + " (parity computed by the {} executor)", name, current.version(), batch.updated(), batch.dropped(),
        batch.files.size(), writer.name());
  }

  private void free() throws IOException {
    long committedAt = dfs.getFileStatus(manifestPath).getModificationTime();
    // Both times from the NameNode's clock: the commit's stamp and now (the client's clock may be off by minutes).
    boolean due = UpdateLifecycle.freeDue(committedAt, store.nameNodeNow(archive), graceMs);
    UpdateLeftovers now = new UpdateLeftovers(dfs, store, archive, current);
    now.find();
    pointReplacements(now.committedReplacements());
    freed = now.free(due);
    if (due) {
      hook.after("freed");
    }
  }

  /** Gives each replacement file a committed version holds the archive's pointer (idempotent: a rerun redoes it). */
  private void pointReplacements(Set<Long> replacementInodes) throws IOException {
    for (long inode : replacementInodes) {
      store.setPointer(inode, new org.wideec.archive.ArchivePointer(manifestPath.toUri().getPath(),
          current.stripesOf(inode)));
    }
  }
}
