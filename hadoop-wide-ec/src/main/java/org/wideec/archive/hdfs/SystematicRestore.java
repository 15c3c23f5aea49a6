package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.wideec.archive.ArchivePointer;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeLayout;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.UnarchiveLifecycle.Found;
import org.wideec.archive.UnarchiveLifecycle.Step;
import org.wideec.code.UnitRole;

/**
 * The systematic layout's way back (parity beside the file's own blocks, DESIGN.md §3.2): the blocks are the own copy,
 * so restoring it is raising their replication; releasing the layout removes the pointers, freeing deletes the parity.
 * A path with no manifest of its own is refused when it lies inside an archived directory, and a lone pointer to a
 * manifest that is gone (fsck: orphan-pointer) protects nothing: the file gets its replicas back and loses the pointer.
 */
final class SystematicRestore implements RestoreSteps {
  private final DistributedFileSystem dfs;
  private final ManifestStore store;
  private final RestoredReplicas replicas;
  private final Path path;
  private final String name;
  private final long inode;
  /** The archive whose lock the run takes: the path's own, or the one an orphan's pointer named. */
  private final long archive;
  private final Path manifestPath;
  /** The file's pointer to a manifest that is gone, or null when the path has its own manifest. */
  private final ArchivePointer orphan;
  private final Map<Long, String> files = new LinkedHashMap<>();
  private final Map<Long, String> where = new HashMap<>();
  private StripeManifest manifest;

  private SystematicRestore(DistributedFileSystem dfs, ManifestStore store, Path path, String name, long inode,
      long archive, Path manifestPath, ArchivePointer orphan) {
    this.dfs = dfs;
    this.store = store;
    this.replicas = new RestoredReplicas(dfs);
    this.path = path;
    this.name = name;
    this.inode = inode;
    this.archive = archive;
    this.manifestPath = manifestPath;
    this.orphan = orphan;
  }

  /**
   * The way back of the systematic archive at {@code path}, or null when the path has nothing of one. Refuses a path
   * inside an archived directory, and a file moved out of the directory whose manifest still names it.
   */
  static SystematicRestore locate(DistributedFileSystem dfs, ManifestStore store, Path path, String name)
      throws IOException {
    long inode = store.inodeOf(path);
    Path own = store.layout().manifest(inode);
    if (dfs.exists(own)) {
      return new SystematicRestore(dfs, store, path, name, inode, inode, own, null);
    }
    refuseInsideArchivedDirectory(dfs, store, name);
    ArchivePointer p = dfs.getFileStatus(path).isFile() ? store.pointer(path) : null;
    if (p == null) {
      return null;
    }
    if (dfs.exists(new Path(p.manifestPath()))) {
      StripeManifest owner = store.read(new Path(p.manifestPath()));
      throw new IOException(name + " was archived as part of " + owner.archivedPath() + " (manifest "
          + p.manifestPath() + "; the file has been moved out of it since): unarchive that directory");
    }
    long archive = RestoreSteps.archiveOf(name, p); // the archive the pointer named, gone or not
    return new SystematicRestore(dfs, store, path, name, inode, archive, new Path(p.manifestPath()), p);
  }

  /** A path inside an archived directory is that directory's to unarchive: refused, naming it. */
  private static void refuseInsideArchivedDirectory(DistributedFileSystem dfs, ManifestStore store, String name)
      throws IOException {
    for (Path p = new Path(name).getParent(); p != null; p = p.getParent()) {
      Path manifest = store.layout().manifest(store.inodeOf(p));
      if (dfs.exists(manifest)) {
        throw new IOException(name + " is inside the archived directory " + p.toUri().getPath() + " (manifest "
            + manifest.toUri().getPath() + "): its stripes span that directory's files, so unarchive "
            + p.toUri().getPath() + " itself");
      }
    }
  }

  @Override
  public StripeLayout layout() {
    return StripeLayout.SYSTEMATIC;
  }

