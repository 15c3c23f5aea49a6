package org.wideec.archive.hdfs;

import java.io.FileNotFoundException;
import java.io.IOException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsAction;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.security.AccessControlException;
import org.wideec.archive.ArchivePointer;
import org.wideec.archive.StripeManifest;

/**
 * The first step of removing an archived file ({@code wide-ec rm}): the file leaves the users' namespace at once, by a
 * rename into its archive's aside directory ({@link ArchiveLayout#asideFile}), while its blocks stay members of their
 * stripes, so no other member's protection drops before the parity update that zeroes them commits (DESIGN.md §2:
 * a change to one member never lowers the protection of the others). The rename is HDFS's own authorization of the
 * removal, made on the path as it is at that moment by the user the run acts for; a parent the user may not write is
 * refused first, naming the path and the user.
 */
final class MemberAside {
  /** A member file set aside: its path before, inode id, archive and where it waits. */
  record Hidden(String path, long inode, long archive, Path aside) {}

  private MemberAside() {}

  /** The archive holding the file at {@code path} (its pointer's manifest); refuses what an update cannot remove. */
  static long archiveOf(DistributedFileSystem dfs, ManifestStore store, Path path) throws IOException {
    String name = Path.getPathWithoutSchemeAndAuthority(path).toString();
    checkMayRemove(dfs, path);
    FileStatus st;
    try {
      st = dfs.getFileStatus(path);
    } catch (FileNotFoundException e) {
      throw new FileNotFoundException(name + " does not exist");
    }
    if (!st.isFile()) {
      throw new IOException(name + " is a directory; archived files are removed one by one (list them)");
    }
    ArchivePointer p = store.pointer(path);
    if (p == null) {
      throw new IOException(name + " is not an archived file (no stripe names it as committed);"
          + " remove it with hdfs dfs -rm");
    }
    StripeManifest m = store.read(new Path(p.manifestPath()));
    if (m.sealed()) {
      throw new IOException(name + " is sealed (" + m.stripes().get(0).codeSpec() + ": its units are"
          + " codewords, not its own blocks); unarchive it first");
    }
    long[] stripes = m.stripesOf(store.inodeOf(path));
    if (stripes.length == 0) {
      throw new IOException("no stripe of " + p.manifestPath() + " holds a block of " + name);
    }
    refuseSnapshotted(dfs, name);
    for (long id : stripes) {
      org.wideec.archive.StripeState state = m.stripe(id).state();
      if (state != org.wideec.archive.StripeState.COMMITTED && state != org.wideec.archive.StripeState.TRIMMED) {
        throw new IOException("stripe " + id + " of " + p.manifestPath() + ", which holds " + name + ", is "
            + state + ": only the parity of a committed stripe matches its data, so only it takes a delta update"
            + (state == org.wideec.archive.StripeState.STALE ? " (run wide-ec fsck " + m.archivedPath() + ")"
                : " (finish the archive run first)"));
      }
    }
    for (long id : stripes) {
      refuseChangedMembers(dfs, m.stripe(id), p.manifestPath(), m.archivedPath());
    }
    return ArchiveLayout.archiveInodeOf(p.manifestPath());
  }

  /**
   * A file a snapshot holds is refused: the update frees its blocks once the new parity commits, but the snapshot
   * keeps them, at the one replica the archive left and covered by no stripe any more (DESIGN.md §2: nothing we do
   * may leave bytes less protected than HDFS would).
   */
  private static void refuseSnapshotted(DistributedFileSystem dfs, String name) throws IOException {
    org.apache.hadoop.hdfs.protocol.SnapshottableDirectoryStatus snap = StripeTrim.snapshotted(dfs, name);
    if (snap != null) {
      throw new IOException(name + " is under " + snap.getFullPath() + ", which has " + snap.getSnapshotNumber()
          + " snapshot(s): they keep its blocks after the update would free them, unprotected; delete the snapshots"
          + " first, or unarchive");
    }
  }

  /**
   * Every other data member of a stripe the update touches must still be the block that was archived: an update
   * reads them (or decodes a deleted one) to verify the new parity, and a member appended to or truncated since is no
   * longer what the parity encodes. Refused before the file is set aside, so nothing is half done.
   */
  private static void refuseChangedMembers(DistributedFileSystem dfs, org.wideec.archive.ArchivedStripe stripe,
      String manifest, String archived) throws IOException {
    java.util.Set<Long> gone = new java.util.HashSet<>();
    for (org.wideec.archive.StripeMember mem : stripe.members()) {
      if (!mem.isParity() && !mem.padding() && ListedBlocks.status(dfs,
          ArchiveLayout.inodePath(mem.inodeId()).toString()) == null) {
        gone.add(mem.inodeId()); // deleted by a stock client: the update decodes its old bytes out of the parity
      }
    }
    try {
      StripeData.locate(dfs, stripe, gone);
    } catch (StaleStripeException e) {
      throw new IOException("stripe " + stripe.stripeId() + " of " + manifest + " holds a member changed since it was"
          + " archived (" + e.getMessage() + "): its parity no longer encodes it, so no delta update can start from it;"
          + " run wide-ec fsck " + archived + " first", e);
    }
  }

