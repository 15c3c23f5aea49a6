package org.wideec.archive.hdfs;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivePointer;
import org.wideec.archive.StripeLayout;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.UnarchiveLifecycle.Found;
import org.wideec.archive.UnarchiveLifecycle.Step;

/**
 * The non-systematic layout's way back (a sealed file: its codewords are the only copy, DESIGN.md §3.2): restoring
 * decodes every piece into a temp file in the archive's private codeword directory ({@link PieceDecoder}) at the
 * wanted replication, which the unarchiver then waits for (by the copy's inode, so a file that took either path
 * meanwhile is never touched); releasing swaps that same inode in for the placeholder ({@link RestoreSwap});
 * freeing deletes the codeword directory and the reader's index; forgetting removes, after the manifest, the restored
 * file's two xattrs (last: they are what tells a rerun that freeing is unfinished; the {@link #RESTORED_XATTR} marker
 * before the pointer, as a pointer to a deleted manifest is what the systematic way back already finishes). A crash
 * before the swap's rename leaves the sealed file as it was (a rerun decodes again); between the renames a rerun puts
 * the restored file back first; after them, the path holds the restored bytes and a rerun waits for them and finishes
 * freeing.
 */
final class NonSystematicRestore implements RestoreSteps {
  private static final Logger LOG = LoggerFactory.getLogger(NonSystematicRestore.class);
  /** On a restored file until its sealed layout is freed: the reader's index to delete (a small path). */
  static final String RESTORED_XATTR = "trusted.wideec.restored";

  private final DistributedFileSystem dfs;
  private final ManifestStore store;
  private final Unarchiver.Hook hook;
  private final String name;
  private final Path path;
  private final long archive;
  private final ArchivePointer pointer;
  private StripeManifest manifest;
  /** The sealed placeholder being restored (found ARCHIVED), else null. */
  private HdfsFileStatus placeholder;
  /**
   * The inode of the restored copy this run wrote or found, the only file it waits for and swaps in: the copy's path
   * and the file's path may name another file by then (a user's file took the path, or a run taken for dead rewrote
   * the copy).
   */
  private long copyInode = -1;

  private NonSystematicRestore(DistributedFileSystem dfs, ManifestStore store, Unarchiver.Hook hook, String name,
      long archive, ArchivePointer pointer) {
    this.dfs = dfs;
    this.store = store;
    this.hook = hook;
    this.name = name;
    this.path = new Path(name);
    this.archive = archive;
    this.pointer = pointer;
  }

  /** True for a sealed placeholder, and for a restored file whose sealed layout is not freed yet. */
  static boolean applies(DistributedFileSystem dfs, ArchiveLayout layout, String name) throws IOException {
    if (RestoreSwap.swappingArchive(dfs, layout, name) != null) {
      return true; // a restore stopped between its renames, even if another file took the path since
    }
    HdfsFileStatus st = dfs.getClient().getFileInfo(name);
    if (st == null || st.isDirectory()) {
      return false;
    }
    return SealedFiles.isSealed(st) || dfs.getXAttrs(new Path(name)).containsKey(RESTORED_XATTR);
  }

  /**
   * The way back of the sealed file at {@code name}. A run stopped between the renames of a swap is found by its
   * marker, its pointer on the restored copy; a file that took the path meanwhile is left alone and the run fails.
   */
  static NonSystematicRestore locate(DistributedFileSystem dfs, ManifestStore store, String name,
      Unarchiver.Hook hook) throws IOException {
    Path path = new Path(name);
    Long swapping = RestoreSwap.swappingArchive(dfs, store.layout(), name);
    if (swapping != null) {
      HdfsFileStatus there = dfs.getClient().getFileInfo(name);
      if (there == null) {
        return new NonSystematicRestore(dfs, store, hook, name, swapping,
            pointerOf(store, RestoreSwap.restoredCopy(store.layout(), swapping), name));
      }
      if (!SealedFiles.isSealed(there) && !dfs.getXAttrs(path).containsKey(RESTORED_XATTR)) {
        throw new IOException("restoring " + name + " is unfinished, and another file (inode " + there.getFileId()
            + ") took its path meanwhile; it is left alone. The restored bytes stay whole at "
            + RestoreSwap.restoredCopy(store.layout(), swapping) + ", the codewords and manifest are kept."
            + " Move that file away and rerun");
      }
    }
    ArchivePointer p = pointerOf(store, path, name);
    return new NonSystematicRestore(dfs, store, hook, name, RestoreSteps.archiveOf(name, p), p);
  }

  private static ArchivePointer pointerOf(ManifestStore store, Path file, String name) throws IOException {
    ArchivePointer p = store.pointer(file);
    if (p == null) {
      throw new IOException(name + " is sealed but has no " + ArchivalSource.POINTER_XATTR + " pointer to its"
          + " manifest; run wide-ec fsck " + name + " (its reader's index holds a copy of the manifest)");
    }
    return p;
  }

  @Override
  public StripeLayout layout() {
    return StripeLayout.NON_SYSTEMATIC;
  }

  @Override
  public long archive() {
    return archive;
  }

