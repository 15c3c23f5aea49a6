package org.wideec.archive.hdfs;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.EnumSet;
import java.util.Map;
import java.util.zip.CRC32C;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.XAttrSetFlag;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivePointer;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.CodewordSubsets;
import org.wideec.archive.SourcePiece;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.SymbolDecoder;
import org.wideec.coder.Kernels;

/**
 * {@code wide-ec unarchive} of a sealed file: the file's bytes back as a plain replicated file at
 * its path, then the codewords, the reader's index and the manifest freed. In the one safe order, under the archive's
 * lock:
 * <ol>
 *   <li><b>decode</b> every piece from live codewords of its stripe (the first independent ones; a codeword whose read
 *       fails is dropped and another subset taken) into a temp file in the archive's private codeword directory, at
 *       the wanted replication, each piece checked against the manifest's CRC32C while written and again read back
 *       once closed; then wait until each block has that many live replicas;</li>
 *   <li>give the temp file the placeholder's owner, group, permission, ACL and times, and two xattrs: the pointer
 *       (same manifest) and {@link #RESTORED_XATTR}, the reader's index to free (named by the placeholder's inode,
 *       which the rename ends);</li>
 *   <li><b>swap</b>: move the placeholder aside into the private directory, check it is still the one restored,
 *       and rename the restored file in without overwriting (a rerun finishes a swap stopped in between);</li>
 *   <li><b>free</b>: the codeword directory, the reader's index, the manifest, then both xattrs (last: they are what
 *       tells a rerun that freeing is unfinished; the marker before the pointer, as a pointer to a deleted manifest
 *       is what the plain unarchive already finishes).</li>
 * </ol>
 * A crash before the rename leaves the sealed file as it was (a rerun decodes again); after it, the path holds the
 * restored bytes and a rerun finishes freeing. Nothing is freed before the restored file is at its path, whole.
 */
final class SealedUnarchiver {
  private static final Logger LOG = LoggerFactory.getLogger(SealedUnarchiver.class);
  /** On a restored file until its sealed layout is freed: the reader's index to delete (a small path). */
  static final String RESTORED_XATTR = "trusted.wideec.restored";
  /** On the file's directory while its path is empty between the restore's renames; suffix: the archive inode. */
  static final String SWAP_XATTR_PREFIX = "trusted.wideec.unsealing.";
  private static final int CHUNK = 1 << 20;

  private final DistributedFileSystem dfs;
  private final ManifestStore store;
  private final Unarchiver plain;
  private final Unarchiver.Hook hook;

  SealedUnarchiver(DistributedFileSystem dfs, ManifestStore store, Unarchiver plain, Unarchiver.Hook hook) {
    this.dfs = dfs;
    this.store = store;
    this.plain = plain;
    this.hook = hook;
  }

  /** True for a sealed placeholder, and for a restored file whose sealed layout is not freed yet. */
  static boolean applies(DistributedFileSystem dfs, ArchiveLayout layout, String name) throws IOException {
    if (swappingArchive(dfs, layout, name) != null) {
      return true; // a restore stopped between its renames, even if another file took the path since
    }
    HdfsFileStatus st = dfs.getClient().getFileInfo(name);
    if (st == null) {
      return false;
    }
    if (st.isDirectory()) {
      return false;
    }
    return SealedFiles.isSealed(st) || dfs.getXAttrs(new Path(name)).containsKey(RESTORED_XATTR);
  }

  Unarchiver.Result unarchive(String name, short replication, Unarchiver.Progress progress) throws IOException {
    Path path = new Path(name);
    finishStoppedSwap(name, path);
    ArchivePointer pointer = store.pointer(path);
    if (pointer == null) {
      throw new IOException(name + " is sealed but has no " + ArchivalSource.POINTER_XATTR + " pointer to its"
          + " manifest; run wide-ec fsck " + name + " (its reader's index holds a copy of the manifest)");
    }
    long archive = ArchiveLayout.archiveInodeOf(pointer.manifestPath());
    try (java.io.Closeable held = store.lock(archive)) {
      HdfsFileStatus st = dfs.getClient().getFileInfo(name);
      if (st == null) {
        throw new FileNotFoundException(name);
      }
      Path manifestPath = new Path(pointer.manifestPath());
      Restored restored = SealedFiles.isSealed(st)
          ? restoreSealed(name, pointer, archive, st, replication, progress) : new Restored(0, 0, 0);
      free(path, archive, manifestPath);
      return new Unarchiver.Result(name, true, manifestPath.toUri().getPath(), 1, restored.blocks(), replication,
          restored.stripes(), restored.codewords(), 1);
    }
  }