  /**
   * Refuses a user who may not remove the path now (no write access to its parent), naming both. HDFS's own check of
   * the rename that sets the file aside is the authority (sticky bits included); this one comes first so the refusal
   * names the user's path, not the system directory, and nothing of the archive is read for a user who may not.
   */
  static void checkMayRemove(DistributedFileSystem dfs, Path path) throws IOException {
    Path parent = path.getParent();
    try {
      dfs.access(parent, FsAction.WRITE_EXECUTE);
    } catch (AccessControlException e) {
      throw new AccessControlException("user " + org.apache.hadoop.security.UserGroupInformation
          .getCurrentUser().getShortUserName() + " may not remove " + Path.getPathWithoutSchemeAndAuthority(path)
          + " (no write access to " + Path.getPathWithoutSchemeAndAuthority(parent) + "): " + e.getMessage());
    }
  }

  /** Moves the file aside; the caller holds the archive's lock. */
  static Hidden hide(DistributedFileSystem dfs, ManifestStore store, Path path, long archive) throws IOException {
    String name = Path.getPathWithoutSchemeAndAuthority(path).toString();
    checkMayRemove(dfs, path);
    long inode = store.inodeOf(path);
    Path aside = store.layout().asideFile(archive, inode);
    store.layout().ensureDirs(dfs);
    dfs.mkdirs(aside.getParent(), ArchiveLayout.PRIVATE);
    store.checkHeld(archive, "setting " + name + " aside");
    if (!dfs.rename(path, aside)) {
      throw new IOException("HDFS did not move " + name + " to " + aside + " (it exists, or " + name
          + " vanished meanwhile)");
    }
    return new Hidden(name, inode, archive, aside);
  }

  /**
   * Checks what {@code wide-ec replace} takes as the new content: a closed file of its own, not archived, with no more
   * blocks than the file it replaces (its blocks take the old one's units in order; an old block left over leaves its
   * stripe), which the user may move.
   */
  static void checkReplacement(DistributedFileSystem dfs, ManifestStore store, Path path, Path src) throws IOException {
    String name = Path.getPathWithoutSchemeAndAuthority(src).toString();
    checkMayRemove(dfs, src);
    FileStatus st = dfs.getFileStatus(src);
    if (!st.isFile() || !dfs.isFileClosed(src)) {
      throw new IOException(name + " must be a closed file (the new content of "
          + Path.getPathWithoutSchemeAndAuthority(path) + ")");
    }
    if (store.pointer(src) != null) {
      throw new IOException(name + " is archived itself; its blocks are members of other stripes");
    }
    int have = dfs.getClient().getLocatedBlocks(name, 0, st.getLen()).locatedBlockCount();
    FileStatus old = dfs.getFileStatus(path);
    int had = dfs.getClient().getLocatedBlocks(Path.getPathWithoutSchemeAndAuthority(path).toString(), 0,
        old.getLen()).locatedBlockCount();
    if (have > had) {
      throw new IOException(name + " has " + have + " blocks, " + Path
          .getPathWithoutSchemeAndAuthority(path) + " " + had + ": a replacement takes the old blocks' units, so it has"
          + " at most as many (archive the longer content as a new file)");
    }
  }

  /**
   * Moves the file aside under a name that records its replacement, then renames the replacement in; the caller holds
   * the archive's lock. Until the second rename the path is empty: a rerun of the same replace finishes it
   * ({@link #unfinishedReplacement}).
   */
  static Hidden replace(DistributedFileSystem dfs, ManifestStore store, Path path, Path src, long archive)
      throws IOException {
    String name = Path.getPathWithoutSchemeAndAuthority(path).toString();
    checkMayRemove(dfs, path);
    long inode = store.inodeOf(path);
    Path aside = store.layout().asideReplaced(archive, inode, store.inodeOf(src));
    store.layout().ensureDirs(dfs);
    dfs.mkdirs(aside.getParent(), ArchiveLayout.PRIVATE);
    store.checkHeld(archive, "setting " + name + " aside for its replacement");
    if (!dfs.rename(path, aside)) {
      throw new IOException("HDFS did not move " + name + " to " + aside);
    }
    renameIn(dfs, src, path);
    return new Hidden(name, inode, archive, aside);
  }

  private static void renameIn(DistributedFileSystem dfs, Path src, Path path) throws IOException {
    if (!dfs.rename(src, path)) {
      throw new IOException("HDFS did not rename " + Path.getPathWithoutSchemeAndAuthority(src)
          + " to " + Path.getPathWithoutSchemeAndAuthority(path) + "; rerun the same replace to finish");
    }
  }

  /**
   * The archive of a replace that stopped between its two renames (the path empty, the old file aside under a name
   * naming {@code src}'s inode), with the rename finished now; -1 when there is none.
   */
  static long unfinishedReplacement(DistributedFileSystem dfs, ManifestStore store, Path path, Path src)
      throws IOException {
    if (dfs.exists(path) || !dfs.exists(src)) {
      return -1;
    }
    String suffix = ".by." + store.inodeOf(src);
    Path root = store.layout().asideRoot(0).getParent();
    if (!dfs.exists(root)) {
      return -1;
    }
    for (FileStatus archive : dfs.listStatus(root)) {
      for (FileStatus f : dfs.listStatus(archive.getPath())) {
        if (f.getPath().getName().endsWith(suffix)) {
          checkMayRemove(dfs, path);
          checkMayRemove(dfs, src);
          renameIn(dfs, src, path);
          return Long.parseLong(archive.getPath().getName());
        }
      }
    }
    return -1;
  }
}
