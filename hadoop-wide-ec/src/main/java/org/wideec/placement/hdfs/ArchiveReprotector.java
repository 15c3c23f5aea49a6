package org.wideec.placement.hdfs;

import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcArchivedBlocks;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.apache.hadoop.hdfs.server.namenode.NameNode;
import org.apache.hadoop.hdfs.server.namenode.WideEcNamespace;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivePointer;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.ArchivedStripeRepair;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeProtection;
import org.wideec.archive.StripeReprotection;
import org.wideec.archive.hdfs.ArchivalSource;
import org.wideec.topology.Site;

/**
 * Keeps the protection of archived stripes whose members changed for good. A member deleted, truncated or appended
 * after archival is lost to its stripe, and at one replica per unit the others would then survive fewer losses than
 * the code claims (a few {@code hdfs dfs -rm} plus one DataNode loss could take another user's only copy). Every
 * {@link #INTERVAL_KEY} ms this pass raises the files of the stripe's remaining units to the replication {@link
 * StripeProtection} computes, those of units whose replicas share DataNodes with another unit's to {@code f + 1}
 * ({@link StripeReprotection}), and each changed member's file (its new bytes at the trim's one replica, covered by
 * no parity) to {@code f + 1} and at least {@code dfs.replication}; never lowered, one WARN line per stripe, and the
 * gauges {@code ArchivedStripesBelowTolerance}, {@code ArchivedStripesReprotected}, {@code ArchivedMembersChanged}.
 *
 * <p>It only reads the blocks map and sets replications (HDFS itself copies the replicas), so it needs no slice
 * transport and runs whenever the plugin does, whatever the repair monitor's settings or the cluster secret. In
 * startup safe mode it counts but writes no namespace (HDFS refuses it there).
 *
 * <p>HDFS charges added replicas to the space quota of every directory above the file: a raise it refuses for a
 * quota is one ERROR line per stripe naming the file, the directory and the replication needed, the gauge {@code
 * ArchivedStripesReprotectionBlocked}, and is tried again each pass (it succeeds once the quota is raised). Any other
 * refusal is a rate-limited warning, also tried again.
 */
final class ArchiveReprotector extends ArchivePass {
  static final String INTERVAL_KEY = "wide-ec.archive.reprotect.interval.ms";
  static final long INTERVAL_DEFAULT = 10_000;
  private static final Logger LOG = LoggerFactory.getLogger(ArchiveReprotector.class);

  private final WideEcNameNodeMetrics metrics;
  private final long interval;
  private final short staleReplication;
  /** What was reported once (changed members, shared nodes, quota refusals), so a pass every few seconds does not flood. */
  private final ReportedOnce<String> reported = new ReportedOnce<>();
  private boolean safeMode;
  private Tally tally;
  /** The first raise of the stripe at hand that HDFS refused for a quota, as its ERROR line says it; or null. */
  private String quotaRefusal;

  ArchiveReprotector(NameNode nn, FSNamesystem fsn, Configuration conf, WideEcNameNodeMetrics metrics, long interval)
      throws IOException {
    super(nn, fsn, conf, interval, 1, "archive reprotection", LOG, false);
    this.metrics = metrics;
    this.interval = interval;
    this.staleReplication = (short) conf.getInt(org.apache.hadoop.hdfs.DFSConfigKeys.DFS_REPLICATION_KEY,
        org.apache.hadoop.hdfs.DFSConfigKeys.DFS_REPLICATION_DEFAULT);
  }

  void start() {
    start("wide-ec archive reprotection: stripes whose members changed since archival are checked every " + interval
        + " ms and their other files raised until they survive the losses their code claims");
  }

  /** In startup safe mode it counts (the gauges) and raises nothing; in an operator's, nothing runs. */
  @Override
  boolean readyInSafeMode() {
    return fsn.isInStartupSafeMode();
  }

  @Override
  void beginPass(Map<String, WideEcArchivedBlocks.Target> live) {
    safeMode = fsn.isInSafeMode();
    tally = new Tally();
    reported.beginPass();
  }

  @Override
  void visit(ArchivedStripe s, String manifest, Map<String, WideEcArchivedBlocks.Target> live) {
    if (ArchivedStripeRepair.protects(s)) {
      ArchivedStripeNow seen = ArchivedStripeNow.of(fsn, s);
      ArchivedStripeRepair p = seen.repair();
      if (p.stale().length + p.gone().length > 0 && !inEffect(s, manifest)) {
        return;
      }
      reprotect(p, seen.views(), "stripe " + s.stripeId() + " of manifest " + manifest);
    }
  }

