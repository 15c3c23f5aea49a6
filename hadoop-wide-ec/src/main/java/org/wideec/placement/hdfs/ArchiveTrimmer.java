package org.wideec.placement.hdfs;

import java.io.IOException;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.XAttrSetFlag;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcBlockTrim;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcReplicaPlacementPolicy;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.apache.hadoop.hdfs.server.namenode.NameNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.TrimProtocol;
import org.wideec.code.UnitRole;

/**
 * The NameNode side of trimming archived data to its planned replica (DESIGN.md §3.2), a NameNode loop
 * ({@link PeriodicPass}). Every {@link TrimProtocol#INTERVAL_KEY} ms, and at once when the placement
 * policy deferred an archiver's {@code setReplication}, it reads the manifests under the archive directory and,
 * for each data block of a COMMITTED stripe whose file is at replication 1, trims the block to the replica on the
 * planned node ({@link WideEcBlockTrim}). A stripe with a member missing or changed since archival survives fewer
 * losses than its code claims, so none of its blocks is trimmed (this is the one place a trim is decided). A block
 * whose planned node holds no live replica is left alone and reported off plan once (log line and {@code
 * BlocksOffPlan}); moving it onto plan is not done here. Recording TRIMMED is the archiver's: it verifies the result
 * through the NameNode's block locations first.
 *
 * <p>Manifests are read through the {@link ManifestReader} (a DFS client as the NameNode's login user). While it can
 * trim, it
 * keeps a lease ({@link TrimProtocol#LEASE_XATTR}) on the archive directory fresh: archivers lower replication
 * only under that lease, as without our policy the stock one would pick survivors at random. The lease is not
 * removed at shutdown (the NameNode's RPC server may already be going); it lapses after
 * {@link TrimProtocol#leaseMs}.
 */
final class ArchiveTrimmer extends PeriodicPass {
  private static final Logger LOG = LoggerFactory.getLogger(ArchiveTrimmer.class);

  private final WideEcNameNodeMetrics metrics;
  private final long lease;
  private final ArchiveLayout layout;
  /** Off-plan blocks already reported (once per block while this NameNode runs). */
  private final Set<Long> offPlanReported = new HashSet<>();
  /** Stripes left untrimmed below their tolerance, as found (once each while this NameNode runs). */
  private final Set<String> belowReported = new HashSet<>();
  /** Manifests (path, modification time) with nothing left to trim; forgotten when a trim is deferred. */
  private final Map<String, Long> settled = new HashMap<>();
  private final ManifestReader manifests;
  private long leaseWritten; // 0: never (wall-clock ms, so any real time is long after it)
  private boolean policyReported;
  /**
   * Excess replicas of the blocks this pass looked at (its trims', and moves' sources): their deletions are handed out
   * as it ends, for the archiver that waits for them.
   */
  private final java.util.List<WideEcBlockTrim.ExcessReplica> excess = new java.util.ArrayList<>();

  ArchiveTrimmer(NameNode nn, FSNamesystem fsn, Configuration conf, WideEcNameNodeMetrics metrics, long interval) {
    super(fsn, "wide-ec-archive-trimmer", interval, false, LOG);
    this.metrics = metrics;
    this.lease = TrimProtocol.leaseMs(interval);
    this.manifests = new ManifestReader(nn, conf);
    this.layout = manifests.layout();
  }

  /** Starts the loop; the placement policy wakes it when it defers an archiver's {@code setReplication}. */
  void start() {
    // Called under the namesystem lock by the policy: wake only sets a flag and unparks.
    WideEcReplicaPlacementPolicy.onDeferred(this::wake);
    start(null);
  }

  @Override
  void stop() {
    WideEcReplicaPlacementPolicy.onDeferred(null);
    super.stop();
  }

  @Override
  void afterLastPass() {
    manifests.close();
  }

  @Override
  void passFailed(Throwable e) {
    metrics.trim.failures.incr();
    failed.warn("wide-ec archive trim pass failed: {}", e.toString(), e);
  }

  /** Trims only where HDFS works its replication queues (not in safe mode, not before they are populated). */
  @Override
  boolean mayRun() {
    return super.mayRun() && fsn.getBlockManager().isPopulatingReplQueues();
  }

  /** A file was just lowered: every manifest may have work again. */
  @Override
  void woken() {
    settled.clear();
  }

