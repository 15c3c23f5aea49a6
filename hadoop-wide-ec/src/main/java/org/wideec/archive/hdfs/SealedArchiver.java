package org.wideec.archive.hdfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.apache.hadoop.io.IOUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivePointer;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.CodewordSubsets;
import org.wideec.archive.SealedPlanner;
import org.wideec.archive.SourcePiece;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.archive.SymbolDecoder;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.coder.Kernels;

/**
 * Archives one file with a non-systematic code (RapidRAID) into the sealed layout. Per stripe:
 * PLANNED → ENCODING (codeword directory recorded, emptied) → the encoder writes the n codewords → PARITY_WRITTEN
 * (codeword blocks and CRC32Cs, source piece CRC32Cs) → VERIFIED (each codeword read back against its CRC, and the
 * reader's k-subset plus two random decodable ones decoded back to every piece's CRC) → COMMITTED. Once every stripe
 * is committed the file is sealed: a placeholder is made (owner, group, permission, ACL and times of the file; the
 * pointer xattr; the reader's index), the codewords and index stay the archiver's with ACL entries mirroring who may
 * read the file ({@link SealedFiles#mirrorReadAccess}), the file is checked unchanged once more,
 * and the placeholder is renamed over it (one NameNode operation: the file's blocks go with its old inode). Then
 * each stripe is recorded TRIMMED, which for a sealed file means "the original replicas are gone".
 *
 * <p>Every transition is recorded before it takes effect. A rerun resumes: ENCODING and PARITY_WRITTEN roll back to
 * PLANNED and are encoded again; VERIFIED goes on; COMMITTED stripes whose path is not sealed yet are sealed again
 * (a leftover placeholder and its index are removed first); a sealed path with COMMITTED stripes gets TRIMMED. Until
 * the rename nothing of the file is touched, so a failure at any step loses nothing. A file that changed since it was
 * planned makes every stripe STALE (recorded first) and its codewords are deleted.
 */
public final class SealedArchiver {
  private static final Logger LOG = LoggerFactory.getLogger(SealedArchiver.class);
  private static final int CHUNK = 1 << 20;
  /** Random decodable k-subsets checked per stripe besides the reader's own: subsets the reader never takes. */
  static final int RANDOM_SUBSETS = 2;

  /**
   * What a run did.
   *
   * @param sealed the path is a sealed placeholder now
   * @param stale one line per stripe found STALE
   */
  public record Result(StripeManifest manifest, boolean resumed, int rolledBack, long bytesRead, long bytesWritten,
      List<String> offPlan, List<String> stale, boolean sealed) {}

  /** Builds the encoder for the file at its current path. */
  @FunctionalInterface
  public interface EncoderFactory {
    CodewordEncoder encoderFor(Path file);
  }

  /** For fault-injection tests only: told before each step of the swap ({@code "moving"}, {@code "moved"}). */
  @FunctionalInterface
  public interface SwapHook {
    void before(String step) throws IOException;
  }

  /**
   * On the file's directory while its original sits in the archive's private directory (the swap's two renames):
   * the suffix is the archive inode, the value the file's path, so a rerun given the (empty) path finds the archive.
   */
  static final String SWAP_XATTR_PREFIX = "trusted.wideec.sealing.";

  private final DistributedFileSystem dfs;
  private final ManifestStore store;
  private final EncoderFactory encoders;
  private SwapHook swapHook = step -> { };
  private final Archiver.Hook hook;
  private final SealedFiles sealed;
  private final Random random;
  private long archiveInode;
  private StripeManifest manifest;

  public SealedArchiver(DistributedFileSystem dfs, ManifestStore store, EncoderFactory encoders, Archiver.Hook hook,
      long seed) {
    this.dfs = dfs;
    this.store = store;
    this.encoders = encoders;
    this.hook = hook;
    this.sealed = new SealedFiles(dfs, store.layout());
    this.random = new Random(seed);
  }

  /** Sets the {@link SwapHook} (fault-injection tests). */
  public SealedArchiver withSwapHook(SwapHook hook) {
    this.swapHook = hook;
    return this;
  }

  /** The classic client-side encoder, in chunks of {@code wide-ec.archive.classic.chunk.bytes}. */
  public static EncoderFactory classic(DistributedFileSystem dfs) {
    int chunk = (int) dfs.getConf().getLongBytes(ClientClassicEncoder.CHUNK_KEY, ClientClassicEncoder.CHUNK_DEFAULT);
    return file -> new ClientCodewordEncoder(dfs, file, chunk);
  }

