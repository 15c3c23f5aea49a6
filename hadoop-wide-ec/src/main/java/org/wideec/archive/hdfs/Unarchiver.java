package org.wideec.archive.hdfs;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivePointer;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.code.UnitRole;
import org.wideec.time.Backoff;

/**
 * Takes an archived file or directory back to plain replication ({@code wide-ec unarchive}), in the one
 * safe order: raise each data file's replication, wait until the NameNode lists the wanted number of live replicas
 * for every block, and only then free the stripes: pointers removed, parity deleted, manifest deleted last, all
 * under the archive's lock. Until the manifest is gone a rerun redoes every step (each is idempotent), so a crash
 * anywhere is finished by running again. A block with no live replica is refused before anything is freed:
 * rebuilding it is the repair worker's job, and its parity is what it would be rebuilt from.
 *
 * <p>Raising replication is not held back by our placement: {@code WideEcReplicaPlacementPolicy} only chooses
 * which excess replicas to delete (it keeps one replica only for a file at replication 1 that the trimmer trims),
 * and the trimmer trims only files at replication 1, so a raised file is re-replicated by the stock path.
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

  /** Called after each step (the crash tests' fault injector): replicated, pointers, parity, manifest. */
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
   * @param parityFilesDeleted parity unit files deleted
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
    // A sealed file's restore stopped between its renames leaves the path empty: the sealed unarchiver finishes it.
    String name = Path.getPathWithoutSchemeAndAuthority(dfs.exists(path) ? dfs.getFileStatus(path).getPath()
        : dfs.makeQualified(path)).toString();
    if (SealedUnarchiver.applies(dfs, store.layout(), name)) {
      return new SealedUnarchiver(dfs, store, this, hook).unarchive(name, replication, progress);
    }
    long inode = store.inodeOf(path);
    Path manifestPath = store.layout().manifest(inode);
    if (!dfs.exists(manifestPath)) {
      return unarchiveWithoutManifest(path, name, inode, replication, progress);
    }
    try (java.io.Closeable held = store.lock(inode)) {
      if (!dfs.exists(manifestPath)) {
        return new Result(name, false, "", 0, 0, replication, 0, 0, 0); // another run finished meanwhile
      }
      StripeManifest m = store.read(manifestPath);
      String manifest = manifestPath.toUri().getPath();
      Map<Long, String> names = currentPaths(path);
      Map<Long, String> files = new LinkedHashMap<>();
      Map<Long, String> where = new HashMap<>();
      collectDataFiles(m, names, files, where);
      long blocks = replicate(files, where, replication, progress);
      hook.after("replicated");
      int pointers = removePointers(inode, name, files.keySet(), manifest);
      hook.after("pointers");
      long parityFiles = deleteParity(inode, name, m);
      hook.after("parity");
      store.checkHeld(inode, "deleting the manifest " + manifestPath);
      if (!dfs.delete(manifestPath, false) && dfs.exists(manifestPath)) {
        throw new IOException("unarchive " + name + ": cannot delete manifest " + manifestPath + "; rerun to finish");
      }
      hook.after("manifest");
      LOG.info("unarchived {}: {} files at replication {}, {} stripes freed, manifest {} deleted", name, files.size(),
          replication, m.stripes().size(), manifest);
      return new Result(name, true, manifest, files.size(), blocks, replication, m.stripes().size(), parityFiles,
          pointers);
    }
  }

  /**
   * A path with no manifest of its own: a file archived inside a directory that still has its manifest is refused; a
   * pointer to a manifest that is gone (fsck: orphan-pointer) protects nothing, so the file gets its replicas back.
   */
  private Result unarchiveWithoutManifest(Path path, String name, long inode, short replication, Progress progress)
      throws IOException {
    refuseInsideArchivedDirectory(path, name);
    ArchivePointer p = dfs.getFileStatus(path).isFile() ? store.pointer(path) : null;
    if (p == null) {
      return new Result(name, false, "", 0, 0, replication, 0, 0, 0);
    }
    if (dfs.exists(new Path(p.manifestPath()))) {
      StripeManifest owner = store.read(new Path(p.manifestPath()));
      throw new IOException(name + " was archived as part of " + owner.archivedPath() + " (manifest "
          + p.manifestPath() + "; the file has been moved out of it since): unarchive that directory");
    }
    // A pointer to a manifest that is gone (fsck: orphan-pointer): nothing protects the file; give its replicas back.
    Map<Long, String> files = Map.of(inode, name);
    long blocks = replicate(files, Map.of(), replication, progress);
    dfs.removeXAttr(ArchiveLayout.inodePath(inode), ArchivalSource.POINTER_XATTR);
    return new Result(name, true, p.manifestPath(), 1, blocks, replication, 0, 0, 1);
  }

  /** The data files of a manifest that still exist ({@code files}, inode to path) and where each data block is. */
  private void collectDataFiles(StripeManifest m, Map<Long, String> names, Map<Long, String> files,
      Map<Long, String> where) throws IOException {
    for (ArchivedStripe s : m.stripes()) {
      for (int u = 0; u < s.members().size(); u++) {
        StripeMember d = s.member(u);
        if (d.role() == UnitRole.DATA && !d.padding()) {
          where.put(d.blockId(), "stripe " + s.stripeId() + " unit " + u);
          if (!files.containsKey(d.inodeId()) && status(d.inodeId()) != null) {
            files.put(d.inodeId(), names.getOrDefault(d.inodeId(), ArchiveLayout.inodePath(d.inodeId()).toString()));
          }
        }
      }
    }
  }

  /** Removes the pointer of every file that points at {@code manifest}; how many were removed. */
  private int removePointers(long inode, String name, java.util.Collection<Long> files, String manifest)
      throws IOException {
    int pointers = 0;
    store.checkHeld(inode, "removing the pointers of " + name);
    for (long f : files) {
      ArchivePointer p = store.pointer(ArchiveLayout.inodePath(f));
      if (p != null && p.manifestPath().equals(manifest)) {
        dfs.removeXAttr(ArchiveLayout.inodePath(f), ArchivalSource.POINTER_XATTR);
        pointers++;
      }
    }
    return pointers;
  }

  /** Deletes the archive's parity root and every stripe's parity directory; how many parity files they held. */
  private long deleteParity(long inode, String name, StripeManifest m) throws IOException {
    long parityFiles = 0;
    List<Path> parity = new ArrayList<>(List.of(store.layout().parityRoot(inode)));
    for (ArchivedStripe s : m.stripes()) {
      if (!s.parityFilePath().isEmpty()) {
        parity.add(new Path(s.parityFilePath()));
      }
    }
    for (Path dir : parity) {
      if (dfs.exists(dir)) {
        parityFiles += dfs.getContentSummary(dir).getFileCount();
        store.checkHeld(inode, "deleting the parity " + dir);
        if (!dfs.delete(dir, true)) {
          throw new IOException("unarchive " + name + ": cannot delete parity " + dir + "; rerun to finish");
        }
      }
    }
    return parityFiles;
  }

  /** A path inside an archived directory is that directory's to unarchive: refused, naming it. */
  private void refuseInsideArchivedDirectory(Path path, String name) throws IOException {
    for (Path p = new Path(name).getParent(); p != null; p = p.getParent()) {
      Path manifest = store.layout().manifest(store.inodeOf(p));
      if (dfs.exists(manifest)) {
        throw new IOException(name + " is inside the archived directory " + p.toUri().getPath() + " (manifest "
            + manifest.toUri().getPath() + "): its stripes span that directory's files, so unarchive "
            + p.toUri().getPath() + " itself");
      }
    }
  }

  /**
   * Raises each file to {@code replication} and waits until the NameNode lists that many replicas of every block.
   * Refuses (raising nothing, or nothing more) while a block has no live replica. Returns the number of blocks.
   */
  /** Waits until every block of the files has {@code replication} live replicas (raising it first); its count. */
  long replicate(Map<Long, String> files, Map<Long, String> where, short replication, Progress progress)
      throws IOException {
    // First look: a missing block refuses the whole run before anything changes.
    checkNoneMissing(files, where);
    for (Map.Entry<Long, String> f : files.entrySet()) {
      HdfsFileStatus st = status(f.getKey());
      if (st != null && st.getReplication() != replication) {
        dfs.setReplication(ArchiveLayout.inodePath(f.getKey()), replication);
      }
    }
    long waitMs = dfs.getConf().getLong(WAIT_KEY, WAIT_DEFAULT);
    Backoff poll = Backoff.pollingNameNode(50, waitMs);
    while (true) {
      long total = 0;
      long ready = 0;
      String short1 = null;
      for (Map.Entry<Long, String> f : files.entrySet()) {
        for (LocatedBlock lb : blocks(f.getKey())) {
          total++;
          int live = lb.isCorrupt() ? 0 : lb.getLocations().length;
          if (live == 0) {
            throw missing(f.getValue(), lb, where, true);
          }
          if (live >= replication) {
            ready++;
          } else if (short1 == null) {
            short1 = f.getValue() + " block blk_" + lb.getBlock().getBlockId() + " has " + live + " of "
                + replication + " replicas";
          }
        }
      }
      progress.at(ready, total);
      if (ready == total) {
        return total;
      }
      if (poll.expired()) {
        throw new IOException("unarchive: " + (total - ready) + " of " + total + " blocks are still below replication "
            + replication + " after " + waitMs + " ms (" + WAIT_KEY + "; e.g. " + short1 + "); nothing was freed,"
            + " the files keep the raised replication: rerun once HDFS has re-replicated them");
      }
      poll.pause("interrupted while waiting for re-replication; nothing was freed");
    }
  }

  private void checkNoneMissing(Map<Long, String> files, Map<Long, String> where) throws IOException {
    for (Map.Entry<Long, String> f : files.entrySet()) {
      for (LocatedBlock lb : blocks(f.getKey())) {
        if (lb.isCorrupt() || lb.getLocations().length == 0) {
          throw missing(f.getValue(), lb, where, false);
        }
      }
    }
  }

  private IOException missing(String file, LocatedBlock lb, Map<Long, String> where, boolean raised) {
    String at = where.get(lb.getBlock().getBlockId());
    return new IOException("unarchive refused: " + file + " block blk_" + lb.getBlock().getBlockId()
        + (at == null ? "" : " (" + at + ")") + " has no live replica; rebuild it first (the wide-ec repair worker"
        + " does, from the stripe's parity; WideEcFileSystem reads through it meanwhile). Nothing was freed"
        + (raised ? " (the files' replication is already raised)" : " or changed") + "; rerun once it is back");
  }

  /** Inode id → current path of each file at or under the path (names in messages; renames are followed). */
  private Map<Long, String> currentPaths(Path path) throws IOException {
    Map<Long, String> out = new HashMap<>();
    java.util.ArrayDeque<org.apache.hadoop.fs.FileStatus> todo = new java.util.ArrayDeque<>();
    todo.push(dfs.getFileStatus(path));
    while (!todo.isEmpty()) {
      org.apache.hadoop.fs.FileStatus st = todo.pop();
      if (st.isDirectory()) {
        for (org.apache.hadoop.fs.FileStatus c : dfs.listStatus(st.getPath())) {
          todo.push(c);
        }
      } else if (st instanceof HdfsFileStatus h) {
        out.put(h.getFileId(), Path.getPathWithoutSchemeAndAuthority(st.getPath()).toString());
      }
    }
    return out;
  }

  private List<LocatedBlock> blocks(long inode) throws IOException {
    HdfsFileStatus st = status(inode);
    if (st == null) {
      return List.of();
    }
    String p = ArchiveLayout.inodePath(inode).toString();
    return dfs.getClient().getLocatedBlocks(p, 0, st.getLen()).getLocatedBlocks();
  }

  private HdfsFileStatus status(long inode) throws IOException {
    try {
      HdfsFileStatus st = dfs.getClient().getFileInfo(ArchiveLayout.inodePath(inode).toString());
      return st == null || st.isDirectory() ? null : st;
    } catch (FileNotFoundException e) {
      return null;
    }
  }
}
