package org.wideec.archive.hdfs;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.EnumSet;
import java.util.Map;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.XAttrSetFlag;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivePointer;
import org.wideec.archive.CorruptManifestException;
import org.wideec.archive.StripeManifest;
import org.wideec.time.Backoff;

/**
 * Manifests in HDFS (DESIGN.md §3.2): one per archived file or directory at {@link ArchiveLayout#manifest}, keyed by
 * the archived path's inode id, and the pointer xattr ({@link ArchivalSource#POINTER_XATTR}) on each archived file.
 *
 * <p>A manifest is replaced atomically: the new bytes go to a temp file of the writer's own, are synced to the
 * DataNodes and closed, and the temp file is renamed over the manifest. A crash leaves either the old manifest or the
 * new one, never a torn one; a stray temp file is removed by the next run to take the archive's {@link #lock}. Reads check the whole format
 * ({@link StripeManifest#parse}): a corrupt manifest is an error naming its file, never a guess.
 */
public final class ManifestStore {
  private static final Logger LOG = LoggerFactory.getLogger(ManifestStore.class);
  /** Far above any real manifest (a 255-unit stripe takes about 25 KiB): a larger file is not one of ours. */
  static final long MAX_MANIFEST_BYTES = 512L << 20;

  private final DistributedFileSystem dfs;
  private final ArchiveLayout layout;

  public ManifestStore(DistributedFileSystem dfs, ArchiveLayout layout) {
    this.dfs = dfs;
    this.layout = layout;
  }

  public ArchiveLayout layout() {
    return layout;
  }

  /** The inode id of a path (file or directory). */
  public long inodeOf(Path path) throws IOException {
    HdfsFileStatus st = dfs.getClient().getFileInfo(Path.getPathWithoutSchemeAndAuthority(path).toString());
    if (st == null) {
      throw new FileNotFoundException(path.toString());
    }
    return st.getFileId();
  }

  /** The manifest of the file or directory with this inode id, or null when it was never archived. */
  public StripeManifest find(long archivedInode) throws IOException {
    Path p = layout.manifest(archivedInode);
    return dfs.exists(p) ? read(p) : null;
  }

  /** Reads and checks one manifest file. */
  public StripeManifest read(Path manifest) throws IOException {
    long length = dfs.getFileStatus(manifest).getLen();
    if (length > MAX_MANIFEST_BYTES) {
      throw new CorruptManifestException(CorruptManifestException.Reason.MALFORMED, manifest + ": " + length
          + " bytes, more than any manifest (" + MAX_MANIFEST_BYTES + "); not a wide-ec manifest");
    }
    byte[] bytes = new byte[(int) length];
    try (FSDataInputStream in = dfs.open(manifest)) {
      in.readFully(0, bytes);
    }
    return StripeManifest.parse(bytes, manifest.toString());
  }

  private static final String WRITER = Long.toHexString(new java.security.SecureRandom().nextLong() & Long.MAX_VALUE);
  private final java.util.concurrent.atomic.AtomicLong writes = new java.util.concurrent.atomic.AtomicLong();

  /** Records the manifest of the archive with this inode id: temp file, sync, close, rename over the old one. */
  /** Manifest writes this store has begun. */
  long writesBegun() {
    return writes.get();
  }

  public void write(long archivedInode, StripeManifest manifest) throws IOException {
    long start = System.nanoTime();
    Path target = layout.manifest(archivedInode);
    // A name of this writer's own: two runs never share (and so never delete or publish) each other's temp file.
    Path tmp = target.suffix("." + WRITER + "." + writes.incrementAndGet() + ".tmp");
    checkHeld(archivedInode, "writing the manifest " + target);
    layout.ensureDirs(dfs);
    byte[] bytes = manifest.toBytes();
    try (FSDataOutputStream out = dfs.create(tmp, true, 4096, layout.manifestReplication(),
        dfs.getDefaultBlockSize(tmp))) {
      out.write(bytes);
      out.hsync(); // on the DataNodes' disks before the rename makes it the manifest
    }
    try {
      checkHeld(archivedInode, "writing the manifest " + target); // still ours while the temp file was written
    } catch (IOException lost) {
      dfs.delete(tmp, false);
      throw lost;
    }
    dfs.rename(tmp, target, Options.Rename.OVERWRITE);
    LOG.debug("manifest {} recorded ({} bytes) in {} ms", target, bytes.length, (System.nanoTime() - start) / 1_000_000);
  }