  /**
   * Whether some file still relies on the stripe. A systematic stripe protects only files whose pointer names its
   * manifest (DESIGN.md §3.2: the pointer is set before the trim and removed by unarchive once the replicas are
   * back, before the parity is deleted): a stripe none points at, one being unarchived say, has lost its parity on
   * purpose, and raising its files would leave them above the replication unarchive restored. A sealed stripe's
   * members are its codewords, which no pointer names: it relies on itself while its manifest stands. A pointer that
   * does not parse counts as relying (never less protection for a damaged xattr).
   */
  private boolean inEffect(ArchivedStripe s, String manifest) {
    if (s.sealed()) {
      return true;
    }
    for (StripeMember m : s.members()) {
      if (m.role() != org.wideec.code.UnitRole.DATA || m.padding()) {
        continue;
      }
      byte[] x = WideEcNamespace.xattrOf(fsn, m.inodeId(), ArchivalSource.POINTER_XATTR);
      if (x == null) {
        continue;
      }
      try {
        if (ArchivePointer.parse(x, "inode " + m.inodeId()).manifestPath().equals(manifest)) {
          return true;
        }
      } catch (org.wideec.archive.CorruptManifestException e) {
        return true;
      }
    }
    return false;
  }

  /** The gauges hold what this pass found. */
  @Override
  void endPass(Map<String, WideEcArchivedBlocks.Target> live) {
    metrics.archivedStripesBelowTolerance.set(tally.belowTolerance);
    metrics.archivedStripesReprotected.set(tally.reprotected);
    metrics.archivedStripesReprotectionBlocked.set(tally.blocked);
    metrics.archivedMembersChanged.set(tally.membersChanged);
    metrics.archiveReprotectionPasses.incr();
    reported.endPass(); // what this pass no longer found is forgotten (and reported again if it comes back)
  }

  private static final class Tally {
    long belowTolerance;
    long reprotected;
    long blocked;
    long membersChanged;
  }

  /** What a raise came to. */
  private enum Raise { HELD, RAISING, REFUSED_FOR_QUOTA }

  /**
   * Restores the tolerance of a stripe whose members changed for good: every file holding a remaining unit (other
   * members, parity) to the replication {@link StripeProtection} computes, a unit whose replicas share DataNodes with
   * another unit's to {@code f + 1} ({@link StripeReprotection}: HDFS places the added replicas per block, blind to
   * the stripe), and each changed member's file still there to {@code f + 1} (at least {@code dfs.replication}), as
   * the parity no longer covers its bytes. Derived afresh each pass from the manifest and the namespace, so it
   * survives a restart and never lowers a replication (a user's higher one stays). The stripe counts below tolerance
   * until the worst {@code f} losses of the DataNodes listed now leave it decodable and every changed file holds its
   * replicas.
   */
  private void reprotect(ArchivedStripeRepair p, Map<Long, WideEcArchivedBlocks.BlockView> views, String where) {
    int changed = p.stale().length + p.gone().length;
    if (changed == 0) {
      return;
    }
    ArchivedStripe s = p.stripe();
    StripeProtection need = StripeProtection.of(s.code(), changed);
    short changedReplication = (short) Math.max(need.changedMemberReplication(), staleReplication);
    Set<Integer> changedUnits = new HashSet<>();
    java.util.Arrays.stream(p.stale()).forEach(changedUnits::add);
    java.util.Arrays.stream(p.gone()).forEach(changedUnits::add);
    StripeReprotection shared = StripeReprotection.of(need, remainingReplicas(s, changedUnits, views));
    Map<Long, Short> wanted = new java.util.LinkedHashMap<>();
    boolean held = shared.holds(); // on the replicas listed now: pending replication counts for nothing
    List<String> changes = new java.util.ArrayList<>();
    for (int u : s.storedUnits()) {
      StripeMember m = s.member(u);
      boolean isChanged = changedUnits.contains(u);
      short r = isChanged ? changedReplication : (short) shared.replicationOf(u);
      wanted.merge(m.inodeId(), r, (a, b) -> (short) Math.max(a, b));
      WideEcArchivedBlocks.BlockView v = views.get(m.blockId());
      if (isChanged && v != null && v.live().size() < r) {
        held = false;
      }
      if (isChanged) {
        String path = WideEcArchivedBlocks.pathOf(fsn, m.inodeId());
        changes.add("unit " + u + " (" + (path == null ? "inode " + m.inodeId() : path) + ", " + StripeProtection.change(
            m, path != null, v != null, v == null ? 0 : v.length()) + ")");
      }
    }
    tally.membersChanged += changed;
    quotaRefusal = null;
    for (Map.Entry<Long, Short> e : wanted.entrySet()) {
      held &= raise(e.getKey(), e.getValue(), where) == Raise.HELD;
    }
    if (quotaRefusal != null) {
      tally.blocked++;
      // Not transient: only an operator or the owner can make room, so it is said loudly once, not every pass.
      if (reported.first("quota " + where)) {
        LOG.error(quotaRefusal);
      }
    }
    if (held) {
      tally.reprotected++;
    } else {
      tally.belowTolerance++;
    }
    if (reported.first("changed " + where + " " + changes)) {
      LOG.warn("archived {} has members changed since archival: {}. Its code claims {} losses, {} units of it are"
          + " lost for good, so each remaining unit is kept at replication {} and each changed member's file at {}"
          + " until the stripe is archived again", where, String.join(", ", changes), need.tolerance(), changed,
          need.replication(), changedReplication);
    }
    if (!shared.sharedNodeUnits().isEmpty() && reported.first("shared " + where + " " + shared.sharedNodeUnits())) {
      LOG.warn("archived {}: units {} hold replicas on DataNodes that hold other units' replicas, so each is kept at"
          + " replication {} (no {} losses take it){}", where, shared.sharedNodeUnits(), need.tolerance() + 1,
          need.tolerance(), shared.holds() ? "" : "; until then " + shared.shortfall());
    }
  }