  /**
   * A run stopped between the renames of a swap: the restored file goes in now if the path is empty; a file that took
   * the path meanwhile is left alone and the run fails.
   */
  private void finishStoppedSwap(String name, Path path) throws IOException {
    Long swapping = swappingArchive(dfs, store.layout(), name);
    if (swapping == null) {
      return;
    }
    HdfsFileStatus there = dfs.getClient().getFileInfo(name);
    if (there == null) {
      try (java.io.Closeable held = store.lock(swapping)) {
        placeRestored(name, swapping); // a run stopped between the renames: the restored file goes in now
      }
    } else if (!SealedFiles.isSealed(there) && !dfs.getXAttrs(path).containsKey(RESTORED_XATTR)) {
      throw new IOException("restoring " + name + " is unfinished, and another file (inode " + there.getFileId()
          + ") took its path meanwhile; it is left alone. The restored bytes stay whole at "
          + new Path(store.layout().codewordRoot(swapping), "restored") + ", the codewords and manifest are kept."
          + " Move that file away and rerun");
    }
  }

  /** What restoring a sealed file gave: the stripes and codewords it was decoded from, the blocks replicated. */
  private record Restored(int stripes, long codewords, long blocks) {}

  /**
   * Decodes the sealed placeholder {@code st} into a replicated file beside its codewords, gives it the placeholder's
   * access, times and pointer, and swaps it in (the archive's lock held).
   */
  private Restored restoreSealed(String name, ArchivePointer pointer, long archive, HdfsFileStatus st, short replication,
      Unarchiver.Progress progress) throws IOException {
    Path path = new Path(name);
    Path manifestPath = new Path(pointer.manifestPath());
    if (!dfs.exists(manifestPath)) {
      throw new IOException(name + " is sealed, but its manifest " + manifestPath + " is gone; run wide-ec fsck "
          + name + " (its reader's index " + store.layout().sealedIndex(st.getFileId()) + " holds a copy)");
    }
    StripeManifest m = store.read(manifestPath);
    int stripes = m.stripes().size();
    long codewords = m.stripes().stream().mapToLong(s -> s.members().size()).sum();
    Path tmp = new Path(store.layout().codewordRoot(archive), "restored");
    restore(name, m, tmp, replication);
    long blocks = plain.replicate(Map.of(dfs.getClient().getFileInfo(tmp.toString()).getFileId(), name), Map.of(),
        replication, progress);
    hook.after("decoded");
    FileStatus placeholder = dfs.getFileStatus(path);
    new SealedFiles(dfs, store.layout()).copyAccess(placeholder, java.util.List.of(tmp));
    dfs.setTimes(tmp, placeholder.getModificationTime(), placeholder.getAccessTime());
    dfs.setXAttr(tmp, ArchivalSource.POINTER_XATTR, pointer.toBytes(), EnumSet.of(XAttrSetFlag.CREATE,
        XAttrSetFlag.REPLACE));
    dfs.setXAttr(tmp, RESTORED_XATTR, store.layout().sealedIndex(st.getFileId()).toUri().getPath()
        .getBytes(StandardCharsets.UTF_8), EnumSet.of(XAttrSetFlag.CREATE, XAttrSetFlag.REPLACE));
    HdfsFileStatus still = dfs.getClient().getFileInfo(name);
    if (still == null || still.getFileId() != st.getFileId()) {
      throw new IOException(name + " changed while it was restored (it is no longer the sealed placeholder, inode "
          + st.getFileId() + "); nothing was freed: rerun");
    }
    swap(name, archive, st.getFileId());
    hook.after("renamed");
    LOG.info("restored {}: {} bytes decoded from the codewords of {} stripes, at replication {}", name,
        SealedFiles.length(m), stripes, replication);
    return new Restored(stripes, codewords, blocks);
  }

  /**
   * Moves the placeholder aside into the archive's private directory and checks there it is still the one restored
   * (else moves it back and fails), then renames the restored file in without overwriting: a file that took the path
   * just before is never deleted. A marker on the directory lets a rerun finish a swap stopped between the renames.
   */
  private void swap(String name, long archive, long placeholderInode) throws IOException {
    Path path = new Path(name);
    Path aside = new Path(store.layout().codewordRoot(archive), "placeholder-aside");
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
    placeRestored(name, archive);
  }