  public Result archive(Path path, String codeSpec) throws IOException {
    String name = Path.getPathWithoutSchemeAndAuthority(path).toString();
    HdfsFileStatus st = dfs.getClient().getFileInfo(name);
    Long swapping = swappingArchive(name);
    if (swapping != null && (st == null || !SealedFiles.isSealed(st))) {
      // A run stopped between the swap's renames: the original is in the archive's private directory.
      try (java.io.Closeable held = store.lock(swapping)) {
        archiveInode = swapping;
        return archiveHeld(path, name, Codes.canonical(codeSpec), false);
      }
    }
    checkFile(name, st);
    long inode = st.getFileId();
    if (SealedFiles.isSealed(st)) {
      ArchivePointer p = store.pointer(path);
      if (p == null) {
        throw new IOException(name + " is a sealed placeholder without its " + ArchivalSource.POINTER_XATTR
            + " pointer; run wide-ec fsck");
      }
      inode = ArchiveLayout.archiveInodeOf(p.manifestPath());
    }
    try (java.io.Closeable held = store.lock(inode)) {
      archiveInode = inode;
      return archiveHeld(path, name, Codes.canonical(codeSpec), SealedFiles.isSealed(st));
    }
  }

  /**
   * The stripes a run would record for {@code path}, after the same checks, written nowhere ({@code --dry-run}).
   *
   * @throws IOException naming the file when it is sealed or being archived already (a run resumes it), or when a
   *     check refuses it
   */
  public StripeManifest plan(Path path, String codeSpec) throws IOException {
    String name = Path.getPathWithoutSchemeAndAuthority(path).toString();
    HdfsFileStatus st = dfs.getClient().getFileInfo(name);
    if (swappingArchive(name) != null && (st == null || !SealedFiles.isSealed(st))) {
      throw new IOException("a seal of " + name + " is mid-swap (its original waits in the archive's private"
          + " directory); rerun without --dry-run to finish it");
    }
    checkFile(name, st);
    if (SealedFiles.isSealed(st)) {
      throw new IOException(name + " is sealed already: nothing to plan (wide-ec status " + name + " shows it)");
    }
    if (store.find(st.getFileId()) != null) {
      throw new IOException(name + " is being archived already (manifest " + store.layout().manifest(st.getFileId())
          + "): its plan is recorded; rerun without --dry-run to resume it");
    }
    archiveInode = st.getFileId();
    return planChecked(name, Codes.canonical(codeSpec));
  }

  private static void checkFile(String name, HdfsFileStatus st) throws IOException {
    if (st == null) {
      throw new java.io.FileNotFoundException(name);
    }
    if (st.isDirectory()) {
      throw new IOException(name + " is a directory: a non-systematic code seals files one by one (each file's"
          + " codewords carry that file's permissions), so archive each file under it");
    }
  }

  /** The sealing checks, then the plan from the live cluster. */
  private StripeManifest planChecked(String name, String spec) throws IOException {
    sealed.checkNoZoneNorSnapshot(name);
    ArchivalSource source = new ArchivalSource(dfs);
    return SealedPlanner.plan(source.file(name), spec, source.liveTopology(),
        id -> store.layout().codewordDir(archiveInode, id).toString());
  }