  /** Each remaining unit (stored, unchanged) with the DataNodes the NameNode lists holding a live replica of it. */
  private static Map<Integer, List<String>> remainingReplicas(ArchivedStripe s, Set<Integer> changedUnits,
      Map<Long, WideEcArchivedBlocks.BlockView> views) {
    Map<Integer, List<String>> out = new java.util.TreeMap<>();
    for (int u : s.storedUnits()) {
      WideEcArchivedBlocks.BlockView v = views.get(s.member(u).blockId());
      if (!changedUnits.contains(u)) {
        out.put(u, v == null ? List.of() : v.live().stream().map(Site::node).toList());
      }
    }
    return out;
  }

  /**
   * Raises a file to at least {@code r} replicas (never lowers it). HELD when it holds them (or is gone: nothing to
   * protect); otherwise the next pass looks again, whether it was raised now or refused.
   */
  private Raise raise(long inode, short r, String where) {
    short now = WideEcArchivedBlocks.replicationOf(fsn, inode);
    if (now < 0 || now >= r) {
      return Raise.HELD;
    }
    if (safeMode) {
      return Raise.RAISING; // a namespace write: HDFS refuses it in safe mode; the first pass after raises it
    }
    String path = WideEcArchivedBlocks.pathOf(fsn, inode);
    if (path == null) {
      return Raise.HELD;
    }
    try {
      manifests.fs().setReplication(new Path(path), r);
      LOG.info("archived file {} ({}) raised from replication {} to {}, as members of its stripe changed for good",
          path, where, now, r);
      metrics.archivedFilesReReplicated.incr();
      return Raise.RAISING;
    } catch (IOException | RuntimeException e) {
      QuotaRefusal q = QuotaRefusal.of(e);
      if (q == null) {
        failed.warn("wide-ec cannot raise the replication of {} ({}) to {}: {}", path, where, r, e.toString());
        return Raise.RAISING;
      }
      if (quotaRefusal == null) {
        quotaRefusal = "archived file " + path + " (" + where + ") needs replication " + r + " (now " + now + ") so"
            + " that its stripe survives the losses its code claims after members changed, but HDFS refuses the raise"
            + " for the quota of " + q.directory() + ": " + q.message() + ". Until that quota is raised, or the"
            + " directory archived again, the stripe stays below its tolerance";
      }
      return Raise.REFUSED_FOR_QUOTA;
    }
  }
}
