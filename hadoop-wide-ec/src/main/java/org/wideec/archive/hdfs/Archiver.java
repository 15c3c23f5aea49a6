package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.zip.CRC32C;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivalPlan;
import org.wideec.archive.ArchivalPlanner;
import org.wideec.archive.ArchivePointer;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.PlacementKind;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.code.Codes;
import org.wideec.code.UnitRole;

/**
 * Runs the archival state machine of DESIGN.md §3.2 and issue 13 over one archived file or directory, up to
 * COMMITTED (trimming is the next slice: every data block keeps its full replication here).
 *
 * <p>Per stripe: PLANNED → ENCODING (parity directory recorded, emptied) → the encoder writes the parity →
 * PARITY_WRITTEN (parity block ids, generation stamps, CRC32Cs, data CRCs) → every parity re-read through HDFS and
 * matched against its CRC, every data block's generation stamp and length checked against the manifest →
 * VERIFIED → COMMITTED, and each file whose stripes are all committed gets its pointer xattr. The manifest is
 * written (temp-then-rename) before anything else, and every transition is recorded in it before it takes effect,
 * each checked by {@link StripeState#checkTransition}. A data block that changed since planning (append, truncate,
 * delete) makes its stripe STALE: recorded first, then its parity is deleted.
 *
 * <p>Rerunning resumes from the manifest, never from a new plan: PLANNED is encoded; ENCODING and PARITY_WRITTEN
 * roll back to PLANNED (recorded first; the redo empties the parity directory before writing) and are encoded
 * again, since a crash may have left any part of the parity; VERIFIED goes on to COMMITTED; COMMITTED gets its
 * pointers (set again: a crash may have come between the record and the xattr); STALE is left as it is (freeing
 * and re-archiving stale stripes is later work). Asking for another code than the manifest's is refused.
 */
public final class Archiver {
  private static final Logger LOG = LoggerFactory.getLogger(Archiver.class);
  private static final int READ_CHUNK = 1 << 20;

  /** Called after every manifest write: the fault injector of the crash tests, a no-op otherwise. */
  @FunctionalInterface
  public interface Hook {
    Hook NONE = (manifest, stripe) -> { };

    /** @param stripe the stripe whose transition was just recorded, null for the initial PLANNED manifest */
    void recorded(StripeManifest manifest, ArchivedStripe stripe) throws IOException;
  }

  /** Told after each stripe is done with (committed, already committed, or stale). */
  @FunctionalInterface
  public interface Listener {
    Listener NONE = (stripe, done, total) -> { };

    void stripeDone(ArchivedStripe stripe, long doneBytes, long totalBytes);
  }

  /**
   * What a run did.
   *
   * @param resumed an existing manifest was resumed rather than a new plan recorded
   * @param rolledBack stripes found in ENCODING or PARITY_WRITTEN and redone
   * @param dataBytesRead data bytes the encoder read
   * @param parityBytesWritten parity bytes the encoder stored
   * @param stale one line per stripe that is STALE, naming what changed
   * @param offPlan one line per parity block HDFS placed off plan
   */
  public record Result(StripeManifest manifest, boolean resumed, int rolledBack, long dataBytesRead,
      long parityBytesWritten, List<String> stale, List<String> offPlan) {}

  private final DistributedFileSystem dfs;
  private final ManifestStore store;
  private final StripeEncoder encoder;
  private final Hook hook;
  private final Listener listener;

  private long archiveInode;
  private StripeManifest manifest;

  public Archiver(DistributedFileSystem dfs, ManifestStore store, StripeEncoder encoder, Hook hook, Listener listener) {
    this.dfs = dfs;
    this.store = store;
    this.encoder = encoder;
    this.hook = hook;
    this.listener = listener;
  }

  /** Archives {@code path} with the code, or resumes its manifest (the code must then be the recorded one). */
  public Result archive(Path path, String codeSpec, PlacementKind placement) throws IOException {
    archiveInode = store.inodeOf(path);
    String spec = Codes.canonical(codeSpec);
    manifest = store.find(archiveInode);
    boolean resumed = manifest != null;
    if (resumed) {
      Path at = store.layout().manifest(archiveInode);
      for (ArchivedStripe s : manifest.stripes()) {
        if (!s.codeSpec().equals(spec)) {
          throw new IllegalArgumentException(path + " is already being archived with " + s.codeSpec() + " (manifest "
              + at + ", stripe " + s.stripeId() + "); rerun with --code " + s.codeSpec() + " to resume it");
        }
      }
      LOG.info("resuming {} from {}", path, at);
    } else {
      ArchivalPlan plan = ArchivalPlanner.plan(new ArchivalSource(dfs).request(path, spec, placement));
      manifest = plan.toManifest(id -> store.layout().parityDir(archiveInode, id).toString());
      store.write(archiveInode, manifest); // the plan is on record before any byte is written
      hook.recorded(manifest, null);
    }
    long total = manifest.stripes().stream().mapToLong(Archiver::dataBytes).sum();
    long done = 0;
    int rolledBack = 0;
    long read = 0;
    long written = 0;
    List<String> stale = new ArrayList<>();
    List<String> offPlan = new ArrayList<>();
    for (ArchivedStripe planned : manifest.stripes()) {
      ArchivedStripe s = planned;
      if (s.state() == StripeState.ENCODING || s.state() == StripeState.PARITY_WRITTEN) {
        s = record(s.rolledBack());
        rolledBack++;
      }
      try {
        if (s.state() == StripeState.PLANNED) {
          StripeEncoder.EncodedStripe e = encode(s);
          read += e.dataBytesRead();
          written += e.parityBytesWritten();
          offPlan.addAll(e.offPlan());
          s = manifest.stripe(s.stripeId());
        }
        if (s.state() == StripeState.PARITY_WRITTEN) {
          s = record(verify(s).withState(StripeState.VERIFIED));
        }
        if (s.state() == StripeState.VERIFIED) {
          s = record(s.withState(StripeState.COMMITTED));
        }
        if (s.state() == StripeState.COMMITTED || s.state() == StripeState.TRIMMED) {
          setPointers(s);
        }
      } catch (StaleStripeException e) {
        s = markStale(manifest.stripe(s.stripeId()), e);
      }
      if (s.state() == StripeState.STALE) {
        stale.add("stripe " + s.stripeId() + " is STALE" + (s == planned ? " (recorded earlier)" : ""));
      }
      done += dataBytes(s);
      listener.stripeDone(s, done, total);
    }
    return new Result(manifest, resumed, rolledBack, read, written, stale, offPlan);
  }