  private Result archiveHeld(Path path, String name, String spec, boolean alreadySealed) throws IOException {
    manifest = store.find(archiveInode);
    boolean resumed = manifest != null;
    if (!resumed) {
      if (alreadySealed) {
        throw new IOException(name + " is sealed but its manifest " + store.layout().manifest(archiveInode)
            + " is gone; run wide-ec fsck");
      }
      manifest = planChecked(name, spec);
      sealed.ensurePolicy(); // before any byte is written: a NameNode without our codec refuses here
      store.write(archiveInode, manifest);
      hook.recorded(manifest, null);
    } else {
      for (ArchivedStripe s : manifest.stripes()) {
        if (!s.codeSpec().equals(spec)) {
          throw new IllegalArgumentException(name + " is already being archived with " + s.codeSpec() + " (manifest "
              + store.layout().manifest(archiveInode) + ", stripe " + s.stripeId() + "); rerun with --code "
              + s.codeSpec() + " to resume it");
        }
      }
      LOG.info("resuming {} from {}", name, store.layout().manifest(archiveInode));
    }
    if (alreadySealed) {
      // The codewords are the only copy of a sealed file's bytes: a manifest that says otherwise is corrupt (or
      // edited by hand), and nothing may be re-encoded, marked STALE or deleted on its word.
      for (ArchivedStripe s : manifest.stripes()) {
        if (s.state() != StripeState.VERIFIED && s.state() != StripeState.COMMITTED
            && s.state() != StripeState.TRIMMED) {
          throw new IOException(name + " is sealed, but its manifest " + store.layout().manifest(archiveInode)
              + " records stripe " + s.stripeId() + " as " + s.state() + "; nothing was changed. Run wide-ec fsck "
              + name + " (its reader's index holds a copy of the manifest)");
        }
      }
    }
    int rolledBack = 0;
    long read = 0;
    long written = 0;
    List<String> offPlan = new ArrayList<>();
    List<String> stale = new ArrayList<>();
    try {
      for (ArchivedStripe planned : manifest.stripes()) {
        ArchivedStripe s = planned;
        if (s.state() == StripeState.STALE) {
          stale.add("stripe " + s.stripeId() + " is STALE (recorded earlier)");
          continue;
        }
        if (s.state() == StripeState.ENCODING || s.state() == StripeState.PARITY_WRITTEN) {
          s = record(s.rolledBack());
          rolledBack++;
        }
        if (s.state() == StripeState.PLANNED) {
          checkUnchanged(path, s.stripeId());
          s = record(s.withState(StripeState.ENCODING));
          Path dir = new Path(s.parityFilePath());
          if (dfs.exists(dir) && !dfs.delete(dir, true)) {
            throw new IOException("stripe " + s.stripeId() + ": cannot empty its codeword directory " + dir);
          }
          CodewordEncoder.Encoded e = encoders.encoderFor(path).encode(s);
          read += e.bytesRead();
          written += e.bytesWritten();
          offPlan.addAll(e.offPlan());
          s = record(s.withMembers(e.codewords()).withSources(e.sources())
              .withParityFile(s.parityFilePath(), e.dirInode()).withState(StripeState.PARITY_WRITTEN));
        }
        if (s.state() == StripeState.PARITY_WRITTEN) {
          verify(s);
          if (!alreadySealed) {
            checkUnchanged(path, s.stripeId());
          }
          s = record(s.withState(StripeState.VERIFIED));
        }
        if (s.state() == StripeState.VERIFIED) {
          record(s.withState(StripeState.COMMITTED));
        }
      }
      boolean allCommitted = manifest.stripes().stream().allMatch(s -> s.state() == StripeState.COMMITTED
          || s.state() == StripeState.TRIMMED);
      boolean nowSealed = alreadySealed;
      if (allCommitted && !alreadySealed) {
        seal(path, name);
        nowSealed = true;
      }
      if (nowSealed) {
        finishSwap(name);
        for (ArchivedStripe s : manifest.stripes()) {
          if (s.state() == StripeState.COMMITTED) {
            record(s.withState(StripeState.TRIMMED));
          }
        }
      }
      return new Result(manifest, resumed, rolledBack, read, written, offPlan, stale, nowSealed);
    } catch (StaleStripeException e) {
      if (alreadySealed) {
        throw new IOException(name + " is sealed: its codewords are the only copy of its bytes and are kept ("
            + e.getMessage() + "); run wide-ec fsck " + name, e);
      }
      // Nothing was replaced yet: the file keeps every replica, so the codewords protect nothing and go.
      LOG.warn("{}; marking every stripe of {} STALE and deleting its codewords", e.getMessage(), name);
      for (ArchivedStripe s : manifest.stripes()) {
        if (s.state() != StripeState.STALE) {
          record(s.withState(StripeState.STALE));
          stale.add("stripe " + s.stripeId() + " is STALE: " + e.getMessage());
        }
      }
      if (dfs.exists(movedOriginal())) {
        throw new IOException(name + ": the original is still at " + movedOriginal() + "; move it back to " + name
            + " and rerun (its codewords are kept)", e);
      }
      dfs.delete(store.layout().codewordRoot(archiveInode), true);
      return new Result(manifest, resumed, rolledBack, read, written, offPlan, stale, false);
    }
  }

  /** The file's blocks are still exactly the planned pieces (ids, generation stamps, lengths), else STALE. */
  private void checkUnchanged(Path path, long stripeId) throws IOException {
    checkUnchanged(path, stripeId, false);
  }

