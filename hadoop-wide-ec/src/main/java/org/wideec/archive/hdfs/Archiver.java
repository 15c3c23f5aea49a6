package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32C;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.SnapshottableDirectoryStatus;
import org.apache.hadoop.ipc.CallerContext;
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
import org.wideec.time.Backoff;

/**
 * Runs the archival state machine of DESIGN.md §3.2 over one archived file or directory:
 * {@link #archive} up to COMMITTED (every data block keeps its full replication), then {@link #trim} to TRIMMED
 * (each data block down to its planned replica, kept by the NameNode plugin's trimmer).
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
  /** How long an off-plan block with several replicas is watched for its excess ones to go before it is reported. */
  private static final long OFF_PLAN_GRACE = java.util.concurrent.TimeUnit.SECONDS.toNanos(6);

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
   * @param moved one line per data block copied onto its planned node before an encoder that reads the kept
   *     replicas ran (file, block, from, to)
   * @param encodedOffPlan one line per data block such an encoder had to read off its planned node, because it could
   *     not be moved there (the encode then crossed racks other than the dry run said)
   */
  public record Result(StripeManifest manifest, boolean resumed, int rolledBack, long dataBytesRead,
      long parityBytesWritten, List<String> stale, List<String> offPlan, List<String> moved,
      List<String> encodedOffPlan) {}

  /**
   * What a trim did.
   *
   * @param trimmed stripes recorded TRIMMED by this run
   * @param offPlan one line per data block whose only replica left is not on its planned node (or whose planned
   *     node holds none): its stripe stays COMMITTED
   * @param notTrimmed one line per file or stripe left untrimmed for another reason (refused, timed out)
   * @param stale one line per stripe found STALE before its file was lowered
   * @param moved one line per data block this run copied onto its planned node (file, block, from, to)
   */
  public record TrimResult(StripeManifest manifest, int trimmed, List<String> offPlan, List<String> notTrimmed,
      List<String> stale, List<String> moved) {
    public boolean clean() {
      return offPlan.isEmpty() && notTrimmed.isEmpty() && stale.isEmpty();
    }
  }

  /** Told while the trim waits: data blocks settled (on plan or off plan) out of all being trimmed. */
  @FunctionalInterface
  public interface TrimProgress {
    TrimProgress NONE = (settled, total) -> { };

    void at(long settledBlocks, long totalBlocks);
  }

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
    try (java.io.Closeable held = store.lock(store.inodeOf(path));
        BlockMover mover = new BlockMover(dfs)) { // made on the first move: only an encoder reading kept replicas moves
      return archiveHeld(path, codeSpec, placement, mover);
    }
  }

  private Result archiveHeld(Path path, String codeSpec, PlacementKind placement, BlockMover mover)
      throws IOException {
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
    List<String> moved = new ArrayList<>();
    List<String> encodedOffPlan = new ArrayList<>();
    Map<Long, String> paths = null;
    for (ArchivedStripe planned : manifest.stripes()) {
      ArchivedStripe s = planned;
      if (s.state() == StripeState.ENCODING || s.state() == StripeState.PARITY_WRITTEN) {
        s = record(s.rolledBack());
        rolledBack++;
      }
      try {
        if (s.state() == StripeState.PLANNED) {
          if (encoder.readsPlannedHolders()) {
            paths = paths == null ? currentPaths(path) : paths;
            moveBeforeEncoding(mover, s, paths, moved, encodedOffPlan);
          }
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
    return new Result(manifest, resumed, rolledBack, read, written, stale, offPlan, moved, encodedOffPlan);
  }

  /**
   * ECWide §4.2: a chain runs where the kept replicas will be. So before such an encoder reads a PLANNED stripe, each
   * data block whose planned node holds no replica gets one copied there (the plan's moves, which the trim would
   * otherwise make later; the NameNode drops the source's copy, so the block keeps its replication and nothing is
   * deleted by us), and the chain that runs is the one {@code archive --dry-run} costed. The stripe stays PLANNED
   * throughout: a crash mid-move leaves blocks on or off plan, both valid, and the rerun moves what is left. A block
   * that cannot be moved is read where it is: one line in {@code encodedOffPlan}, naming it and why.
   */
  private void moveBeforeEncoding(BlockMover mover, ArchivedStripe s, Map<Long, String> paths, List<String> moved,
      List<String> encodedOffPlan) throws IOException {
    List<StripeMember> toMove = notOnPlannedNode(List.of(s));
    if (toMove.isEmpty()) {
      return;
    }
    Map<Long, String> failed = moveOntoPlan(mover, toMove, paths, moved);
    for (StripeMember m : toMove) {
      String why = failed.get(m.blockId());
      if (why != null) {
        String line = paths.getOrDefault(m.inodeId(), "inode " + m.inodeId()) + " block blk_" + m.blockId()
            + " (stripe " + s.stripeId() + "): not moved onto its planned node " + m.plannedNode() + " before the "
            + encoder.name() + " encode (" + why + "), so it was read where it is";
        LOG.warn("{}", line);
        encodedOffPlan.add(line);
      }
    }
  }

  /**
   * COMMITTED → TRIMMED for the archive at {@code path} (DESIGN.md §3.2 "Keeping the planned replica"): each file
   * whose stripes are all committed (none is trimmed before its parity is verified and committed) and whose data
   * is unchanged is lowered to replication 1 with the {@link TrimProtocol#CALLER_CONTEXT} marker, so our placement
   * policy leaves the choice of survivor to the NameNode plugin's trimmer, which keeps the planned replica. Then it
   * waits, at most {@link TrimProtocol#WAIT_KEY} ms, until the NameNode reports each data block on exactly its
   * planned node, and records TRIMMED for each stripe so verified. The effect is the NameNode's, so the record
   * follows it here. Before anything is lowered, each data block whose planned node holds no replica (the plan's
   * MOVEs, or a replica lost since) gets one copied there by {@link BlockMover}, the Balancer's way, so the
   * NameNode itself drops the source's copy; a block that cannot be moved is reported off plan, keeps every
   * replica, and its stripe stays COMMITTED. Refused (nothing lowered or moved) when the NameNode holds no fresh
   * trimmer lease (without our policy it would keep a random replica) or a snapshot holds the files. Rerunning
   * continues where a run stopped.
   */
  public TrimResult trim(Path path, TrimProgress progress) throws IOException {
    try (java.io.Closeable held = store.lock(store.inodeOf(path));
        BlockMover mover = new BlockMover(dfs)) { // its NameNode proxy and block keys are made on the first move
      return trim(path, progress, mover);
    }
  }

  private TrimResult trim(Path path, TrimProgress progress, BlockMover mover) throws IOException {
    archiveInode = store.inodeOf(path);
    manifest = store.find(archiveInode);
    if (manifest == null) {
      throw new IOException(path + " has no manifest at " + store.layout().manifest(archiveInode) + "; archive it first");
    }
    String name = Path.getPathWithoutSchemeAndAuthority(path).toString();
    List<String> offPlan = new ArrayList<>();
    List<String> notTrimmed = new ArrayList<>();
    List<String> stale = new ArrayList<>();
    Map<Long, String> paths = currentPaths(path);
    // Data unchanged since it was encoded, or the stripe is STALE (recorded, parity deleted) and nothing is lowered.
    for (ArchivedStripe s : manifest.stripes()) {
      if (s.state() == StripeState.COMMITTED) {
        try {
          StripeData.locate(dfs, s);
        } catch (StaleStripeException e) {
          markStale(s, e);
          stale.add("stripe " + s.stripeId() + " is STALE: " + e.getMessage());
        }
      }
    }
    Map<Long, List<ArchivedStripe>> byFile = new LinkedHashMap<>();
    for (ArchivedStripe s : manifest.stripes()) {
      for (StripeMember m : s.members()) {
        if (m.role() == UnitRole.DATA && !m.padding()) {
          List<ArchivedStripe> of = byFile.computeIfAbsent(m.inodeId(), i -> new ArrayList<>());
          if (!of.contains(s)) {
            of.add(s);
          }
        }
      }
    }
    Set<Long> trimmable = new LinkedHashSet<>();
    for (Map.Entry<Long, List<ArchivedStripe>> e : byFile.entrySet()) {
      List<ArchivedStripe> of = e.getValue();
      if (of.stream().noneMatch(s -> s.state() == StripeState.COMMITTED)) {
        continue; // trimmed already, or nothing committed to trim
      }
      ArchivedStripe notYet = of.stream().filter(s -> s.state() != StripeState.COMMITTED
          && s.state() != StripeState.TRIMMED).findFirst().orElse(null);
      if (notYet != null) {
        notTrimmed.add(paths.getOrDefault(e.getKey(), "inode " + e.getKey()) + ": stripe " + notYet.stripeId() + " is "
            + notYet.state() + ", so the file keeps its replication");
      } else {
        String why = whyNotLowerable(e.getKey(), of);
        if (why != null) {
          notTrimmed.add(paths.getOrDefault(e.getKey(), "inode " + e.getKey()) + ": " + why
              + "; the file keeps its replication");
        } else {
          trimmable.add(e.getKey());
        }
      }
    }
    if (trimmable.isEmpty()) {
      return new TrimResult(manifest, 0, offPlan, notTrimmed, stale, List.of());
    }
    Set<Long> toLower = new LinkedHashSet<>();
    for (long inode : trimmable) {
      if (dfs.getFileStatus(ArchiveLayout.inodePath(inode)).getReplication() > 1) {
        toLower.add(inode);
      }
    }
    // Every data block of a committed stripe whose files are all trimmable is trimmed onto its planned node.
    List<ArchivedStripe> trimming = manifest.stripes().stream().filter(s -> s.state() == StripeState.COMMITTED
        && dataInodes(s).stream().allMatch(trimmable::contains)).toList();
    List<StripeMember> toMove = notOnPlannedNode(trimming);
    if (!toLower.isEmpty() || !toMove.isEmpty()) {
      String refused = trimRefusal(path, name);
      if (refused != null) {
        notTrimmed.add(refused);
        return new TrimResult(manifest, 0, offPlan, notTrimmed, stale, List.of());
      }
    }
    // The plan's moves, and any block whose planned node lost its replica since (DESIGN.md §3.2): copied there
    // before the file is lowered, while the NameNode still wants every replica, so it drops exactly the hinted
    // source's copy. A rerun finds moved blocks on their planned node and skips them.
    List<String> moved = new ArrayList<>();
    Map<Long, String> moveFailed = moveOntoPlan(mover, toMove, paths, moved);
    if (!toLower.isEmpty()) {
      CallerContext before = CallerContext.getCurrent();
      String marker = before == null || before.getContext() == null ? TrimProtocol.CALLER_CONTEXT
          : before.getContext() + "," + TrimProtocol.CALLER_CONTEXT;
      CallerContext.setCurrent(new CallerContext.Builder(marker).build());
      try {
        for (long inode : toLower) {
          store.checkHeld(archiveInode, "lowering " + ArchiveLayout.inodePath(inode) + " to one replica");
          dfs.setReplication(ArchiveLayout.inodePath(inode), (short) 1);
        }
      } finally {
        CallerContext.setCurrent(before);
      }
    }
    // Wait for every data block of those stripes on its planned node only.
    Map<Long, Boolean> settled = awaitPlannedReplicas(mover, trimming, paths, moveFailed, moved, offPlan, notTrimmed,
        progress);
    int trimmed = 0;
    for (ArchivedStripe s : trimming) {
      boolean onPlan = true;
      for (StripeMember m : dataMembers(s)) {
        onPlan &= Boolean.TRUE.equals(settled.get(m.blockId()));
      }
      if (onPlan) {
        try {
          StripeData.locate(dfs, s); // unchanged while the NameNode trimmed: the parity still covers every block
        } catch (StaleStripeException e) {
          markStale(s, e);
          stale.add("stripe " + s.stripeId() + " is STALE: " + e.getMessage());
          continue;
        }
        record(s.withState(StripeState.TRIMMED));
        trimmed++;
      }
    }
    return new TrimResult(manifest, trimmed, offPlan, notTrimmed, stale, moved);
  }

  /**
   * Why a file whose stripes are all committed must not be lowered now, or null. Lowering applies to every block of
   * the file, so the file must hold exactly the blocks the manifest protects (same ids, generation stamps, lengths,
   * closed): an append that started a new block, or a concat, would otherwise put unprotected bytes at one replica.
   * And every stored parity of its stripes must still be there with a live replica: the verification may be weeks
   * old (archive --no-trim), and once trimmed the parity is all that protects the data.
   */
  private String whyNotLowerable(long inode, List<ArchivedStripe> stripes) throws IOException {
    String file = ArchiveLayout.inodePath(inode).toString();
    HdfsFileStatus st = fileInfo(file);
    if (st == null) {
      return "the file is gone";
    }
    org.apache.hadoop.hdfs.protocol.LocatedBlocks now = dfs.getClient().getLocatedBlocks(file, 0, st.getLen());
    if (now.isUnderConstruction()) {
      return "it is open for writing";
    }
    Map<Long, StripeMember> recorded = new HashMap<>();
    for (ArchivedStripe s : stripes) {
      for (StripeMember m : dataMembers(s)) {
        if (m.inodeId() == inode) {
          recorded.put(m.blockId(), m);
        }
      }
    }
    for (LocatedBlock lb : now.getLocatedBlocks()) {
      StripeMember m = recorded.remove(lb.getBlock().getBlockId());
      if (m == null) {
        return "block blk_" + lb.getBlock().getBlockId() + " is in no stripe (appended or concatenated since it was"
            + " archived)";
      }
      if (m.generationStamp() != lb.getBlock().getGenerationStamp() || m.length() != lb.getBlock().getNumBytes()) {
        return "block blk_" + m.blockId() + " changed since it was archived (generation stamp "
            + lb.getBlock().getGenerationStamp() + ", length " + lb.getBlock().getNumBytes() + "; recorded "
            + m.generationStamp() + ", " + m.length() + ")";
      }
    }
    if (!recorded.isEmpty()) {
      return "block blk_" + recorded.keySet().iterator().next() + " is no longer in the file (truncated or rewritten)";
    }
    for (ArchivedStripe s : stripes) {
      for (StripeMember m : s.members()) {
        if (!m.isParity() || m.padding()) {
          continue;
        }
        String parity = ArchiveLayout.inodePath(m.inodeId()).toString();
        HdfsFileStatus ps = fileInfo(parity);
        LocatedBlock pb = ps == null ? null : locatedBlock(parity, m.blockId());
        if (pb == null || pb.getBlock().getGenerationStamp() != m.generationStamp() || pb.getLocations().length == 0
            || pb.isCorrupt()) {
          return "parity unit " + s.members().indexOf(m) + " of stripe " + s.stripeId() + " (blk_" + m.blockId()
              + ") is " + (pb == null ? "gone" : pb.getLocations().length == 0 ? "without a live replica"
              : pb.isCorrupt() ? "corrupt" : "not the block that was verified") + "; rerun after repairing it";
        }
      }
    }
    return null;
  }

  /** A file's status by path, or null when it is gone (an inode path of a deleted file is "not found"). */
  private HdfsFileStatus fileInfo(String file) throws IOException {
    try {
      return dfs.getClient().getFileInfo(file);
    } catch (java.io.FileNotFoundException e) {
      return null;
    }
  }

  /** Data members of the stripes whose planned node holds no replica the NameNode lists now. */
  private List<StripeMember> notOnPlannedNode(List<ArchivedStripe> stripes) throws IOException {
    List<StripeMember> all = new ArrayList<>();
    stripes.forEach(s -> all.addAll(dataMembers(s)));
    Map<Long, List<String>> now = locations(all);
    List<StripeMember> out = new ArrayList<>();
    for (StripeMember m : all) {
      List<String> at = now.get(m.blockId());
      if (at != null && !at.contains(m.plannedNode())) {
        out.add(m);
      }
    }
    return out;
  }

  /**
   * Copies a replica of each member's block onto its planned node with {@link BlockMover} (replaceBlock with the
   * source as delete hint), trying each eligible source in turn (one may be pinned or fail). The manifest records
   * no source, so the mover picks a holder whose replica HDFS will accept as the excess one. Returns, per block
   * that could not be moved, why; the trim then reports it off plan and the NameNode deletes none of its replicas.
   *
   * <p>Up to {@link BlockMover#PARALLEL_KEY} blocks move at once: a move is one copy and then seconds of waiting for the
   * NameNode to list the new replica and drop the hinted one, so one at a time leaves every link idle. Each block's
   * own attempts stay in order.
   */
  private Map<Long, String> moveOntoPlan(BlockMover mover, List<StripeMember> members, Map<Long, String> paths,
      List<String> moved) throws IOException {
    Map<Long, String> failed = new java.util.concurrent.ConcurrentHashMap<>();
    if (members.isEmpty()) {
      return failed;
    }
    Map<String, DatanodeInfo> live = mover.liveNodes();
    int threads = Math.max(1, Math.min(members.size(), dfs.getConf().getInt(BlockMover.PARALLEL_KEY, BlockMover.PARALLEL_DEFAULT)));
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "wide-ec archive mover");
      t.setDaemon(true);
      return t;
    });
    CallerContext context = CallerContext.getCurrent();
    List<java.util.concurrent.Future<?>> work = new ArrayList<>();
    try {
      for (StripeMember m : members) {
        work.add(pool.submit(() -> {
          CallerContext.setCurrent(context);
          moveOne(mover, m, paths, live, moved, failed);
          return null;
        }));
      }
      for (java.util.concurrent.Future<?> f : work) {
        try {
          f.get();
        } catch (java.util.concurrent.ExecutionException e) {
          Throwable cause = e.getCause();
          throw cause instanceof IOException io ? io : new IOException("moving archived blocks onto plan failed", cause);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while moving archived blocks onto plan");
    } finally {
      // A failure ends the batch; moves already under way finish (or fail) before the trim goes on or its lock is
      // released, so none lands unaccounted for.
      pool.shutdownNow();
      try {
        if (!pool.awaitTermination(dfs.getConf().getLong(BlockMover.WAIT_KEY, BlockMover.WAIT_DEFAULT) + 60_000,
            java.util.concurrent.TimeUnit.MILLISECONDS)) {
          LOG.warn("moves onto plan still running after the batch ended");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return failed;
  }

  /** Moves one member's block onto its planned node, recording the move or why it could not be made. */
  private void moveOne(BlockMover mover, StripeMember m, Map<Long, String> paths, Map<String, DatanodeInfo> live,
      List<String> moved, Map<Long, String> failed) throws IOException {
    String file = ArchiveLayout.inodePath(m.inodeId()).toString();
    String name = paths.getOrDefault(m.inodeId(), "inode " + m.inodeId());
    LocatedBlock lb = locatedBlock(file, m.blockId());
    if (lb == null) {
      failed.put(m.blockId(), "the block is gone from " + name);
      return;
    }
    DatanodeInfo target = live.get(m.plannedNode());
    if (target == null) {
      failed.put(m.blockId(), "its planned node " + m.plannedNode() + " is not a live DataNode, so no replica"
          + " was moved there");
      return;
    }
    List<BlockMover.Move> ways = BlockMover.candidates(name, lb, target, null);
    if (ways.isEmpty()) {
      if (!Arrays.stream(lb.getLocations()).anyMatch(d -> d.getXferAddr().equals(m.plannedNode()))) {
        failed.put(m.blockId(), "no replica of it can be moved to " + m.plannedNode() + " (holders "
            + holders(lb) + ")");
      }
      return;
    }
    List<String> errors = new ArrayList<>();
    for (BlockMover.Move way : ways) {
      try {
        mover.move(way);
        synchronized (moved) {
          moved.add(way.describe());
        }
        return;
      } catch (IOException e) {
        LOG.warn("{}", e.getMessage());
        errors.add(e.getMessage());
      }
    }
    failed.put(m.blockId(), String.join("; ", errors));
  }

  private LocatedBlock locatedBlock(String file, long blockId) throws IOException {
    HdfsFileStatus st = dfs.getClient().getFileInfo(file);
    if (st == null) {
      return null;
    }
    for (LocatedBlock lb : dfs.getClient().getLocatedBlocks(file, 0, st.getLen()).getLocatedBlocks()) {
      if (lb.getBlock().getBlockId() == blockId) {
        return lb;
      }
    }
    return null;
  }

  private static String holders(LocatedBlock lb) {
    List<String> at = new ArrayList<>();
    for (DatanodeInfo d : lb.getLocations()) {
      at.add(d.getXferAddr());
    }
    return at.isEmpty() ? "none" : String.join(", ", at);
  }

  /** Why nothing may be lowered now, or null: no fresh trimmer lease, or a snapshot would keep the blocks. */
  private String trimRefusal(Path path, String name) throws IOException {
    Path root = store.layout().manifestDir().getParent();
    byte[] lease = dfs.getXAttrs(root).get(TrimProtocol.LEASE_XATTR);
    long nameNodeNow = 0;
    for (DatanodeInfo d : dfs.getDataNodeStats(HdfsConstants.DatanodeReportType.LIVE)) {
      nameNodeNow = Math.max(nameNodeNow, d.getLastUpdate()); // heartbeat times are the NameNode's clock
    }
    if (!TrimProtocol.holds(lease, nameNodeNow)) {
      return "trimming " + name + " refused: the NameNode runs no wide-ec trimmer (no fresh " + TrimProtocol.LEASE_XATTR
          + " on " + root + "), and without it HDFS would keep a random replica of each block. Set"
          + " dfs.block.replicator.classname=org.apache.hadoop.hdfs.server.blockmanagement.WideEcReplicaPlacementPolicy"
          + " and dfs.namenode.plugins=org.wideec.placement.hdfs.WideEcNameNodePlugin (" + TrimProtocol.ENABLED_KEY
          + " not false); every replica is kept";
    }
    SnapshottableDirectoryStatus d = snapshotted(dfs, name);
    if (d != null) {
      return "trimming " + name + " refused: " + d.getFullPath().toUri().getPath() + " has " + d.getSnapshotNumber()
          + " snapshot(s), which keep its files at their old replication, so trimming would free nothing (DESIGN.md"
          + " §3.2); delete the snapshots and rerun. Every replica is kept, the stripes stay COMMITTED";
    }
    return null;
  }

  /** A snapshottable directory with snapshots at, above or under {@code name}, or null. */
  static SnapshottableDirectoryStatus snapshotted(DistributedFileSystem dfs, String name) throws IOException {
    SnapshottableDirectoryStatus[] dirs = dfs.getSnapshottableDirListing();
    String self = name.endsWith("/") ? name : name + "/";
    for (SnapshottableDirectoryStatus d : dirs == null ? new SnapshottableDirectoryStatus[0] : dirs) {
      String dir = d.getFullPath().toUri().getPath();
      String dirSlash = dir.endsWith("/") ? dir : dir + "/";
      if (d.getSnapshotNumber() > 0 && (self.startsWith(dirSlash) || dirSlash.startsWith(self))) {
        return d;
      }
    }
    return null;
  }

  /**
   * Polls the NameNode's block locations until every data block of the stripes sits on exactly its planned node,
   * or its planned node holds none (off plan), or the wait bound passes. A block found without a replica on its
   * planned node that was not moved in this run gets one moved there once (the planned node's replica may have
   * been chosen as excess after the first look, e.g. by a restarted NameNode), and is watched again. True per block
   * on plan, false off plan or unsettled; each problem is one line naming the file, block and nodes.
   */
  private Map<Long, Boolean> awaitPlannedReplicas(BlockMover mover, List<ArchivedStripe> stripes,
      Map<Long, String> paths, Map<Long, String> moveFailed, List<String> moved, List<String> offPlan,
      List<String> notTrimmed, TrimProgress progress) throws IOException {
    long waitMs = dfs.getConf().getLong(TrimProtocol.WAIT_KEY, TrimProtocol.WAIT_DEFAULT);
    Backoff poll = Backoff.pollingNameNode(50, waitMs);
    Map<Long, Boolean> settled = new HashMap<>();
    Map<Long, List<String>> lastSeen = new HashMap<>();
    Map<Long, Long> offPlanSince = new HashMap<>();
    Set<Long> movedLate = new java.util.HashSet<>();
    Map<Long, StripeMember> members = new LinkedHashMap<>();
    Map<Long, Long> stripeOf = new HashMap<>();
    for (ArchivedStripe s : stripes) {
      for (StripeMember m : dataMembers(s)) {
        members.put(m.blockId(), m);
        stripeOf.put(m.blockId(), s.stripeId());
      }
    }
    while (true) {
      Map<Long, List<String>> now = locations(members.values());
      for (StripeMember m : members.values()) {
        if (settled.containsKey(m.blockId())) {
          continue;
        }
        List<String> at = now.getOrDefault(m.blockId(), List.of());
        lastSeen.put(m.blockId(), at);
        // Off plan for sure: the planned node holds none and the excess replicas are gone or had time to go.
        boolean off = !at.contains(m.plannedNode()) && (at.size() <= 1
            || System.nanoTime() - offPlanSince.computeIfAbsent(m.blockId(), b -> System.nanoTime()) > OFF_PLAN_GRACE);
        if (at.equals(List.of(m.plannedNode()))) {
          settled.put(m.blockId(), true);
        } else if (off && !at.isEmpty() && !moveFailed.containsKey(m.blockId()) && movedLate.add(m.blockId())) {
          // The planned node lost its replica after the moves before lowering: the NameNode chose it as excess
          // (e.g. a restart's stock re-trim; HDFS lists excess replicas until they are deleted) or it died. Move one
          // there now, once per run; at replication 1 the NameNode keeps the moved replica (our policy's keepMoved,
          // or the stock delete hint when one replica is left).
          moveFailed.putAll(moveOntoPlan(mover, List.of(m), paths, moved));
          offPlanSince.remove(m.blockId());
        } else if (off) {
          // Waited a little for excess replicas to go, so the report names the node that kept it.
          settled.put(m.blockId(), false);
          offPlan.add(paths.getOrDefault(m.inodeId(), "inode " + m.inodeId()) + " block blk_" + m.blockId()
              + " (stripe " + stripeOf.get(m.blockId()) + "): " + (at.isEmpty() ? "no replica is left"
                  : "kept on " + String.join(", ", at)) + ", planned on " + m.plannedNode()
              + "; its stripe stays COMMITTED and nothing was deleted" + (moveFailed.containsKey(m.blockId())
                  ? ": " + moveFailed.get(m.blockId()) : at.isEmpty() ? "" : " (its planned node lost the replica"
                  + " moved there in this run; rerun to move another)"));
        }
      }
      progress.at(settled.size(), members.size());
      if (settled.size() == members.size()) {
        return settled;
      }
      if (poll.expired()) {
        for (StripeMember m : members.values()) {
          if (!settled.containsKey(m.blockId())) {
            notTrimmed.add(paths.getOrDefault(m.inodeId(), "inode " + m.inodeId()) + " block blk_" + m.blockId()
                + " (stripe " + stripeOf.get(m.blockId()) + "): still on " + String.join(", ", lastSeen.get(m.blockId()))
                + " after " + waitMs + " ms (" + TrimProtocol.WAIT_KEY + "), planned on " + m.plannedNode()
                + "; rerun to continue");
          }
        }
        return settled;
      }
      poll.pause("interrupted while waiting for the NameNode to trim " + members.size() + " blocks");
    }
  }

  /** Block id → transfer addresses of the DataNodes the NameNode lists for it, for the files of these members. */
  private Map<Long, List<String>> locations(java.util.Collection<StripeMember> members) throws IOException {
    Map<Long, List<String>> out = new HashMap<>();
    Set<Long> inodes = new LinkedHashSet<>();
    members.forEach(m -> inodes.add(m.inodeId()));
    for (long inode : inodes) {
      String file = ArchiveLayout.inodePath(inode).toString();
      HdfsFileStatus st = dfs.getClient().getFileInfo(file);
      if (st == null) {
        continue;
      }
      for (LocatedBlock lb : dfs.getClient().getLocatedBlocks(file, 0, st.getLen()).getLocatedBlocks()) {
        List<String> at = new ArrayList<>();
        for (DatanodeInfo d : lb.getLocations()) {
          at.add(d.getXferAddr());
        }
        out.put(lb.getBlock().getBlockId(), at);
      }
    }
    return out;
  }

  /** Inode id → current path of each file under the archived path (names in reports; renames are followed). */
  private Map<Long, String> currentPaths(Path path) throws IOException {
    Map<Long, String> out = new HashMap<>();
    java.util.ArrayDeque<Path> todo = new java.util.ArrayDeque<>(List.of(path));
    while (!todo.isEmpty()) {
      for (FileStatus st : dfs.listStatus(todo.pop())) {
        if (st.isDirectory()) {
          todo.push(st.getPath());
        } else if (st instanceof HdfsFileStatus h) {
          out.put(h.getFileId(), Path.getPathWithoutSchemeAndAuthority(st.getPath()).toString());
        }
      }
    }
    return out;
  }

  private static List<StripeMember> dataMembers(ArchivedStripe s) {
    return s.members().stream().filter(m -> m.role() == UnitRole.DATA && !m.padding()).toList();
  }

  private static Set<Long> dataInodes(ArchivedStripe s) {
    Set<Long> out = new LinkedHashSet<>();
    dataMembers(s).forEach(m -> out.add(m.inodeId()));
    return out;
  }

  /** PLANNED → ENCODING → (encode) → PARITY_WRITTEN. */
  private StripeEncoder.EncodedStripe encode(ArchivedStripe planned) throws IOException {
    ArchivedStripe s = record(planned.withState(StripeState.ENCODING));
    Path dir = new Path(s.parityFilePath());
    // Leftovers of an encoding rolled back by an earlier run: the redo starts from an empty directory.
    store.checkHeld(archiveInode, "emptying the parity directory " + dir);
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
    // Before COMMITTED every data block still has its full replication, so the parity protects nothing alone and
    // goes. From COMMITTED on some files may already be lowered (a trim that stopped part way): the parity is then
    // all that protects the stripe's unchanged blocks, so it is kept (DESIGN.md §3.2: nothing deleted before ...).
    boolean keepParity = s.state() == StripeState.COMMITTED || s.state() == StripeState.TRIMMED;
    LOG.warn("{}; marking it STALE and {}", why.getMessage(), keepParity
        ? "keeping its parity (its other blocks may already be at one replica)" : "deleting its parity");
    ArchivedStripe stale = record(s.withState(StripeState.STALE));
    if (!keepParity && !stale.parityFilePath().isEmpty()) {
      store.checkHeld(archiveInode, "deleting the parity " + stale.parityFilePath());
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
        store.checkHeld(archiveInode, "setting the pointer of " + ArchiveLayout.inodePath(inode));
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