  /** Renames the restored file onto the (empty) path, then deletes the placeholder set aside and the marker. */
  private void placeRestored(String name, long archive) throws IOException {
    Path path = new Path(name);
    Path tmp = new Path(store.layout().codewordRoot(archive), "restored");
    try {
      dfs.rename(tmp, path, Options.Rename.NONE);
    } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
      throw new IOException("restoring " + name + " stopped: another file took its path while its placeholder was"
          + " moved aside; the restored file stays whole at " + tmp + ". Move that file away and rerun", e);
    }
    hook.after("placed");
    dfs.delete(new Path(store.layout().codewordRoot(archive), "placeholder-aside"), false);
    dfs.removeXAttr(path.getParent(), SWAP_XATTR_PREFIX + archive);
  }

  /**
   * The archive whose restore left {@code name}'s path empty between its renames (its directory's marker), or null.
   * A marker is live only while that archive's restored file waits in its private directory; once it is renamed in,
   * a marker left by a crash is stale: it is removed (best effort, as it needs the superuser) and ignored, so it
   * never blocks a later unarchive of the path.
   */
  static Long swappingArchive(DistributedFileSystem dfs, ArchiveLayout layout, String name) throws IOException {
    return SwapMarkers.live(dfs, SWAP_XATTR_PREFIX, name,
        archive -> dfs.getClient().getFileInfo(new Path(layout.codewordRoot(archive), "restored").toString()) != null);
  }

  /** Frees the sealed layout of a restored file, each step idempotent, the xattrs last. */
  private void free(Path path, long archive, Path manifestPath) throws IOException {
    // The restored file is at its path: a swap marker left by a crash after its rename is stale.
    if (path.getParent() != null && dfs.getXAttrs(path.getParent()).containsKey(SWAP_XATTR_PREFIX + archive)) {
      dfs.removeXAttr(path.getParent(), SWAP_XATTR_PREFIX + archive);
    }
    dfs.delete(store.layout().codewordRoot(archive), true);
    hook.after("codewords");
    byte[] index = dfs.getXAttrs(path).get(RESTORED_XATTR);
    if (index != null) {
      dfs.delete(new Path(new String(index, StandardCharsets.UTF_8)), false);
    }
    hook.after("index");
    dfs.delete(manifestPath, false);
    hook.after("manifest");
    // The marker first: a crash before the pointer goes leaves a pointer to a deleted manifest, which the plain
    // unarchive finishes (it removes such a pointer), while a marker without its pointer would name nothing.
    if (index != null) {
      dfs.removeXAttr(path, RESTORED_XATTR);
    }
    if (dfs.getXAttrs(path).containsKey(ArchivalSource.POINTER_XATTR)) {
      dfs.removeXAttr(path, ArchivalSource.POINTER_XATTR);
    }
    hook.after("pointer");
  }

  /** Decodes every piece into {@code tmp} (replacing a leftover of a crashed run), checked twice by CRC32C. */
  private void restore(String name, StripeManifest m, Path tmp, short replication) throws IOException {
    long length = SealedFiles.length(m);
    long largest = m.stripes().stream().flatMap(s -> s.sources().stream()).mapToLong(SourcePiece::length).max()
        .orElse(0);
    long pieces = m.stripes().stream().mapToLong(s -> s.sources().size()).sum();
    // The original block size: every piece but the last was a full block; a one-block file keeps the default.
    long blockSize = pieces > 1 ? largest : Math.max(largest, dfs.getDefaultBlockSize(tmp));
    dfs.delete(tmp, false); // a crashed run's (open or closed) leftover
    try (FSDataOutputStream out = dfs.create(tmp, new FsPermission((short) 0600), false, 64 * 1024, replication,
        blockSize, null)) {
      for (ArchivedStripe s : m.stripes()) {
        decodeStripe(name, s, out);
      }
    }
    HdfsFileStatus written = dfs.getClient().getFileInfo(tmp.toString());
    if (written.getLen() != length) {
      throw new IOException(name + ": the restored copy " + tmp + " has " + written.getLen() + " bytes, the manifest "
          + length + "; nothing was freed: rerun");
    }
    byte[] buf = new byte[CHUNK];
    try (FSDataInputStream in = dfs.open(tmp)) {
      for (ArchivedStripe s : m.stripes()) {
        for (int t = 0; t < s.sources().size(); t++) {
          SourcePiece p = s.sources().get(t);
          CRC32C crc = new CRC32C();
          for (long pos = 0; pos < p.length(); pos += buf.length) {
            int len = (int) Math.min(buf.length, p.length() - pos);
            in.readFully(p.offset() + pos, buf, 0, len);
            crc.update(buf, 0, len);
          }
          check(name, s, t, crc.getValue(), "read back from " + tmp);
        }
      }
    }
  }

  private void decodeStripe(String name, ArchivedStripe s, FSDataOutputStream out) throws IOException {
    BitSet live = liveCodewords(s);
    byte[] buf = new byte[(int) Math.min(CHUNK, Math.max(1, s.unitLength()))];
    try (SealedStripeReader reader = new SealedStripeReader(dfs, s, new SymbolDecoder(s.code(), Kernels.best()))) {
      for (int t = 0; t < s.sources().size(); t++) {
        SourcePiece p = s.sources().get(t);
        CRC32C crc = new CRC32C();
        for (long pos = 0; pos < p.length(); pos += buf.length) {
          int len = (int) Math.min(buf.length, p.length() - pos);
          while (true) {
            int[] units;
            try {
              units = CodewordSubsets.basis(s.code(), live);
            } catch (RuntimeException e) {
              throw new IOException(name + ": stripe " + s.stripeId() + " cannot be decoded from the codewords left "
                  + live + " (" + e.getMessage() + "); nothing was freed", e);
            }
            try {
              reader.readPiece(units, t, pos, buf, 0, len);
              break;
            } catch (IOException e) {
              // Which codeword failed is not known: drop the whole subset's streams, and the first codeword read
              // failing on its own is retried by the next subset; a subset failing twice loses its first unit.
              int failed = firstFailing(reader, units, pos, len);
              LOG.warn("{}: stripe {} codeword {} unreadable ({}); decoding from others", name, s.stripeId(), failed,
                  e.toString());
              live.clear(failed);
              reader.drop(failed);
            }
          }
          out.write(buf, 0, len);
          crc.update(buf, 0, len);
        }
        check(name, s, t, crc.getValue(), "decoded");
      }
    }
  }

  /** The first of the units whose own range read fails (the last unit when each reads alone). */
  private int firstFailing(SealedStripeReader reader, int[] units, long pos, int len) {
    byte[] probe = new byte[len];
    for (int u : units) {
      reader.drop(u);
      try (FSDataInputStream in = dfs.open(CodewordFiles.file(reader.stripe(), u))) {
        in.readFully(pos, probe, 0, len);
      } catch (IOException e) {
        return u;
      }
    }
    return units[units.length - 1];
  }

  /** Codewords whose file still holds the recorded block with a live replica. */
  private BitSet liveCodewords(ArchivedStripe s) throws IOException {
    BitSet live = new BitSet();
    for (int u = 0; u < s.members().size(); u++) {
      StripeMember c = s.member(u);
      if (c.padding()) {
        continue;
      }
      LocatedBlocks lbs;
      try {
        lbs = dfs.getClient().getLocatedBlocks(CodewordFiles.file(s, u).toString(), 0, Math.max(1, c.length()));
      } catch (FileNotFoundException e) {
        continue;
      }
      if (lbs == null || lbs.getLocatedBlocks().size() != 1) {
        continue;
      }
      LocatedBlock b = lbs.get(0);
      if (b.getBlock().getBlockId() == c.blockId() && b.getBlock().getGenerationStamp() == c.generationStamp()
          && b.getBlock().getNumBytes() == c.length() && b.getLocations().length > 0 && !b.isCorrupt()) {
        live.set(u);
      }
    }
    return live;
  }

  private static void check(String name, ArchivedStripe s, int t, long crc, String how) throws IOException {
    SourcePiece p = s.sources().get(t);
    if (crc != p.crc32c()) {
      throw new IOException(name + ": stripe " + s.stripeId() + " piece " + t + " (block " + p.blockId() + ", offset "
          + p.offset() + ") " + how + " to CRC32C 0x" + Long.toHexString(crc) + ", the manifest records 0x"
          + Long.toHexString(p.crc32c()) + "; nothing was freed");
    }
  }
}