  /**
   * As {@link #checkUnchanged(Path, long)}; {@code leaseHeld}: this run holds the file open for append (without a new
   * block yet), so "open for writing" is its own doing and not a change.
   */
  private void checkUnchanged(Path path, long stripeId, boolean leaseHeld) throws IOException {
    String name = Path.getPathWithoutSchemeAndAuthority(path).toString();
    HdfsFileStatus st = dfs.getClient().getFileInfo(name);
    List<SourcePiece> pieces = manifest.stripes().stream().flatMap(s -> s.sources().stream()).toList();
    String why = null;
    if (st == null || st.getFileId() != archiveInode) {
      why = name + " is no longer the file archived (inode " + archiveInode + ")";
    } else {
      LocatedBlocks lbs = dfs.getClient().getLocatedBlocks(name, 0, Math.max(1, st.getLen()));
      List<LocatedBlock> blocks = lbs.getLocatedBlocks();
      boolean open = lbs.isUnderConstruction() && !leaseHeld;
      if (open || blocks.size() != pieces.size()) {
        why = name + " has " + blocks.size() + " blocks" + (open ? " and is open for writing" : "")
            + ", the manifest " + pieces.size() + " pieces";
      } else {
        for (int i = 0; i < blocks.size() && why == null; i++) {
          LocatedBlock b = blocks.get(i);
          SourcePiece p = pieces.get(i);
          if (b.getBlock().getBlockId() != p.blockId() || b.getBlock().getGenerationStamp() != p.generationStamp()
              || b.getBlock().getNumBytes() != p.length()) {
            why = name + " block " + i + " is blk_" + b.getBlock().getBlockId() + "_" + b.getBlock().getGenerationStamp()
                + " of " + b.getBlock().getNumBytes() + " bytes, the manifest has blk_" + p.blockId() + "_"
                + p.generationStamp() + " of " + p.length();
          }
        }
      }
    }
    if (why != null) {
      throw new StaleStripeException(stripeId, "stripe " + stripeId + ": " + why + " (changed since it was planned)");
    }
  }

  /**
   * VERIFIED: each codeword file is still the recorded block and reads back to its CRC32C; the reader's k-subset
   * and {@link #RANDOM_SUBSETS} random decodable ones each decode every piece to its CRC32C.
   */
  private void verify(ArchivedStripe s) throws IOException {
    LinearCode code = s.code();
    for (int i = 0; i < code.n(); i++) {
      StripeMember m = s.member(i);
      Path file = CodewordFiles.file(s, i);
      String where = "stripe " + s.stripeId() + " codeword " + i + " (" + file + ")";
      LocatedBlocks lbs = dfs.getClient().getLocatedBlocks(file.toString(), 0, Math.max(1, m.length()));
      if (lbs.getLocatedBlocks().size() != 1 || lbs.get(0).getBlock().getBlockId() != m.blockId()
          || lbs.get(0).getBlock().getGenerationStamp() != m.generationStamp() || lbs.getFileLength() != m.length()) {
        throw new IOException(where + ": not the block " + m.blockId() + " of " + m.length() + " bytes the manifest"
            + " records; rerun to encode the stripe again");
      }
    }
    SealedStripeReader reader = new SealedStripeReader(dfs, s, new SymbolDecoder(code, Kernels.best()));
    try {
      long[] crcs = reader.codewordCrcs();
      for (int i = 0; i < code.n(); i++) {
        if (crcs[i] != s.member(i).crc32c()) {
          throw new IOException("stripe " + s.stripeId() + " codeword " + i + ": CRC32C read back 0x"
              + Long.toHexString(crcs[i]) + ", written 0x" + Long.toHexString(s.member(i).crc32c())
              + "; rerun to encode the stripe again");
        }
      }
      BitSet all = new BitSet();
      all.set(0, code.n());
      int[] preferred = CodewordSubsets.basis(code, all);
      List<int[]> subsets = new ArrayList<>();
      subsets.add(preferred);
      subsets.addAll(CodewordSubsets.randomDecodable(code, random, RANDOM_SUBSETS, preferred));
      for (int[] units : subsets) {
        long[] pieces = reader.pieceCrcs(units);
        for (int t = 0; t < s.sources().size(); t++) {
          if (pieces[t] != s.sources().get(t).crc32c()) {
            throw new IOException("stripe " + s.stripeId() + ": codewords " + java.util.Arrays.toString(units)
                + " decode piece " + t + " (block " + s.sources().get(t).blockId() + ") to CRC32C 0x"
                + Long.toHexString(pieces[t]) + ", the file's is 0x" + Long.toHexString(s.sources().get(t).crc32c())
                + "; rerun to encode the stripe again");
          }
        }
      }
      LOG.info("stripe {}: {} codewords read back, {} k-subsets decoded to every piece's CRC32C", s.stripeId(),
          code.n(), subsets.size());
    } finally {
      reader.close();
    }
  }