  /** The locks this store holds, by archive inode id (see {@link #lock}). */
  private final Map<Long, HeldLock> held = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * Proves that this store still holds the lock of the archive with this inode id before the caller does
   * {@code what} (a manifest write, a setReplication, a delete). Another run may have recovered the lock's lease
   * while this one still lives (a retried map attempt takes its predecessor for dead); from then on this run must
   * change nothing. A no-op when this store holds no lock on that archive.
   *
   * @throws LostArchiveLockException naming the lock file, when the lock is no longer this store's
   */
  public void checkHeld(long archivedInode, String what) throws IOException {
    HeldLock lock = held.get(archivedInode);
    if (lock != null) {
      lock.prove(what);
    }
  }

  /**
   * Makes this process the only one working on the archive with this inode id, until the returned handle is
   * closed: the lock is a file kept open, so HDFS's lease stands for the holder (a run that died loses it when the
   * NameNode recovers its lease, about a minute later). Without it, two runs could roll back and re-encode each
   * other's stripes and overwrite each other's manifest. Stray temp files of crashed runs are removed once held.
   * A holder taken for dead may still live (YARN can start a task's next attempt while the old JVM runs): so every
   * manifest write of this store, and each setReplication or delete its callers make, first proves the lock is still
   * this store's ({@link #checkHeld}); once another run recovered it, this one stops with a
   * {@link LostArchiveLockException} naming the lock file.
   */
  public java.io.Closeable lock(long archivedInode) throws IOException {
    Path lock = lockPath(archivedInode);
    layout.ensureDirs(dfs);
    for (int attempt = 0; ; attempt++) {
      FSDataOutputStream out;
      try {
        out = dfs.create(lock, false);
      } catch (IOException e) {
        boolean released = dfs.exists(lock) && dfs.isFileClosed(lock); // its holder died and its lease was recovered
        if (attempt == 0 && released) {
          dfs.delete(lock, false);
          continue;
        }
        throw new IOException("another wide-ec archive run holds " + lock + "; wait for it to finish (if it died, HDFS"
            + " recovers its lease within about a minute, then rerun)", e);
      }
      out.write((holder + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
      out.hflush();
      HdfsFileStatus st = dfs.getClient().getFileInfo(lock.toUri().getPath());
      if (st == null) {
        out.close();
        throw new LostArchiveLockException(lock, "taking it", "the file vanished right after it was created");
      }
      HeldLock h = new HeldLock(archivedInode, lock, st.getFileId(), out);
      held.put(archivedInode, h);
      for (org.apache.hadoop.fs.FileStatus f : dfs.listStatus(layout.manifestDir())) {
        String name = f.getPath().getName();
        if (name.startsWith(archivedInode + ".wecm.") && name.endsWith(".tmp")) {
          h.prove("removing the stray temp file " + f.getPath());
          dfs.delete(f.getPath(), false);
        }
      }
      return h;
    }
  }

  /**
   * A lock this store holds: the lock file open for writing, so the NameNode's lease on that very inode is the proof
   * of holding it. {@link #prove} asks the NameNode (an {@code fsync} of the lock file by inode id and this client's
   * name, which checks the lease and moves no data) and fails once the lease was recovered or the file replaced.
   */
  private final class HeldLock implements java.io.Closeable {
    private final long archivedInode;
    private final Path path;
    private final long fileId;
    private final FSDataOutputStream out;
    private boolean lost;

    HeldLock(long archivedInode, Path path, long fileId, FSDataOutputStream out) {
      this.archivedInode = archivedInode;
      this.path = path;
      this.fileId = fileId;
      this.out = out;
    }

    synchronized void prove(String what) throws IOException {
      if (lost) {
        throw new LostArchiveLockException(path, what, "lost earlier");
      }
      try {
        dfs.getClient().getNamenode().fsync(path.toUri().getPath(), fileId, dfs.getClient().getClientName(), -1);
      } catch (IOException e) {
        lost = true;
        throw new LostArchiveLockException(path, what, e.getMessage());
      }
    }

    @Override
    public synchronized void close() throws IOException {
      held.remove(archivedInode, this);
      if (!lost) {
        try {
          prove("releasing it");
        } catch (LostArchiveLockException e) {
          // Another run holds the lock file now (or recovered it): it is not ours to delete.
        }
      }
      if (lost) {
        org.apache.hadoop.io.IOUtils.closeStream(out); // its lease is gone: completing the file fails, as it should
        return;
      }
      try {
        out.close();
      } finally {
        dfs.delete(path, false);
      }
    }
  }

  /**
   * The NameNode's clock now, for comparing with times it stamped (a manifest's modification time): the modification
   * time of a probe file created and deleted beside the archive's lock, which the caller holds. A client's own clock
   * may be minutes off the NameNode's, and an update's grace period must not end early because of that.
   */
  public long nameNodeNow(long archivedInode) throws IOException {
    checkHeld(archivedInode, "reading the NameNode's clock");
    Path probe = new Path(layout.manifestDir(), archivedInode + ".clock");
    dfs.create(probe, true).close();
    try {
      return dfs.getFileStatus(probe).getModificationTime();
    } finally {
      dfs.delete(probe, false);
    }
  }

  /** The lock file of the archive with this inode id (see {@link #lock}). */
  public Path lockPath(long archivedInode) {
    return new Path(layout.manifestDir(), archivedInode + ".lock");
  }

  /**
   * Names the holder this store's locks record (a MapReduce task records its attempt id, so a later attempt of the
   * same task can tell its dead predecessor's lock from another run's). Default: host name and process id.
   */
  public ManifestStore holder(String who) {
    if (who == null || who.isBlank() || who.contains("\n")) {
      throw new IllegalArgumentException("a lock holder is one non-blank line, got '" + who + "'");
    }
    holder = who;
    return this;
  }

  /** Who holds the archive's lock (the line its holder wrote), or null when it is free or its holder's lease is gone. */
  public String lockHolder(long archivedInode) throws IOException {
    Path lock = lockPath(archivedInode);
    try {
      if (dfs.isFileClosed(lock)) {
        return null;
      }
      try (FSDataInputStream in = dfs.open(lock)) {
        byte[] b = in.readAllBytes(); // an open file reads up to its last hflush, which is the holder's line
        return new String(b, java.nio.charset.StandardCharsets.UTF_8).strip();
      }
    } catch (FileNotFoundException e) {
      return null;
    }
  }

  /**
   * Takes the lease of a lock whose holder is known to be dead (the caller's proof: an earlier attempt of the same
   * task, or a task of a job that has ended) and waits, at most {@code waitMs}, until HDFS has closed the file; the
   * next {@link #lock} then finds it released. True when closed. Never call it for a holder that may be alive: two
   * runs would work on one archive.
   */
  public boolean releaseDeadHolder(long archivedInode, long waitMs) throws IOException {
    Path lock = lockPath(archivedInode);
    Backoff poll = Backoff.pollingNameNode(200, waitMs);
    boolean asked = false;
    while (true) {
      try {
        // recoverLease takes the lease now (no soft-limit wait) and starts recovering the open block; it returns true
        // once the file is closed. Asked once; then watched, as block recovery needs a DataNode heartbeat or two.
        if ((!asked && dfs.recoverLease(lock)) || dfs.isFileClosed(lock)) {
          return true;
        }
      } catch (FileNotFoundException e) {
        return true;
      }
      asked = true;
      if (poll.expired()) {
        return false;
      }
      poll.pause("interrupted while HDFS recovered the lease of " + lock);
    }
  }

  private String holder = defaultHolder();

  private static String defaultHolder() {
    try {
      return java.net.InetAddress.getLocalHost().getHostName() + " " + ProcessHandle.current().pid();
    } catch (java.net.UnknownHostException e) {
      return "unknown-host " + ProcessHandle.current().pid();
    }
  }

  /** The pointer on a file (any path, {@code /.reserved/.inodes/<id>} too), or null when it has none. */
  public ArchivePointer pointer(Path file) throws IOException {
    Map<String, byte[]> xattrs = dfs.getXAttrs(file);
    byte[] value = xattrs.get(ArchivalSource.POINTER_XATTR);
    return value == null ? null : ArchivePointer.parse(value, file.toString());
  }

  /** Sets (or replaces) the pointer on the file with this inode id. */
  public void setPointer(long fileInode, ArchivePointer pointer) throws IOException {
    dfs.setXAttr(ArchiveLayout.inodePath(fileInode), ArchivalSource.POINTER_XATTR, pointer.toBytes(),
        EnumSet.of(XAttrSetFlag.CREATE, XAttrSetFlag.REPLACE));
  }

  /**
   * The manifest that covers a path: its own (the path was archived itself) or, for a file archived as part of a
   * directory, the one its pointer names. Null when neither exists.
   */
  public StripeManifest covering(Path path) throws IOException {
    StripeManifest own = find(inodeOf(path));
    if (own != null || !dfs.getFileStatus(path).isFile()) {
      return own;
    }
    ArchivePointer p = pointer(path);
    return p == null ? null : read(new Path(p.manifestPath()));
  }
}
