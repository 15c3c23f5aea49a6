package org.wideec.archive.hdfs;

import java.io.IOException;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeLifecycle;
import org.wideec.archive.StripeManifest;

/**
 * The manifest of one archive while a run holds its lock: every transition is checked by the {@link StripeLifecycle},
 * written (temp-then-rename, only while the lock is still this run's) and then shown to the crash tests' hook, so the
 * record always precedes the effect and a rerun resumes from it. Stripes archived at once record through one recorder,
 * each transition on the manifest as the others left it, and share its writes (a group commit): a transition
 * recorded while a write is under way waits for the next one, which carries every transition recorded meanwhile. A
 * write is several NameNode calls and an hsync through the manifest's DataNodes (0.1-1.7 s each on the real-process
 * cluster under an archival's load), so one write per transition queued concurrent stripes behind each other's. A
 * write that fails ends the recorder: every transition it was to carry and every later one throw its failure, as a
 * crash would end them (the rerun resumes from the manifest on disk).
 */
final class ManifestRecorder {
  private final ManifestStore store;
  private final long archiveInode;
  private final Archiver.Hook hook;
  /** Serializes the hook's calls, which come after the writes, outside this recorder's own lock. */
  private final Object hookLock = new Object();
  private StripeManifest manifest;
  /** Transitions recorded in {@link #manifest}, and how many of them the last finished write carried. */
  private long recorded;
  private long written;
  private StripeManifest lastWritten;
  private boolean writing;
  private IOException failed;

  ManifestRecorder(ManifestStore store, long archiveInode, StripeManifest manifest, Archiver.Hook hook) {
    this.store = store;
    this.archiveInode = archiveInode;
    this.manifest = manifest;
    this.lastWritten = manifest;
    this.hook = hook;
  }

  /** Writes a new plan (every stripe PLANNED) before any byte of it is written. */
  static ManifestRecorder planned(ManifestStore store, long archiveInode, StripeManifest plan, Archiver.Hook hook)
      throws IOException {
    store.write(archiveInode, plan);
    hook.recorded(plan, null);
    return new ManifestRecorder(store, archiveInode, plan, hook);
  }

  /**
   * The manifest as last written: a transition another stripe recorded but no write has carried yet is not in it, so
   * nothing acts on a state that is not on disk.
   */
  synchronized StripeManifest manifest() {
    return lastWritten;
  }

  ManifestStore store() {
    return store;
  }

  long archiveInode() {
    return archiveInode;
  }

  /** The stripe as last written. */
  synchronized ArchivedStripe stripe(long id) {
    return lastWritten.stripe(id);
  }

  /**
   * Records the stripe's next state (checked), returns once a write has carried it, then lets the hook see the
   * manifest as written.
   *
   * @throws IOException when the write that was to carry it failed, or an earlier one did
   */
  ArchivedStripe record(ArchivedStripe next) throws IOException {
    long mine;
    synchronized (this) {
      if (failed != null) {
        throw failed; // the failure that stopped this recorder (a lost lock stays a LostArchiveLockException)
      }
      manifest = StripeLifecycle.record(manifest, next);
      mine = ++recorded;
    }
    StripeManifest carried = awaitWritten(mine);
    synchronized (hookLock) {
      hook.recorded(carried, next);
    }
    return next;
  }

  /** Waits until a write carries transition {@code mine}, writing itself when no write is under way; what was written. */
  private StripeManifest awaitWritten(long mine) throws IOException {
    while (true) {
      StripeManifest toWrite;
      long carries;
      synchronized (this) {
        while (writing && written < mine && failed == null) {
          try {
            wait();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while the manifest was being written");
          }
        }
        if (failed != null) {
          throw failed;
        }
        if (written >= mine) {
          return lastWritten;
        }
        writing = true;
        toWrite = manifest;
        carries = recorded;
      }
      IOException error = null;
      try {
        store.write(archiveInode, toWrite);
      } catch (IOException e) {
        error = e;
      }
      synchronized (this) {
        writing = false;
        if (error == null) {
          written = carries;
          lastWritten = toWrite;
        } else {
          failed = error;
        }
        notifyAll();
      }
      if (error != null) {
        throw error;
      }
    }
  }

  /** Fails unless this run still holds the archive's lock: before any change outside the manifest. */
  void checkHeld(String what) throws IOException {
    store.checkHeld(archiveInode, what);
  }
}
