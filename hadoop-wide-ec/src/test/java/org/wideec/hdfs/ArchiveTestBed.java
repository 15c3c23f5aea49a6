package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockInfo;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockManager;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.ManifestStore;
import org.wideec.code.UnitRole;
import org.wideec.minicluster.Eventually;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;

/**
 * The archival cluster tests' shared bed: one racked cluster per class ({@link ArchiveChecks#cluster}), its file
 * system, the manifest store, the independent checks, and the tool as an operator runs it. A class that needs our
 * NameNode plugin or policies says so in {@link #baseConf()}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ArchiveTestBed {
  static final long BLOCK = 64 * 1024;
  static final String CODE = "azure-lrc:k=6,l=2,g=2";

  MiniDFSCluster cluster;
  DistributedFileSystem fs;
  Configuration conf;
  ArchiveChecks checks;
  ManifestStore store;

  /** The configuration the cluster starts from. */
  Configuration baseConf() {
    return new Configuration();
  }

  @BeforeAll
  void startTestBed(@TempDir java.nio.file.Path dir) throws Exception {
    cluster = ArchiveChecks.cluster(dir.toFile(), BLOCK, baseConf());
    fs = cluster.getFileSystem();
    conf = cluster.getConfiguration(0);
    checks = new ArchiveChecks(fs);
    store = new ManifestStore(fs, ArchiveLayout.from(conf));
  }

  @AfterAll
  void stopTestBed() {
    if (cluster != null) {
      cluster.shutdown();
    }
  }

  ToolRun tool(String... args) throws Exception {
    return ToolRun.of(conf, args);
  }

  StripeManifest manifestOf(String path) throws java.io.IOException {
    return store.find(store.inodeOf(new Path(path)));
  }

  /** The trimmer's first pass writes its lease; archivers lower replication only under it. */
  static void awaitTrimmerLease() {
    Eventually.await("a trimmer pass", Duration.ofSeconds(20),
        () -> WideEcNameNodePlugin.metrics() != null && WideEcNameNodePlugin.metrics().trim().passes() > 0);
  }

  /** Transfer addresses of the replicas the NameNode lists for each block of a file, in block order. */
  List<List<String>> locations(Path file) throws Exception {
    List<List<String>> out = new ArrayList<>();
    long len = fs.getFileStatus(file).getLen();
    for (LocatedBlock lb : fs.getClient().getLocatedBlocks(file.toString(), 0, len).getLocatedBlocks()) {
      List<String> at = new ArrayList<>();
      for (org.apache.hadoop.hdfs.protocol.DatanodeInfo d : lb.getLocations()) {
        at.add(d.getXferAddr());
      }
      out.add(at);
    }
    return out;
  }

  /** Live (not excess, not corrupt) replicas the NameNode counts for each block of a file. */
  List<Integer> liveReplicas(Path file) throws Exception {
    BlockManager bm = cluster.getNamesystem().getBlockManager();
    List<Integer> out = new ArrayList<>();
    long len = fs.getFileStatus(file).getLen();
    for (LocatedBlock lb : fs.getClient().getLocatedBlocks(file.toString(), 0, len).getLocatedBlocks()) {
      BlockInfo bi = bm.getStoredBlock(lb.getBlock().getLocalBlock());
      out.add(bm.countNodes(bi).liveReplicas());
    }
    return out;
  }

  /** Every data block of every stripe: one replica, on its planned node; its file at replication 1. */
  void everyDataBlockOnItsPlannedNodeOnly(StripeManifest m) throws Exception {
    for (ArchivedStripe s : m.stripes()) {
      for (StripeMember d : s.members()) {
        if (d.role() != UnitRole.DATA || d.padding() || s.state() != StripeState.TRIMMED) {
          continue;
        }
        Path file = ArchiveLayout.inodePath(d.inodeId());
        assertEquals(1, fs.getFileStatus(file).getReplication(), "inode " + d.inodeId());
        long len = fs.getFileStatus(file).getLen();
        LocatedBlock found = null;
        for (LocatedBlock lb : fs.getClient().getLocatedBlocks(file.toString(), 0, len).getLocatedBlocks()) {
          if (lb.getBlock().getBlockId() == d.blockId()) {
            found = lb;
          }
        }
        String what = "block " + d.blockId() + " of stripe " + s.stripeId();
        assertTrue(found != null, what);
        assertEquals(1, found.getLocations().length, what);
        assertEquals(d.plannedNode(), found.getLocations()[0].getXferAddr(), what + " kept on its planned node");
        BlockManager bm = cluster.getNamesystem().getBlockManager();
        assertEquals(1, bm.countNodes(bm.getStoredBlock(found.getBlock().getLocalBlock())).liveReplicas(), what);
      }
    }
  }

  /**
   * The member's block as the NameNode locates it now (reached by inode, so a renamed file is found too; through the
   * file info with locations, which HDFS answers in safe mode too, where getBlockLocations refuses a file with a block
   * listed nowhere).
   */
  LocatedBlock located(StripeMember m) {
    try {
      String file = ArchiveLayout.inodePath(m.inodeId()).toString();
      for (LocatedBlock lb : cluster.getFileSystem().getClient().getLocatedFileInfo(file, false).getLocatedBlocks()
          .getLocatedBlocks()) {
        if (lb.getBlock().getBlockId() == m.blockId()) {
          return lb;
        }
      }
      throw new AssertionError("block " + m.blockId() + " is not in inode " + m.inodeId());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Archives with {@link #CODE} and trim, and returns the manifest, every stripe TRIMMED. */
  StripeManifest archived(String path) throws Exception {
    ToolRun r = tool("archive", path, "--code", CODE);
    org.junit.jupiter.api.Assertions.assertEquals(0, r.exit(), r.out() + r.err());
    StripeManifest m = manifestOf(path);
    for (org.wideec.archive.ArchivedStripe s : m.stripes()) {
      org.junit.jupiter.api.Assertions.assertEquals(org.wideec.archive.StripeState.TRIMMED, s.state(),
          "stripe " + s.stripeId());
    }
    // The trim sets each block's replication to one; the NameNode deletes the other replicas over the next heartbeats.
    // Until then a DataNode listed as a member's holder may hold only an excess copy, and a drill taking it out would
    // find nothing of ours to move (its decommission ends at once). The blocks map is asked, not a client's view: a
    // copy stays listed there until its DataNode reports it deleted, and one a restarted NameNode hears of again
    // counts as a live replica.
    BlockManager bm = cluster.getNamesystem().getBlockManager();
    await("every stored member of " + path + " down to its one replica", () -> {
      for (org.wideec.archive.ArchivedStripe s : m.stripes()) {
        for (int u : s.storedUnits()) {
          int stored = 0;
          for (Object ignored : bm.getStorages(new org.apache.hadoop.hdfs.protocol.Block(s.member(u).blockId()))) {
            stored++;
          }
          if (stored != 1 || located(s.member(u)).getLocations().length != 1) {
            return false;
          }
        }
      }
      return true;
    });
    return m;
  }

  /** The running DataNode at a transfer address. */
  org.apache.hadoop.hdfs.server.datanode.DataNode datanode(String xferAddr) {
    return cluster.getDataNodes().stream().filter(d -> d.getDatanodeId().getXferAddr().equals(xferAddr)).findFirst()
        .orElseThrow(() -> new AssertionError("no DataNode at " + xferAddr));
  }

  /** Stops the DataNode holding the member and has the NameNode declare it dead at once. */
  void lose(StripeMember m) throws Exception {
    String holder = located(m).getLocations()[0].getXferAddr();
    DataNode dn = datanode(holder);
    cluster.stopDataNode(holder);
    cluster.setDataNodeDead(dn.getDatanodeId());
  }

  /** Waits until the member is live again, with the manifest's CRC. */
  void awaitRebuilt(StripeMember m) throws Exception {
    Eventually.await("blk_" + m.blockId() + " live again", Duration.ofSeconds(60),
        () -> located(m).getLocations().length > 0);
    LocatedBlock lb = located(m);
    byte[] b = new byte[(int) lb.getBlockSize()];
    try (org.apache.hadoop.fs.FSDataInputStream in = fs.open(ArchiveLayout.inodePath(m.inodeId()))) {
      in.readFully(lb.getStartOffset(), b);
    }
    assertEquals(m.crc32c(), ArchiveChecks.crc(b), "blk_" + m.blockId());
  }

  /** A counter of our DataNode plugin's metrics summed over every DataNode running it. */
  long sumOverDataNodes(java.util.function.ToLongFunction<org.wideec.datanode.RepairMetrics> f) {
    long sum = 0;
    for (org.apache.hadoop.hdfs.server.datanode.DataNode d : cluster.getDataNodes()) {
      org.wideec.datanode.WideEcDataNodePlugin p = org.wideec.datanode.WideEcDataNodePlugin.running(d.getXferPort());
      sum += p == null || p.metrics() == null ? 0 : f.applyAsLong(p.metrics());
    }
    return sum;
  }

  /** {@link Eventually#await} with the minute an archive test bed's waits get. */
  static void await(String what, Eventually.Look<Boolean> done) {
    Eventually.await(what, Duration.ofSeconds(60), done);
  }

  /** The Azure-LRC(6,2,2) block-group policy the decommission test beds write, with 64 KiB cells. */
  org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy lrcPolicy() throws java.io.IOException {
    return org.wideec.coder.hadoop.WideEcPolicies.addAndEnable(fs,
        org.wideec.coder.hadoop.WideEcPolicies.policy("azure-lrc-l2", 6, 4, 64 * 1024));
  }

  /**
   * Writes {@code files} files of random bytes (file i has {@code size.applyAsLong(i)} bytes) into {@code dir} under
   * {@code policy}, and waits until every block group is where the placement put it.
   */
  java.util.Map<Path, byte[]> writeStriped(String dir, org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy policy,
      int files, long seed, java.util.function.IntToLongFunction size) throws Exception {
    Path d = new Path(dir);
    fs.mkdirs(d);
    fs.setErasureCodingPolicy(d, policy.getName());
    java.util.Map<Path, byte[]> written = new java.util.TreeMap<>();
    java.util.Random r = new java.util.Random(seed);
    for (int i = 0; i < files; i++) {
      byte[] data = new byte[(int) size.applyAsLong(i)];
      r.nextBytes(data);
      Path p = new Path(d, "f" + i);
      try (org.apache.hadoop.fs.FSDataOutputStream o = fs.create(p)) {
        o.write(data);
      }
      written.put(p, data);
    }
    org.wideec.minicluster.StripedGroups.awaitSettled(cluster, fs, policy, written.keySet(), 60_000);
    return written;
  }

  /**
   * Our trimmer (a pass every 300 ms) on quick heartbeats, and archivers that wait {@code trimWaitMs} for their trims.
   */
  static Configuration trimmingConf(long trimWaitMs) {
    Configuration base = org.wideec.minicluster.MiniClusters.withWideEcArchiveTrim(
        org.wideec.minicluster.MiniClusters.withQuickDataNodeHeartbeats(new Configuration()), 300);
    base.setLong(org.wideec.archive.hdfs.TrimProtocol.WAIT_KEY, trimWaitMs);
    return base;
  }

  /**
   * The repair test beds' base configuration: our repair worker and trimmer (a trim pass every 300 ms), trims waited
   * for 30 s, and the archive repair monitor's pass every {@code passMs}.
   */
  static Configuration repairConf(long passMs) {
    Configuration base = org.wideec.minicluster.MiniClusters.withWideEcRepair(
        org.wideec.minicluster.MiniClusters.withWideEcArchiveTrim(new Configuration(), 300));
    base.setLong(org.wideec.archive.hdfs.TrimProtocol.WAIT_KEY, 30_000);
    base.setLong("wide-ec.archive.repair.interval.ms", passMs);
    return base;
  }

  /** Starts the node's decommission as dfsadmin -refreshNodes does for a host added to the exclude file. */
  org.apache.hadoop.hdfs.server.blockmanagement.DatanodeDescriptor startDecommission(String xferAddr)
      throws java.io.IOException {
    var fsn = cluster.getNamesystem();
    var dm = fsn.getBlockManager().getDatanodeManager();
    fsn.writeLock();
    try {
      var d = dm.getDatanode(datanode(xferAddr).getDatanodeId());
      dm.getDatanodeAdminManager().startDecommission(d);
      return d;
    } finally {
      fsn.writeUnlock();
    }
  }

  /** Stored members (data and parity) whose one replica is on each node. */
  java.util.Map<String, Integer> archivedMembersPerNode(org.wideec.archive.StripeManifest m) {
    java.util.Map<String, Integer> n = new java.util.TreeMap<>();
    for (org.wideec.archive.ArchivedStripe s : m.stripes()) {
      for (int u : s.storedUnits()) {
        for (org.apache.hadoop.hdfs.protocol.DatanodeInfo d : located(s.member(u)).getLocations()) {
          n.merge(d.getXferAddr(), 1, Integer::sum);
        }
      }
    }
    return n;
  }

  /** A counter of HDFS's own DataNode metrics (blocksReplicated: the blocks it copied), by field name. */
  static long counter(org.apache.hadoop.hdfs.server.datanode.metrics.DataNodeMetrics m, String name)
      throws ReflectiveOperationException {
    java.lang.reflect.Field f = org.apache.hadoop.hdfs.server.datanode.metrics.DataNodeMetrics.class
        .getDeclaredField(name);
    f.setAccessible(true);
    return ((org.apache.hadoop.metrics2.lib.MutableCounterLong) f.get(m)).value();
  }
}