  @Override
  public long archive() {
    return archive;
  }

  @Override
  public Found find() throws IOException {
    if (orphan != null) {
      return store.pointer(path) == null || dfs.exists(manifestPath) ? Found.NOT_ARCHIVED : Found.ORPHAN_POINTER;
    }
    if (!dfs.exists(manifestPath)) {
      return Found.NOT_ARCHIVED; // another run finished meanwhile
    }
    manifest = store.read(manifestPath);
    Map<Long, String> names = currentPaths();
    for (ArchivedStripe s : manifest.stripes()) {
      for (int u = 0; u < s.members().size(); u++) {
        StripeMember d = s.member(u);
        if (d.role() == UnitRole.DATA && !d.padding()) {
          where.put(d.blockId(), "stripe " + s.stripeId() + " unit " + u);
          if (!files.containsKey(d.inodeId()) && replicas.status(d.inodeId()) != null) {
            files.put(d.inodeId(), names.getOrDefault(d.inodeId(), ArchiveLayout.inodePath(d.inodeId()).toString()));
          }
        }
      }
    }
    return Found.ARCHIVED;
  }

  /** Inode id → current path of each file at or under the path (names in messages; renames are followed). */
  private Map<Long, String> currentPaths() throws IOException {
    Map<Long, String> out = new HashMap<>();
    ArrayDeque<FileStatus> todo = new ArrayDeque<>();
    todo.push(dfs.getFileStatus(path));
    while (!todo.isEmpty()) {
      FileStatus st = todo.pop();
      if (st.isDirectory()) {
        for (FileStatus c : dfs.listStatus(st.getPath())) {
          todo.push(c);
        }
      } else if (st instanceof HdfsFileStatus h) {
        out.put(h.getFileId(), Path.getPathWithoutSchemeAndAuthority(st.getPath()).toString());
      }
    }
    return out;
  }

  /** The file's own blocks are the copy: each must have a live replica before anything is raised. */
  @Override
  public void restore(short replication) throws IOException {
    replicas.checkNoneMissing(ownCopy(), where);
  }

  @Override
  public Map<Long, String> ownCopy() {
    return orphan != null ? Map.of(inode, name) : files;
  }

  @Override
  public Map<Long, String> where() {
    return where;
  }

  /** Removes the pointer of every file that points at the manifest (or the lone pointer of an orphan). */
  @Override
  public int release() throws IOException {
    String named = manifestPath.toUri().getPath();
    int pointers = 0;
    for (long f : ownCopy().keySet()) {
      ArchivePointer p = store.pointer(ArchiveLayout.inodePath(f));
      if (p != null && (orphan != null || p.manifestPath().equals(named))) {
        dfs.removeXAttr(ArchiveLayout.inodePath(f), ArchivalSource.POINTER_XATTR);
        pointers++;
      }
    }
    return pointers;
  }

  /**
   * Deletes the archive's parity root, its set-aside members and every stripe's parity directory; how many files they
   * held.
   */
  @Override
  public long free() throws IOException {
    long parityFiles = 0;
    // Members removed by wide-ec rm wait in the aside directory until their update is freed: they go with the rest.
    List<Path> parity = new ArrayList<>(List.of(store.layout().parityRoot(inode), store.layout().asideRoot(inode)));
    for (ArchivedStripe s : manifest.stripes()) {
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

  @Override
  public Path manifest() {
    return manifestPath;
  }

  @Override
  public String changing(Step step) {
    return step == Step.RELEASE ? "removing the pointers of " + name : "deleting the parity of " + name;
  }

  @Override
  public String doneName(Step step) {
    return switch (step) {
      case WAIT -> "replicated";
      case RELEASE -> "pointers";
      case FREE -> "parity";
      case RESTORE, FORGET -> null;
    };
  }

  @Override
  public int files() {
    return ownCopy().size();
  }

  @Override
  public int stripes() {
    return manifest == null ? 0 : manifest.stripes().size();
  }
}
