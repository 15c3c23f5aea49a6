package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.SnapshottableDirectoryStatus;
import org.apache.hadoop.ipc.CallerContext;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.code.UnitRole;

/**
 * The systematic layout's last step, COMMITTED → TRIMMED: each data block down to the one replica the plan keeps.
 * Every check before a replica goes lives here once: the stripes of the file all committed, the file holding exactly
 * the protected blocks, every stored parity still live, a trimmer lease at the NameNode, no snapshot.
 */
final class StripeTrim {
  /** Records a stripe STALE (and deletes what the lifecycle lets go). */
  @FunctionalInterface
  interface Stales {
    void mark(long stripeId, StaleStripeException why) throws IOException;
  }

  private final DistributedFileSystem dfs;
  private final ManifestRecorder rec;
  private final PlanMoves moves;
  private final Stales stales;

  StripeTrim(DistributedFileSystem dfs, ManifestRecorder rec, PlanMoves moves, Stales stales) {
    this.dfs = dfs;
    this.rec = rec;
    this.moves = moves;
    this.stales = stales;
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
  Archiver.TrimResult trim(Path path, Archiver.TrimProgress progress) throws IOException {
    String name = Path.getPathWithoutSchemeAndAuthority(path).toString();
    List<String> offPlan = new ArrayList<>();
    List<String> notTrimmed = new ArrayList<>();
    List<String> stale = new ArrayList<>();
    Map<Long, String> paths = moves.currentPaths(path);
    // Data unchanged since it was encoded, or the stripe is STALE (recorded, parity deleted) and nothing is lowered.
    for (ArchivedStripe s : rec.manifest().stripes()) {
      if (s.state() == StripeState.COMMITTED) {
        staleIfChanged(s, stale);
      }
    }
    Set<Long> trimmable = trimmableFiles(paths, notTrimmed, inode -> true);
    if (trimmable.isEmpty()) {
      return new Archiver.TrimResult(rec.manifest(), 0, offPlan, notTrimmed, stale, List.of());
    }
    Work w = work(trimmable);
    if (w.any()) {
      String refused = trimRefusal(path, name);
      if (refused != null) {
        notTrimmed.add(refused);
        return new Archiver.TrimResult(rec.manifest(), 0, offPlan, notTrimmed, stale, List.of());
      }
    }
    // The plan's moves, and any block whose planned node lost its replica since (DESIGN.md §3.2): copied there
    // before the file is lowered, while the NameNode still wants every replica, so it drops exactly the hinted
    // source's copy, chosen as it lists the copy; the deletion itself is waited for below with the lowering's. A
    // rerun finds moved blocks on their planned node and skips them.
    List<String> moved = new ArrayList<>();
    Map<Long, String> moveFailed = moves.moveOntoPlan(w.toMove(), paths, moved, BlockMover.Until.TARGET_LISTED);
    lowerToOneReplica(w.toLower());
    // Wait for every data block of those stripes on its planned node only.
    Map<Long, Boolean> settled = new PlannedReplicaWait(dfs, moves).await(w.trimming(), paths, moveFailed, moved,
        offPlan, notTrimmed, progress);
    int trimmed = recordTrimmed(w.trimming(), settled, stale);
    return new Archiver.TrimResult(rec.manifest(), trimmed, offPlan, notTrimmed, stale, moved);
  }

  /**
   * Begins the trim of {@code files} while the archive's later stripes still encode: for those of them whose stripes
   * are all committed and unchanged and which {@link #trim} would lower, the same moves onto the planned nodes and the
   * same lowering, each after the same checks, but no waiting for the NameNode and no record. {@link #trim} after
   * the last stripe finds those blocks moved and those files lowered, waits for them with the rest and records
   * TRIMMED; whatever this leaves (a file changed since it was encoded, a refusal, a failed move) it finds and reports
   * as if nothing had begun.
   *
   * @param moved where each block moved here is told, one line each
   */
  void begin(Path path, Set<Long> files, Map<Long, String> paths, List<String> moved) throws IOException {
    for (ArchivedStripe s : rec.manifest().stripes()) {
      if (s.state() == StripeState.COMMITTED && PlanMoves.dataInodes(s).stream().anyMatch(files::contains)) {
        try {
          StripeData.locate(dfs, s);
        } catch (StaleStripeException e) {
          return; // recorded STALE, with its parity deleted, by the trim that reports it
        }
      }
    }
    Work w = work(trimmableFiles(paths, new ArrayList<>(), files::contains));
    if (!w.any() || trimRefusal(path, Path.getPathWithoutSchemeAndAuthority(path).toString()) != null) {
      return;
    }
    moves.moveOntoPlan(w.toMove(), paths, moved, BlockMover.Until.TARGET_LISTED);
    lowerToOneReplica(w.toLower());
  }

  /**
   * What trimming {@code trimmable} takes: the files still above one replica, the committed stripes whose files are
   * all among them (each of their data blocks trimmed onto its planned node, then recorded TRIMMED), and each block of
   * those files not on its planned node now. A file's blocks move before it is lowered even where a stripe they are in
   * also holds a file not yet trimmable (a stripe grouped around a core rack mixes files): moved first, each is kept
   * on its planned node when the NameNode trims it, instead of being left off plan until that stripe's turn.
   */
  private record Work(Set<Long> toLower, List<ArchivedStripe> trimming, List<StripeMember> toMove) {
    boolean any() {
      return !toLower.isEmpty() || !toMove.isEmpty();
    }
  }

  private Work work(Set<Long> trimmable) throws IOException {
    Set<Long> toLower = new LinkedHashSet<>();
    for (long inode : trimmable) {
      if (dfs.getFileStatus(ArchiveLayout.inodePath(inode)).getReplication() > 1) {
        toLower.add(inode);
      }
    }
    List<ArchivedStripe> committed = rec.manifest().stripes().stream().filter(s -> s.state() == StripeState.COMMITTED
        && PlanMoves.dataInodes(s).stream().anyMatch(trimmable::contains)).toList();
    List<ArchivedStripe> trimming = committed.stream()
        .filter(s -> PlanMoves.dataInodes(s).stream().allMatch(trimmable::contains)).toList();
    List<StripeMember> toMove = moves.notOnPlannedNode(committed).stream()
        .filter(m -> trimmable.contains(m.inodeId())).toList();
    return new Work(toLower, trimming, toMove);
  }

  /**
   * Files among {@code among} whose stripes are all committed and which may be lowered now; each other such file with a
   * committed stripe is one line in {@code notTrimmed}, naming why it keeps its replication.
   */
  private Set<Long> trimmableFiles(Map<Long, String> paths, List<String> notTrimmed,
      java.util.function.LongPredicate among) throws IOException {
    Map<Long, List<ArchivedStripe>> byFile = new LinkedHashMap<>();
    for (ArchivedStripe s : rec.manifest().stripes()) {
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
      if (!among.test(e.getKey())) {
        continue;
      }
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
    return trimmable;
  }

  /** Lowers the files to one replica with the trim's caller context, so our policy leaves the choice to the trimmer. */
  private void lowerToOneReplica(Set<Long> toLower) throws IOException {
    if (toLower.isEmpty()) {
      return;
    }
    CallerContext before = CallerContext.getCurrent();
    String marker = before == null || before.getContext() == null ? TrimProtocol.CALLER_CONTEXT
        : before.getContext() + "," + TrimProtocol.CALLER_CONTEXT;
    CallerContext.setCurrent(new CallerContext.Builder(marker).build());
    try {
      for (long inode : toLower) {
        rec.checkHeld("lowering " + ArchiveLayout.inodePath(inode) + " to one replica");
        dfs.setReplication(ArchiveLayout.inodePath(inode), (short) 1);
      }
    } finally {
      CallerContext.setCurrent(before);
    }
  }

  /** Records TRIMMED for each stripe whose every data block settled on its planned node; how many. */
  private int recordTrimmed(List<ArchivedStripe> trimming, Map<Long, Boolean> settled, List<String> stale)
      throws IOException {
    int trimmed = 0;
    for (ArchivedStripe s : trimming) {
      boolean onPlan = true;
      for (StripeMember m : PlanMoves.dataMembers(s)) {
        onPlan &= Boolean.TRUE.equals(settled.get(m.blockId()));
      }
      if (onPlan) {
        if (staleIfChanged(s, stale)) {
          continue; // changed while the NameNode trimmed: the parity no longer covers every block
        }
        rec.record(s.withState(StripeState.TRIMMED));
        trimmed++;
      }
    }
    return trimmed;
  }

  /** True, after recording the stripe STALE, when a data block changed since it was encoded. */
  private boolean staleIfChanged(ArchivedStripe s, List<String> stale) throws IOException {
    try {
      StripeData.locate(dfs, s);
      return false;
    } catch (StaleStripeException e) {
      stales.mark(s.stripeId(), e);
      stale.add("stripe " + s.stripeId() + " is STALE: " + e.getMessage());
      return true;
    }
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
      for (StripeMember m : PlanMoves.dataMembers(s)) {
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
      String notLive = StoredUnits.notLive(dfs, s);
      if (notLive != null) {
        return notLive;
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

  /** Why nothing may be lowered now, or null: no fresh trimmer lease, or a snapshot would keep the blocks. */
  private String trimRefusal(Path path, String name) throws IOException {
    Path root = rec.store().layout().manifestDir().getParent();
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
}