  /** Replaces the file by its placeholder: the step that makes the archival take effect. */
  private void seal(Path path, String name) throws IOException {
    sealed.checkNoZoneNorSnapshot(name); // again: a snapshot may have been taken while the stripes encoded
    Path tmp = new Path(store.layout().codewordRoot(archiveInode), "placeholder");
    HdfsFileStatus leftover = dfs.getClient().getFileInfo(tmp.toString());
    if (leftover != null) { // an earlier run stopped before its rename
      dfs.delete(store.layout().sealedIndex(leftover.getFileId()), false);
      dfs.delete(tmp, false);
    }
    HdfsFileStatus placeholder = sealed.createPlaceholder(tmp);
    sealed.writeIndex(placeholder.getFileId(), manifest);
    // The parts are the superuser's alone and linked to the placeholder before it takes the path: from the rename on,
    // whoever may read the path reads them (through the NameNode plugin), and nobody else.
    sealed.privatize(archiveInode, placeholder.getFileId());
    long[] ids = manifest.stripes().stream().mapToLong(ArchivedStripe::stripeId).toArray();
    store.setPointer(placeholder.getFileId(),
        new ArchivePointer(store.layout().manifest(archiveInode).toUri().getPath(), ids));
    swap(path, name, tmp, ids[0]);
    LOG.info("sealed {}: its {} bytes live as {} codewords per stripe in {}", name, SealedFiles.length(manifest),
        manifest.stripes().get(0).members().size(), store.layout().codewordRoot(archiveInode));
  }

  /**
   * Moves the original into the archive's private directory, takes its lease there (so no writer can append until it
   * is deleted), checks under that lease that it is still the file archived (inode, the planned blocks with their
   * generation stamps and lengths: an append opened or a file moved to the path just before is caught here, the file
   * moved back and the stripes marked STALE), then renames the placeholder in without overwriting and deletes the
   * original while still holding the lease. A marker on the directory lets a rerun finish a swap stopped between the
   * renames.
   */
  private void swap(Path path, String name, Path placeholder, long stripeId) throws IOException {
    Path moved = movedOriginal();
    Path parent = new Path(name).getParent();
    String marker = SWAP_XATTR_PREFIX + archiveInode;
    HdfsFileStatus there = dfs.getClient().getFileInfo(moved.toString());
    if (there == null) {
      checkUnchanged(path, stripeId, false);
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
        checkUnchanged(moved, stripeId, true);
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
  private void finishSwap(String name) throws IOException {
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
  private Path movedOriginal() {
    return new Path(store.layout().codewordRoot(archiveInode), "original");
  }

  /**
   * The archive whose swap of {@code name} stopped, from its directory's marker, or null. A marker is live while the
   * original waits aside in the archive's private directory, or is still at the path (the marker is set just before
   * it moves; the archive is named by the original's inode). Any other marker was left by a crash after the swap
   * ended (and the file may have been unsealed since): it is removed (best effort, it needs the superuser) and
   * ignored, so it never makes a later seal resume an archive that is gone.
   */
  private Long swappingArchive(String name) throws IOException {
    return SwapMarkers.live(dfs, SWAP_XATTR_PREFIX, name, archive -> {
      HdfsFileStatus at = dfs.getClient().getFileInfo(name);
      boolean originalAtPath = at != null && !at.isDirectory() && at.getFileId() == archive && !SealedFiles.isSealed(at);
      return originalAtPath
          || dfs.getClient().getFileInfo(new Path(store.layout().codewordRoot(archive), "original").toString()) != null;
    });
  }

  private ArchivedStripe record(ArchivedStripe next) throws IOException {
    manifest.stripe(next.stripeId()).state().checkTransition(next.stripeId(), next.state());
    manifest = manifest.with(next);
    store.write(archiveInode, manifest);
    hook.recorded(manifest, next);
    return next;
  }
}
