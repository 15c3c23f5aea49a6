package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;

/**
 * The non-systematic layout's taking effect: the placeholder renamed in for the original, which goes with its inode.
 * The original is first moved aside into the archive's private directory and held there under its HDFS lease
 * ({@link OriginalLease}), checked unchanged under that lease, its access as it is now copied to the placeholder
 * (access follows the path: DESIGN.md §2), and deleted while still leased. A marker on the directory ({@link
 * SwapMarkers}) lets a rerun finish a swap stopped between the renames.
 */
final class SealSwap {
  /**
   * On the file's directory while its original sits in the archive's private directory (the swap's two renames):
   * the suffix is the archive inode, the value the file's path, so a rerun given the (empty) path finds the archive.
   */
  static final String SWAP_XATTR_PREFIX = "trusted.wideec.sealing.";

  /** The file still holds exactly the planned pieces, else StaleStripeException. */
  @FunctionalInterface
  interface Unchanged {
    /** @param leaseHeld this run holds the file open for append, so "open for writing" is its own doing */
    void check(Path file, long stripeId, boolean leaseHeld) throws IOException;
  }

  private final DistributedFileSystem dfs;
  private final ArchiveLayout layout;
  private final SealedFiles sealed;
  private final long archiveInode;
  private final Unchanged unchanged;
  private final SealedArchiver.SwapHook swapHook;

  SealSwap(DistributedFileSystem dfs, ArchiveLayout layout, long archiveInode, Unchanged unchanged,
      SealedArchiver.SwapHook swapHook) {
    this.dfs = dfs;
    this.layout = layout;
    this.sealed = new SealedFiles(dfs, layout);
    this.archiveInode = archiveInode;
    this.unchanged = unchanged;
    this.swapHook = swapHook;
  }

  /**
   * Moves the original into the archive's private directory, takes its lease there (so no writer can append until it
   * is deleted), checks under that lease that it is still the file archived (inode, the planned blocks with their
   * generation stamps and lengths: an append opened or a file moved to the path just before is caught here, the file
   * moved back and the stripes marked STALE), then renames the placeholder in without overwriting and deletes the
   * original while still holding the lease. A marker on the directory lets a rerun finish a swap stopped between the
   * renames.
   */
  void swap(Path path, String name, Path placeholder, long stripeId) throws IOException {
    Path moved = movedOriginal();
    Path parent = new Path(name).getParent();
    String marker = SWAP_XATTR_PREFIX + archiveInode;
    HdfsFileStatus there = dfs.getClient().getFileInfo(moved.toString());
    if (there == null) {
      unchanged.check(path, stripeId, false);
      dfs.setXAttr(parent, marker, name.getBytes(java.nio.charset.StandardCharsets.UTF_8),
          java.util.EnumSet.of(org.apache.hadoop.fs.XAttrSetFlag.CREATE, org.apache.hadoop.fs.XAttrSetFlag.REPLACE));
      swapHook.before("moving");
      dfs.rename(path, moved, Options.Rename.NONE);
    }
    OriginalLease lease = null;
    boolean deleted = false;
    try {
      try {
        lease = OriginalLease.take(dfs, moved, stripeId);
        unchanged.check(moved, stripeId, true);
      } catch (StaleStripeException e) {
        if (lease != null) {
          lease.release();
          lease = null;
        }
        moveBack(moved, path, name, parent, marker, e);
        throw e;
      }
      // The original's access as it is now, not as it was when the seal began: a chmod, chown or setfacl made while the
      // codewords were written must reach the placeholder. Aside and leased, the original cannot change any more.
      FileStatus now = dfs.getFileStatus(moved);
      sealed.copyAccess(now, List.of(placeholder));
      dfs.setTimes(placeholder, now.getModificationTime(), now.getAccessTime());
      swapHook.before("moved");
      try {
        dfs.rename(placeholder, path, Options.Rename.NONE);
      } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
        throw new IOException("sealing " + name + " stopped: another file took its path while its original (inode "
            + archiveInode + ") was moved aside to " + moved + ", where it stays whole. Move that file away and rerun"
            + " to finish sealing, or move " + moved + " back to cancel", e);
      }
      // Still under the lease taken before the check: no append can have reached the original since.
      dfs.delete(moved, false); // the original's replicas go with its inode, as a rename over it did
      deleted = true;
    } finally {
      if (lease != null) {
        if (deleted) {
          lease.abandon();
        } else {
          lease.release();
        }
      }
    }
    dfs.removeXAttr(parent, marker);
  }

  private void moveBack(Path moved, Path path, String name, Path parent, String marker, StaleStripeException why)
      throws IOException {
    try {
      dfs.rename(moved, path, Options.Rename.NONE);
    } catch (IOException back) {
      throw new IOException(name + " changed while it was being sealed (" + why.getMessage() + ") and cannot be moved"
          + " back (" + back.getMessage() + "): it is at " + moved + "; move it back by hand and rerun", back);
    }
    dfs.removeXAttr(parent, marker);
  }

  /** After a run stopped once the placeholder was in: deletes the original set aside and the marker. */
  void finishSwap(String name) throws IOException {
    HdfsFileStatus aside = dfs.getClient().getFileInfo(movedOriginal().toString());
    if (aside != null && aside.getFileId() == archiveInode) {
      dfs.delete(movedOriginal(), false);
    }
    Path parent = new Path(name).getParent();
    if (dfs.getXAttrs(parent).containsKey(SWAP_XATTR_PREFIX + archiveInode)) {
      dfs.removeXAttr(parent, SWAP_XATTR_PREFIX + archiveInode);
    }
  }

  /** Where the swap keeps the original between its renames. */
  Path movedOriginal() {
    return new Path(layout.codewordRoot(archiveInode), "original");
  }

  /**
   * The archive whose swap of {@code name} stopped, from its directory's marker, or null. A marker is live while the
   * original waits aside in the archive's private directory, or is still at the path (the marker is set just before
   * it moves; the archive is named by the original's inode). Any other marker was left by a crash after the swap
   * ended (and the file may have been unsealed since): it is removed (best effort, it needs the superuser) and
   * ignored, so it never makes a later seal resume an archive that is gone.
   */
  static Long swappingArchive(DistributedFileSystem dfs, ArchiveLayout layout, String name) throws IOException {
    return SwapMarkers.live(dfs, SWAP_XATTR_PREFIX, name, archive -> {
      HdfsFileStatus at = dfs.getClient().getFileInfo(name);
      boolean originalAtPath = at != null && !at.isDirectory() && at.getFileId() == archive && !SealedFiles.isSealed(at);
      return originalAtPath
          || dfs.getClient().getFileInfo(new Path(layout.codewordRoot(archive), "original").toString()) != null;
    });
  }
}