  /** PLANNED → ENCODING → (encode) → PARITY_WRITTEN. */
  private StripeEncoder.EncodedStripe encode(ArchivedStripe planned) throws IOException {
    ArchivedStripe s = record(planned.withState(StripeState.ENCODING));
    Path dir = new Path(s.parityFilePath());
    // Leftovers of an encoding rolled back by an earlier run: the redo starts from an empty directory.
    if (dfs.exists(dir) && !dfs.delete(dir, true)) {
      throw new IOException("stripe " + s.stripeId() + ": cannot empty its parity directory " + dir);
    }
    StripeEncoder.EncodedStripe e = encoder.encode(s);
    record(s.withMembers(e.members()).withParityFile(s.parityFilePath(), e.parityDirInode())
        .withState(StripeState.PARITY_WRITTEN));
    return e;
  }

  /**
   * The VERIFY step: each parity block is still the one recorded and its bytes, read back through HDFS, match the
   * recorded CRC32C; each data block still has the recorded generation stamp and length (else STALE).
   */
  private ArchivedStripe verify(ArchivedStripe s) throws IOException {
    for (int u = s.code().k(); u < s.code().n(); u++) {
      StripeMember m = s.member(u);
      if (m.padding()) {
        continue;
      }
      Path file = ArchiveLayout.parityUnit(s.parityFilePath(), u);
      String where = "stripe " + s.stripeId() + " unit " + u + " (" + file + ")";
      LocatedBlocks lbs = dfs.getClient().getLocatedBlocks(file.toString(), 0, m.length());
      List<LocatedBlock> blocks = lbs.getLocatedBlocks();
      if (blocks.size() != 1 || blocks.get(0).getBlock().getBlockId() != m.blockId()
          || blocks.get(0).getBlock().getGenerationStamp() != m.generationStamp() || lbs.getFileLength() != m.length()) {
        throw new IOException(where + ": the parity file is not the block " + m.blockId() + " of " + m.length()
            + " bytes the manifest records; rerun to encode the stripe again");
      }
      long crc = crcOf(file, m.length());
      if (crc != m.crc32c()) {
        throw new IOException(where + ": CRC32C read back 0x" + Long.toHexString(crc) + ", written 0x"
            + Long.toHexString(m.crc32c()) + "; rerun to encode the stripe again");
      }
    }
    StripeData.locate(dfs, s); // throws StaleStripeException when a data block changed
    return s;
  }

  private long crcOf(Path file, long length) throws IOException {
    CRC32C crc = new CRC32C();
    byte[] buf = new byte[(int) Math.min(READ_CHUNK, Math.max(1, length))];
    try (FSDataInputStream in = dfs.open(file)) {
      for (long pos = 0; pos < length; pos += buf.length) {
        int len = (int) Math.min(buf.length, length - pos);
        in.readFully(pos, buf, 0, len);
        crc.update(buf, 0, len);
      }
    }
    return crc.getValue();
  }

  /** Records STALE, then deletes the parity that no longer protects the data. */
  private ArchivedStripe markStale(ArchivedStripe s, StaleStripeException why) throws IOException {
    LOG.warn("{}; marking it STALE and deleting its parity", why.getMessage());
    ArchivedStripe stale = record(s.withState(StripeState.STALE));
    if (!stale.parityFilePath().isEmpty()) {
      dfs.delete(new Path(stale.parityFilePath()), true);
    }
    return stale;
  }

  /** Sets the pointer on each file of the stripe whose stripes are all committed (DESIGN.md §3.2). */
  private void setPointers(ArchivedStripe s) throws IOException {
    Set<Long> inodes = new LinkedHashSet<>();
    for (StripeMember m : s.members()) {
      if (m.role() == UnitRole.DATA && !m.padding()) {
        inodes.add(m.inodeId());
      }
    }
    Path manifestPath = store.layout().manifest(archiveInode);
    for (long inode : inodes) {
      long[] ids = manifest.stripesOf(inode);
      boolean all = true;
      for (long id : ids) {
        StripeState st = manifest.stripe(id).state();
        all &= st == StripeState.COMMITTED || st == StripeState.TRIMMED;
      }
      if (all) {
        store.setPointer(inode, new ArchivePointer(manifestPath.toUri().getPath(), ids));
      }
    }
  }

  /** Writes the manifest with the stripe's next state, then lets the hook see it: the record precedes the effect. */
  private ArchivedStripe record(ArchivedStripe next) throws IOException {
    manifest.stripe(next.stripeId()).state().checkTransition(next.stripeId(), next.state());
    manifest = manifest.with(next);
    store.write(archiveInode, manifest);
    hook.recorded(manifest, next);
    return next;
  }

  private static long dataBytes(ArchivedStripe s) {
    return s.members().stream().filter(m -> m.role() == UnitRole.DATA && !m.padding())
        .mapToLong(StripeMember::length).sum();
  }
}
