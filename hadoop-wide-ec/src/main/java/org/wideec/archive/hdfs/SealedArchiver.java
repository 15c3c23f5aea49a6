package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivePointer;
import org.wideec.archive.SealedPlanner;
import org.wideec.archive.StripeLifecycle;
import org.wideec.archive.StripeManifest;
import org.wideec.code.Codes;

/**
 * Archives one file with a non-systematic code (RapidRAID) into the sealed layout: finds which archive a path is
 * (a sealed placeholder names it by pointer, a swap stopped half way by its directory's marker), records or resumes
 * its plan, and lets the {@link Archiver} step it through the {@link StripeLifecycle} with the {@link
 * NonSystematicSteps}. Per stripe:
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
    StripeEncoder encoderFor(Path file);
  }

  /** For fault-injection tests only: told before each step of the swap ({@code "moving"}, {@code "moved"}). */
  @FunctionalInterface
  public interface SwapHook {
    void before(String step) throws IOException;
  }

  private final DistributedFileSystem dfs;
  private final ManifestStore store;
  private final EncoderFactory encoders;
  private SwapHook swapHook = step -> { };
  private final Archiver.Hook hook;
  private final SealedFiles sealed;
  private final Random random;

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
    Long swapping = SealSwap.swappingArchive(dfs, store.layout(), name);
    if (swapping != null && (st == null || !SealedFiles.isSealed(st))) {
      // A run stopped between the swap's renames: the original is in the archive's private directory.
      try (java.io.Closeable held = store.lock(swapping)) {
        return archiveHeld(swapping, path, name, Codes.canonical(codeSpec), false);
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
      return archiveHeld(inode, path, name, Codes.canonical(codeSpec), SealedFiles.isSealed(st));
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
    if (SealSwap.swappingArchive(dfs, store.layout(), name) != null && (st == null || !SealedFiles.isSealed(st))) {
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
    return planChecked(st.getFileId(), name, Codes.canonical(codeSpec));
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
  private StripeManifest planChecked(long archiveInode, String name, String spec) throws IOException {
    sealed.checkNoZoneNorSnapshot(name);
    ArchivalSource source = new ArchivalSource(dfs);
    return SealedPlanner.plan(source.file(name), spec, source.liveTopology(),
        id -> store.layout().codewordDir(archiveInode, id).toString());
  }

  private Result archiveHeld(long archiveInode, Path path, String name, String spec, boolean alreadySealed)
      throws IOException {
    StripeManifest found = store.find(archiveInode);
    String manifestPath = store.layout().manifest(archiveInode).toString();
    boolean resumed = found != null;
    ManifestRecorder rec;
    if (!resumed) {
      if (alreadySealed) {
        throw new IOException(name + " is sealed but its manifest " + manifestPath + " is gone; run wide-ec fsck");
      }
      StripeManifest plan = planChecked(archiveInode, name, spec);
      sealed.ensurePolicy(); // before any byte is written: a NameNode without our codec refuses here
      rec = ManifestRecorder.planned(store, archiveInode, plan, hook);
    } else {
      StripeLifecycle.checkResumable(found, spec, name, manifestPath);
      LOG.info("resuming {} from {}", name, manifestPath);
      rec = new ManifestRecorder(store, archiveInode, found, hook);
    }
    if (alreadySealed) {
      String untrusted = StripeLifecycle.onlyCopyUnverified(found, name, manifestPath);
      if (untrusted != null) {
        throw new IOException(untrusted);
      }
    }
    NonSystematicSteps steps = new NonSystematicSteps(dfs, rec, encoders.encoderFor(path), random, path, name,
        alreadySealed, swapHook);
    Archiver.Run run = Archiver.drive(dfs, rec, steps, Archiver.Listener.NONE);
    return new Result(rec.manifest(), resumed, run.rolledBack, run.bytesRead, run.bytesWritten, run.offPlan,
        run.stale, steps.unitsOnlyCopy());
  }
}
