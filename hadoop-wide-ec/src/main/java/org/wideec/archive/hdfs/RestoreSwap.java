package org.wideec.archive.hdfs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.XAttrSetFlag;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.wideec.archive.ArchivePointer;

/**
 * The non-systematic way back's release, the reverse of {@link SealSwap}: the restored copy, waiting in the archive's
 * private directory, gets the placeholder's owner, group, permission, ACL and times, the pointer (same manifest) and
 * {@link NonSystematicRestore#RESTORED_XATTR} (the reader's index to free, named by the placeholder's inode, which the
 * rename ends); then the placeholder is moved aside, checked to still be the one restored, and the restored copy
 * renamed in without overwriting: a file that took the path just before is never deleted. A marker on the directory
 * ({@link SwapMarkers}) lets a rerun finish a swap stopped between the renames.
 */
final class RestoreSwap {
  /** On the file's directory while its path is empty between the restore's renames; suffix: the archive inode. */
  static final String SWAP_XATTR_PREFIX = "trusted.wideec.unsealing.";

  private final DistributedFileSystem dfs;
  private final ArchiveLayout layout;
  private final long archive;
  private final String name;
  private final Path path;
  private final Unarchiver.Hook hook;

  RestoreSwap(DistributedFileSystem dfs, ArchiveLayout layout, long archive, String name, Unarchiver.Hook hook) {
    this.dfs = dfs;
    this.layout = layout;
    this.archive = archive;
    this.name = name;
    this.path = new Path(name);
    this.hook = hook;
  }

  /** Where the restored copy of the archive waits until it is renamed in. */
  static Path restoredCopy(ArchiveLayout layout, long archive) {
    return new Path(layout.codewordRoot(archive), "restored");
  }

  /**
   * The archive whose restore left {@code name}'s path empty between its renames (its directory's marker), or null.
   * A marker is live only while that archive's restored file waits in its private directory; once it is renamed in,
   * a marker left by a crash is stale: it is removed (best effort, as it needs the superuser) and ignored, so it
   * never blocks a later unarchive of the path.
   */
  static Long swappingArchive(DistributedFileSystem dfs, ArchiveLayout layout, String name) throws IOException {
    return SwapMarkers.live(dfs, SWAP_XATTR_PREFIX, name,
        archive -> dfs.getClient().getFileInfo(restoredCopy(layout, archive).toString()) != null);
  }

  /**
   * Gives the restored copy (inode {@code copyInode}, the one this run waited for) the placeholder's access, times,
   * pointer and index to free, then swaps it in.
   */
  void swapIn(HdfsFileStatus placeholder, ArchivePointer pointer, long copyInode) throws IOException {
    checkStill(placeholder);
    Path copy = restoredCopy(layout, archive);
    checkCopy(copyInode);
    FileStatus was = dfs.getFileStatus(path);
    new SealedFiles(dfs, layout).copyAccess(was, List.of(copy));
    dfs.setTimes(copy, was.getModificationTime(), was.getAccessTime());
    EnumSet<XAttrSetFlag> set = EnumSet.of(XAttrSetFlag.CREATE, XAttrSetFlag.REPLACE);
    dfs.setXAttr(copy, ArchivalSource.POINTER_XATTR, pointer.toBytes(), set);
    dfs.setXAttr(copy, NonSystematicRestore.RESTORED_XATTR, layout.sealedIndex(placeholder.getFileId()).toUri()
        .getPath().getBytes(StandardCharsets.UTF_8), set);
    checkStill(placeholder);
    swap(placeholder.getFileId(), copyInode);
  }

  /** The restored copy is still the file this run waited for (not one another run wrote there since). */
  private void checkCopy(long copyInode) throws IOException {
    Path copy = restoredCopy(layout, archive);
    HdfsFileStatus now = dfs.getClient().getFileInfo(copy.toString());
    if (now == null || now.getFileId() != copyInode) {
      throw new IOException("restoring " + name + ": the restored copy " + copy + " is no longer the file this run"
          + " waited for (inode " + copyInode + ", now " + (now == null ? "none" : "inode " + now.getFileId())
          + "); nothing was swapped in or freed: rerun");
    }
  }

  private void checkStill(HdfsFileStatus placeholder) throws IOException {
    HdfsFileStatus still = dfs.getClient().getFileInfo(name);
    if (still == null || still.getFileId() != placeholder.getFileId()) {
      throw new IOException(name + " changed while it was restored (it is no longer the sealed placeholder, inode "
          + placeholder.getFileId() + "); nothing was freed: rerun");
    }
  }

  /**
   * Moves the placeholder aside into the archive's private directory and checks there it is still the one restored
   * (else moves it back and fails), then renames the restored file in.
   */
  private void swap(long placeholderInode, long copyInode) throws IOException {
    Path aside = aside();
    String marker = SWAP_XATTR_PREFIX + archive;
    dfs.setXAttr(path.getParent(), marker, name.getBytes(StandardCharsets.UTF_8), EnumSet.of(XAttrSetFlag.CREATE,
        XAttrSetFlag.REPLACE));
    dfs.rename(path, aside, Options.Rename.NONE);
    HdfsFileStatus moved = dfs.getClient().getFileInfo(aside.toString());
    if (moved.getFileId() != placeholderInode) {
      dfs.rename(aside, path, Options.Rename.NONE);
      dfs.removeXAttr(path.getParent(), marker);
      throw new IOException(name + " changed while it was restored (it is no longer the sealed placeholder, inode "
          + placeholderInode + ", but inode " + moved.getFileId() + ", left in place); nothing was freed: rerun");
    }
    hook.after("aside");
    try {
      placeRestored(copyInode);
    } catch (IOException e) {
      if (!dfs.exists(path)) {
        // The restored file did not go in (its copy is gone or is not the one this run wrote): the placeholder
        // goes back to its path, so the sealed file stays readable and a rerun starts from it.
        try {
          dfs.rename(aside, path, Options.Rename.NONE);
          dfs.removeXAttr(path.getParent(), marker);
        } catch (IOException back) {
          e.addSuppressed(back);
        }
      }
      throw e;
    }
  }

  /**
   * Renames the restored file (inode {@code copyInode}) onto the (empty) path, then deletes the placeholder set aside
   * and the marker.
   */
  void placeRestored(long copyInode) throws IOException {
    Path copy = restoredCopy(layout, archive);
    checkCopy(copyInode);
    try {
      dfs.rename(copy, path, Options.Rename.NONE);
    } catch (FileAlreadyExistsException e) {
      throw new IOException("restoring " + name + " stopped: another file took its path while its placeholder was"
          + " moved aside; the restored file stays whole at " + copy + ". Move that file away and rerun", e);
    }
    hook.after("placed");
    dfs.delete(aside(), false);
    dfs.removeXAttr(path.getParent(), SWAP_XATTR_PREFIX + archive);
  }

  /** The restored file is at its path: a swap marker left by a crash after its rename is stale. */
  void removeStaleMarker() throws IOException {
    if (path.getParent() != null && dfs.getXAttrs(path.getParent()).containsKey(SWAP_XATTR_PREFIX + archive)) {
      dfs.removeXAttr(path.getParent(), SWAP_XATTR_PREFIX + archive);
    }
  }

  private Path aside() {
    return new Path(layout.codewordRoot(archive), "placeholder-aside");
  }
}
