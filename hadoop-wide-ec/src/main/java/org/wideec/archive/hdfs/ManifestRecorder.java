package org.wideec.archive.hdfs;

import java.io.IOException;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeLifecycle;
import org.wideec.archive.StripeManifest;

/**
 * The manifest of one archive while a run holds its lock: every transition is checked by the {@link StripeLifecycle},
 * written (temp-then-rename, only while the lock is still this run's) and then shown to the crash tests' hook, so the
 * record always precedes the effect and a rerun resumes from it. Stripes archived at once record through one recorder,
 * one write at a time, each on the manifest as the others left it.
 */
final class ManifestRecorder {
  private final ManifestStore store;
  private final long archiveInode;
  private final Archiver.Hook hook;
  private StripeManifest manifest;

  ManifestRecorder(ManifestStore store, long archiveInode, StripeManifest manifest, Archiver.Hook hook) {
    this.store = store;
    this.archiveInode = archiveInode;
    this.manifest = manifest;
    this.hook = hook;
  }

  /** Writes a new plan (every stripe PLANNED) before any byte of it is written. */
  static ManifestRecorder planned(ManifestStore store, long archiveInode, StripeManifest plan, Archiver.Hook hook)
      throws IOException {
    store.write(archiveInode, plan);
    hook.recorded(plan, null);
    return new ManifestRecorder(store, archiveInode, plan, hook);
  }

  synchronized StripeManifest manifest() {
    return manifest;
  }

  ManifestStore store() {
    return store;
  }

  long archiveInode() {
    return archiveInode;
  }

  /** The stripe as now recorded. */
  synchronized ArchivedStripe stripe(long id) {
    return manifest.stripe(id);
  }

  /** Records the stripe's next state (checked), then lets the hook see it. */
  synchronized ArchivedStripe record(ArchivedStripe next) throws IOException {
    manifest = StripeLifecycle.record(manifest, next);
    store.write(archiveInode, manifest);
    hook.recorded(manifest, next);
    return next;
  }

  /** Fails unless this run still holds the archive's lock: before any change outside the manifest. */
  void checkHeld(String what) throws IOException {
    store.checkHeld(archiveInode, what);
  }
}