  @Override
  public Found find() throws IOException {
    Path manifestPath = manifest();
    manifest = dfs.exists(manifestPath) ? store.read(manifestPath) : null;
    HdfsFileStatus st = dfs.getClient().getFileInfo(name);
    if (st == null) {
      // Only this archive's live swap marker makes the empty path a swap stopped between its renames: a leftover
      // copy of a refused run must never be placed where the placeholder was renamed away from.
      Long swapping = RestoreSwap.swappingArchive(dfs, store.layout(), name);
      HdfsFileStatus copy = dfs.getClient().getFileInfo(copy().toString());
      if (swapping == null || swapping != archive || copy == null) {
        throw new FileNotFoundException(name);
      }
      // The stopped run waited for this copy before it moved the placeholder aside: it goes back in place now, so the
      // path is not left empty while this run waits for its replicas again (that frees nothing).
      copyInode = copy.getFileId();
      store.checkHeld(archive, "putting the restored copy back at " + name);
      new RestoreSwap(dfs, store.layout(), archive, name, hook).placeRestored(copyInode);
      return Found.RESTORED;
    }
    if (SealedFiles.isSealed(st)) {
      if (manifest == null) {
        throw new IOException(name + " is sealed, but its manifest " + manifestPath + " is gone; run wide-ec fsck "
            + name + " (its reader's index " + store.layout().sealedIndex(st.getFileId()) + " holds a copy)");
      }
      ArchivePointer now = store.pointer(path);
      if (now == null || !now.manifestPath().equals(pointer.manifestPath())) {
        // Another sealed file took the path after it was located: its placeholder is not this archive's to replace.
        throw new IOException(name + " changed before it was restored: it is now a sealed file of "
            + (now == null ? "no manifest" : now.manifestPath()) + ", not of " + pointer.manifestPath()
            + "; nothing was changed: rerun");
      }
      placeholder = st;
      return Found.ARCHIVED;
    }
    Map<String, byte[]> xattrs = dfs.getXAttrs(path);
    if (xattrs.containsKey(RESTORED_XATTR) || xattrs.containsKey(ArchivalSource.POINTER_XATTR)) {
      copyInode = st.getFileId();
      return Found.RESTORED;
    }
    return Found.NOT_ARCHIVED; // another run finished meanwhile
  }

  @Override
  public void restore(short replication) throws IOException {
    copyInode = new PieceDecoder(dfs).restore(name, manifest, copy(), replication,
        what -> store.checkHeld(archive, what));
  }

  /** The restored copy this run wrote or found, by inode (at the path once swapped in, else beside the codewords). */
  @Override
  public Map<Long, String> ownCopy() {
    return Map.of(copyInode, name);
  }

  /** The restored copy swapped in for the placeholder, or (the restored file at its path already) a stale marker. */
  @Override
  public int release() throws IOException {
    RestoreSwap swap = new RestoreSwap(dfs, store.layout(), archive, name, hook);
    if (placeholder != null) {
      swap.swapIn(placeholder, pointer, copyInode);
      LOG.info("restored {}: {} bytes decoded from the codewords of {} stripes", name, SealedFiles.length(manifest),
          manifest.stripes().size());
    } else {
      swap.removeStaleMarker(); // the restored file is at its path (find() put a stopped swap's copy back)
    }
    return 1;
  }

  /** Deletes the codeword directory, then the reader's index the restored file names; the codewords counted. */
  @Override
  public long free() throws IOException {
    dfs.delete(store.layout().codewordRoot(archive), true);
    hook.after("codewords");
    byte[] index = dfs.getXAttrs(path).get(RESTORED_XATTR);
    if (index != null) {
      dfs.delete(new Path(new String(index, StandardCharsets.UTF_8)), false);
    }
    return manifest == null ? 0 : manifest.stripes().stream().mapToLong(s -> s.members().size()).sum();
  }

  @Override
  public Path manifest() {
    return new Path(pointer.manifestPath());
  }

  /** The marker first: a pointer left alone names a deleted manifest, which the systematic way back finishes. */
  @Override
  public void forget() throws IOException {
    Map<String, byte[]> xattrs = dfs.getXAttrs(path);
    if (xattrs.containsKey(RESTORED_XATTR)) {
      dfs.removeXAttr(path, RESTORED_XATTR);
    }
    if (xattrs.containsKey(ArchivalSource.POINTER_XATTR)) {
      dfs.removeXAttr(path, ArchivalSource.POINTER_XATTR);
    }
  }

  @Override
  public String changing(Step step) {
    return step == Step.RELEASE ? "swapping the restored copy in for " + name : "deleting the codewords of " + name;
  }

  @Override
  public String doneName(Step step) {
    return switch (step) {
      case WAIT -> "decoded";
      case RELEASE -> "renamed";
      case FREE -> "index";
      case FORGET -> "pointer";
      case RESTORE -> "written";
    };
  }

  @Override
  public int files() {
    return 1;
  }

  @Override
  public int stripes() {
    return manifest == null ? 0 : manifest.stripes().size();
  }

  private Path copy() {
    return RestoreSwap.restoredCopy(store.layout(), archive);
  }
}