  @Override
  void runPass() throws IOException {
    if (!(fsn.getBlockManager().getBlockPlacementPolicy() instanceof WideEcReplicaPlacementPolicy)) {
      // Said only where there is archived data: a cluster that never archived has nothing left untrimmed.
      if (!policyReported && manifests.manifests().length > 0) {
        policyReported = true;
        LOG.error("archived data is not trimmed: dfs.block.replicator.classname is {}, not {}; archivers keep every"
            + " replica", fsn.getBlockManager().getBlockPlacementPolicy().getClass().getName(),
            WideEcReplicaPlacementPolicy.class.getName());
      }
      return;
    }
    policyReported = false;
    DistributedFileSystem dfs = manifests.fs();
    long now = System.currentTimeMillis();
    if (now - leaseWritten >= lease / 3) {
      Path root = layout.manifestDir().getParent();
      layout.ensureDirs(dfs);
      dfs.setXAttr(root, TrimProtocol.LEASE_XATTR, TrimProtocol.lease(now, lease),
          EnumSet.of(XAttrSetFlag.CREATE, XAttrSetFlag.REPLACE));
      leaseWritten = now;
    }
    long awaiting = 0;
    for (FileStatus st : manifests.manifests()) {
      String key = st.getPath().toUri().getPath();
      if (Long.valueOf(st.getModificationTime()).equals(settled.get(key))) {
        continue;
      }
      try {
        long left = trim(manifests.read(st.getPath()), key);
        awaiting += left;
        if (left == 0) {
          settled.put(key, st.getModificationTime());
        }
      } catch (IOException | RuntimeException e) {
        metrics.trim.failures.incr();
        failed.warn("wide-ec trim of the stripes of manifest {} failed: {}", key, e.toString(), e);
      }
    }
    metrics.trim.blocksAwaiting.set(awaiting);
    metrics.trim.passes.incr();
    if (!excess.isEmpty()) {
      int handed = WideEcBlockTrim.handOutDeletions(fsn, excess);
      LOG.debug("{} excess replicas of archived blocks: {} deletions handed out at once", excess.size(), handed);
      excess.clear();
    }
  }

  /** Trims the committed stripes of one manifest; returns how many blocks may still need a pass. */
  private long trim(StripeManifest m, String manifest) {
    long left = 0;
    for (ArchivedStripe s : m.stripes()) {
      if (s.state() != StripeState.COMMITTED) {
        continue; // before COMMITTED nothing is trimmed; TRIMMED and STALE have nothing to do
      }
      ArchivedStripeNow seen = ArchivedStripeNow.of(fsn, s);
      if (seen.belowTolerance()) {
        // Its other members' replicas are what protects them now: nothing of it is trimmed, here or anywhere else
        // (every trim of an archived block is decided in this loop). A missing unit is rebuilt and looked at again.
        if (belowReported.add(s.stripeId() + " " + manifest + " " + seen.repair().describe())) {
          LOG.warn("archived stripe {} of {} is not trimmed: it survives fewer losses than its code claims ({})",
              s.stripeId(), manifest, seen.repair().describe());
        }
        left += seen.unitsGone() > 0 ? 0 : 1;
        continue;
      }
      for (int u = 0; u < s.code().k(); u++) {
        StripeMember d = s.member(u);
        if (d.role() != UnitRole.DATA || d.padding()) {
          continue;
        }
        WideEcBlockTrim.Result r = WideEcBlockTrim.trim(fsn, d.blockId(), d.generationStamp(), d.length(), d.inodeId(),
            d.plannedNode());
        excess.addAll(r.excess());
        switch (r.outcome()) {
          case TRIMMED -> {
            metrics.trim.blocksTrimmed.incr();
            LOG.info("archived block blk_{} of inode {} (stripe {} of {}) trimmed to its planned replica on {}",
                d.blockId(), d.inodeId(), s.stripeId(), manifest, d.plannedNode());
          }
          case RETRY -> left++;
          case OFF_PLAN -> {
            if (offPlanReported.add(d.blockId())) {
              metrics.trim.blocksOffPlan.incr();
              LOG.warn("archived block blk_{} of inode {} (stripe {} of {}) is off plan: its planned node {} holds no"
                  + " live replica (replicas on {}); nothing was deleted. The archiver's next trim of it moves a"
                  + " replica there (replaceBlock with a delete hint)", d.blockId(), d.inodeId(), s.stripeId(), manifest,
                  d.plannedNode(), r.holders());
            }
          }
          case ON_PLAN, NOT_LOWERED, CHANGED -> { }
        }
      }
    }
    return left;
  }
}
