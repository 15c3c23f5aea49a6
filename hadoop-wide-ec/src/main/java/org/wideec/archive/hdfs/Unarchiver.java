package org.wideec.archive.hdfs;

import java.io.Closeable;
import java.io.IOException;
import java.util.EnumSet;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.UnarchiveLifecycle;
import org.wideec.archive.UnarchiveLifecycle.Step;

/**
 * Takes an archived file or directory back to plain replication ({@code wide-ec unarchive}), for either layout: the
 * steps and their order are the {@link UnarchiveLifecycle}'s, the layout's HDFS work is a {@link RestoreSteps}
 * ({@link SystematicRestore}: raise the blocks' replication, remove the pointers, delete the parity; {@link
 * NonSystematicRestore}: decode the sealed file into a new replicated file, swap it in for the placeholder, delete the
 * codewords and the reader's index). This class holds the archive's lock for the whole run, waits until the NameNode
 * lists the wanted number of live replicas of every block of the own copy ({@link RestoredReplicas}), proves the lock
 * before every step that changes the archive (and a sealed file's restore before it deletes or writes the restored
 * copy, which the run that recovered the lock may be waiting for), deletes the manifest last and shows each step to
 * the crash tests' hook. Until the manifest (and, for a sealed file, its marks) is gone a rerun finishes the rest, so
 * a crash anywhere is finished by running again. A block or piece with no live source is refused before anything is
 * freed: rebuilding it is the repair worker's job, and the units are what it would be rebuilt from.
 */
public final class Unarchiver {
  private static final Logger LOG = LoggerFactory.getLogger(Unarchiver.class);
  /** How long unarchive waits for the NameNode to re-replicate the data blocks before it gives up (frees nothing). */
  public static final String WAIT_KEY = "wide-ec.unarchive.wait.ms";
  public static final long WAIT_DEFAULT = 600_000;

  /** Told while waiting: blocks at the wanted replication out of all. */
  @FunctionalInterface
  public interface Progress {
    Progress NONE = (done, total) -> { };

    void at(long done, long total);
  }

  /**
   * Called after each step (the crash tests' fault injector). Both layouts: locked (the lock taken, nothing found or
   * changed yet). Systematic: replicated, pointers, parity, manifest. Non-systematic: written, decoded, aside, placed,
   * renamed, codewords, index, manifest, pointer.
   */
  @FunctionalInterface
  public interface Hook {
    Hook NONE = step -> { };

    void after(String step) throws IOException;
  }

  /**
   * What a run did.
   *
   * @param archived the path was archived when the run began (false: nothing to do, a rerun after success)
   * @param manifest the manifest freed, or the missing one a lone pointer named
   * @param files data files now at {@code replication} (files deleted since archival are not counted)
   * @param blocks their blocks, each with at least {@code replication} live replicas
   * @param stripesFreed stripes of the manifest freed
   * @param parityFilesDeleted parity (or codeword) unit files deleted
   * @param pointersRemoved pointers removed
   */
  public record Result(String path, boolean archived, String manifest, int files, long blocks, short replication,
      int stripesFreed, long parityFilesDeleted, int pointersRemoved) {}

  private final DistributedFileSystem dfs;
  private final ManifestStore store;
  private final Hook hook;

  public Unarchiver(DistributedFileSystem dfs, ManifestStore store, Hook hook) {
    this.dfs = dfs;
    this.store = store;
    this.hook = hook;
  }

  public Result unarchive(Path path, short replication, Progress progress) throws IOException {
    if (replication < 1) {
      throw new IllegalArgumentException("unarchive needs a replication of at least 1, got " + replication);
    }
    // A sealed file's restore stopped between its renames leaves the path empty: its marker names the archive.
    String name = Path.getPathWithoutSchemeAndAuthority(dfs.exists(path) ? dfs.getFileStatus(path).getPath()
        : dfs.makeQualified(path)).toString();
    RestoreSteps steps = NonSystematicRestore.applies(dfs, store.layout(), name)
        ? NonSystematicRestore.locate(dfs, store, name, hook) : SystematicRestore.locate(dfs, store, path, name);
    if (steps == null) {
      return notArchived(name, replication);
    }
    try (Closeable held = store.lock(steps.archive())) {
      hook.after("locked");
      return run(steps, name, replication, progress);
    }
  }

  /** The lifecycle's steps for what the run finds, in order, each checked before it runs; the lock held. */
  private Result run(RestoreSteps steps, String name, short replication, Progress progress) throws IOException {
    java.util.List<Step> order = UnarchiveLifecycle.steps(steps.find());
    if (order.isEmpty()) {
      return notArchived(name, replication); // another run finished meanwhile
    }
    EnumSet<Step> done = EnumSet.noneOf(Step.class);
    long blocks = 0;
    int pointers = 0;
    long units = 0;
    for (Step step : order) {
      UnarchiveLifecycle.checkMayRun(step, done, name);
      if (step.changesArchive()) {
        store.checkHeld(steps.archive(), step == Step.FORGET ? "deleting the manifest " + steps.manifest()
            : steps.changing(step));
      }
      switch (step) {
        case RESTORE -> steps.restore(replication);
        case WAIT -> blocks = new RestoredReplicas(dfs).await(steps.ownCopy(), steps.where(), replication, progress);
        case RELEASE -> pointers = steps.release();
        case FREE -> units = steps.free();
        case FORGET -> forget(steps, name);
      }
      String doneName = steps.doneName(step);
      if (doneName != null) {
        hook.after(doneName);
      }
      done.add(step);
    }
    String manifest = steps.manifest().toUri().getPath();
    LOG.info("unarchived {} ({}): {} files at replication {}, {} stripes freed, manifest {}", name,
        steps.layout(), steps.files(), replication, steps.stripes(), manifest);
    return new Result(name, true, manifest, steps.files(), blocks, replication, steps.stripes(), units, pointers);
  }

  /** The manifest deleted (the archive's last record), then the layout's own marks. */
  private void forget(RestoreSteps steps, String name) throws IOException {
    Path manifest = steps.manifest();
    if (!dfs.delete(manifest, false) && dfs.exists(manifest)) {
      throw new IOException("unarchive " + name + ": cannot delete manifest " + manifest + "; rerun to finish");
    }
    hook.after("manifest");
    steps.forget();
  }

  private static Result notArchived(String name, short replication) {
    return new Result(name, false, "", 0, 0, replication, 0, 0, 0);
  }
}
