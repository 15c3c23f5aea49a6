package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeDescriptor;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeManager;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeMember;
import org.wideec.datanode.RepairMetrics;
import org.wideec.datanode.WideEcDataNodePlugin;
import org.wideec.minicluster.Eventually;
import org.wideec.minicluster.StripedGroups;
import org.wideec.placement.hdfs.WideEcNameNodeMetrics;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;
import org.wideec.transport.TransportFaultInjector;

/**
 * Decommission by local reconstruction on the racked test bed (6 racks x 3 DataNodes, 64 KiB blocks), with block
 * groups of an Azure-LRC(6,2,2) policy and archived stripes of azure-lrc:k=6,l=2,g=2 trimmed to one replica: a
 * DataNode holding units of both is decommissioned the standard way (HDFS's admin manager, as refreshNodes does), and
 * the decommission completes with every unit it held rebuilt elsewhere by our workers from other units, while the
 * leaving node copied nothing (HDFS's copies are counted by its blocksReplicated) and served no slice of any unit;
 * {@code wide-ec decommission} refuses a node in service, prints the plan with {@code --dry-run}, and follows the
 * decommission to its end. Then a node enters maintenance: its archived blocks are rebuilt, its group units stay.
 * Then a node whose units our workers cannot rebuild is still decommissioned, by HDFS's own copies, and one holding a
 * unit whose replica there is corrupt, by HDFS's reconstruction. Last, an archived block also listed on a
 * decommissioned node is rebuilt, not copied, when its live replica's node leaves. The tests share the cluster and run
 * in this order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DecommissionClusterTest extends ArchiveTestBed {
  private final Map<Path, byte[]> striped = new TreeMap<>();
  private ErasureCodingPolicy policy;

  @Override
  Configuration baseConf() {
    Configuration base = repairConf(300);
    base.setInt(DFSConfigKeys.DFS_NAMENODE_DECOMMISSION_INTERVAL_KEY, 1);
    // A few blocks per pass: each leaving node here is walked over several passes, as a node with millions is.
    base.setInt("wide-ec.decommission.blocks-per-pass", 3);
    // Local reconstruction only (copies through our workers: DecommissionCopyClusterTest).
    base.setLong(org.wideec.placement.hdfs.DecommissionSettings.NODE_RATE_KEY, 0);
    // No placement keeper: its first pass, a minute after the NameNode starts, moves back the parity blocks the
    // archive's write left off plan (HDFS did not choose their favored nodes), and it may fall in any drill here. A
    // move just done leaves the old replica listed, excess, until its node deletes it: a drill taking that node out
    // counts it among the node's archived blocks, yet it needs no rebuild ("rebuilt: expected 3 but was 1").
    base.setBoolean("wide-ec.archive.keeper.enabled", false);
    return base;
  }

  @BeforeAll
  void writeBothLayouts() throws Exception {
    awaitTrimmerLease();
    policy = lrcPolicy();
    // One or two groups a file, some short.
    striped.putAll(writeStriped("/lrc", policy, 6, 11, i -> 6 * BLOCK * (1 + i % 2) - 1000 * i));
    checks.write("/ar/a", 3 * BLOCK + 17);
    checks.write("/ar/b", 7 * BLOCK);
    checks.write("/ar/c", 2 * BLOCK + 5);
    archived("/ar");
  }

  private static WideEcNameNodeMetrics metrics() {
    return WideEcNameNodePlugin.metrics();
  }

  /**
   * A DataNode a test takes out of service, with the units of each layout it holds then.
   *
   * @param striped units of block groups on each DataNode
   * @param archived stored members of archived stripes on each DataNode
   */
  private record Leaving(String node, DataNode dn, Map<String, Integer> striped, Map<String, Integer> archived) {
    int stripedUnits() {
      return striped.get(node);
    }

    int archivedBlocks() {
      return archived.get(node);
    }
  }

  /** The DataNode in service holding the most units of both layouts, as they are now ({@link #busiestInService}). */
  private Leaving busiestLeaving() throws Exception {
    Map<String, Integer> stripedOn = stripedUnitsPerNode();
    Map<String, Integer> archivedOn = archivedMembersPerNode(manifestOf("/ar"));
    String node = busiestInService(stripedOn, archivedOn);
    return new Leaving(node, datanode(node), stripedOn, archivedOn);
  }

  /** Waits until HDFS has the node in the admin state {@code reached} says, showing {@code progress} meanwhile. */
  private void awaitAdminState(Leaving l, String what, java.util.function.Predicate<DatanodeDescriptor> reached,
      java.util.function.Supplier<String> progress) throws Exception {
    DatanodeManager dm = cluster.getNamesystem().getBlockManager().getDatanodeManager();
    Eventually.await(what, Duration.ofSeconds(180), () -> {
      DatanodeDescriptor d = dm.getDatanode(l.dn().getDatanodeId());
      return reached.test(d) ? null : progress.get() + ", state " + d.getAdminState();
    }, java.util.Objects::isNull);
  }

  /**
   * Waits until no rebuild order of ours runs: HDFS ends a decommission or a node's entry into maintenance as soon as
   * the last rebuilt replica is reported, which may be a moment before the order's thread has confirmed it and counted
   * it; the counts are final after.
   */
  private static void awaitOrdersEnded() {
    Eventually.await("every rebuild order ended", Duration.ofSeconds(60),
        () -> metrics().archivedBlocksRebuilding() == 0 && metrics().decommissionUnitsRebuilding() == 0);
  }

  /** Every striped file and every archived file reads back as written. */
  private void everyByteReadsBack() throws Exception {
    for (Path p : striped.keySet()) {
      assertArrayEquals(striped.get(p), read(p), p.toString());
    }
    checks.everyByteReadsBack();
  }

  /**
   * The DataNode in service holding the most units of both layouts (at least one of each) and no other block: a
   * replica of a replicated file (a manifest, say) may be copied from a leaving node by HDFS, which is right, but
   * would blur what the node's copy counter says about our units.
   */
  private String busiestInService(Map<String, Integer> stripedOn, Map<String, Integer> archivedOn) throws Exception {
    DatanodeManager dm = cluster.getNamesystem().getBlockManager().getDatanodeManager();
    String best = null;
    for (String node : stripedOn.keySet()) {
      var d = dm.getDatanode(datanode(node).getDatanodeId());
      int ours = stripedOn.get(node) + archivedOn.getOrDefault(node, 0);
      if (archivedOn.getOrDefault(node, 0) > 0 && d.isInService() && d.numBlocks() == ours
          && (best == null || ours > stripedOn.get(best) + archivedOn.get(best))) {
        best = node;
      }
    }
    assertTrue(best != null, "some DataNode in service holds units of both layouts and nothing else: " + stripedOn
        + " " + archivedOn);
    return best;
  }

  @Test
  @Order(1)
  void aDecommissionCompletesWithEveryUnitRebuiltElsewhereAndNothingReadFromTheLeavingNode() throws Exception {
    Leaving l = busiestLeaving();
    String leaving = l.node();
    Map<String, Integer> stripedOn = l.striped();

    ToolRun refused = tool("decommission", leaving);
    assertEquals(3, refused.exit(), refused.out() + refused.err());
    assertTrue(refused.err().contains(leaving + " is in service") && refused.err().contains("dfs.hosts.exclude"),
        refused.err());
    ToolRun dry = tool("decommission", leaving, "--dry-run", "--json");
    assertEquals(0, dry.exit(), dry.out() + dry.err());
    var plan = dry.json();
    assertEquals(stripedOn.get(leaving).intValue(), plan.path("rebuilds").size(), dry.out());
    assertEquals(0, plan.path("unitsFromLeavingNode").asLong(), dry.out());
    assertEquals(l.archivedBlocks(), plan.path("archivedBlocks").asLong(), dry.out());
    for (var rebuild : plan.path("rebuilds")) {
      assertTrue(!rebuild.path("target").asText().equals(leaving) && !rebuild.path("helpers").toString()
          .contains("@" + leaving + "\""), "the plan neither stores on nor reads from the leaving node: " + rebuild);
    }

    int units = l.stripedUnits() + l.archivedBlocks();
    DataNode dn = l.dn();
    RepairMetrics worker = WideEcDataNodePlugin.running(dn.getXferPort()).metrics();
    long copiedBefore = counter(dn.getMetrics(), "blocksReplicated");
    long slicesBefore = worker.bytesSentInRack() + worker.bytesSentCrossRack();
    long rebuiltBefore = metrics().decommissionUnitsRebuilt();

    startDecommission(leaving);
    String node = leaving;
    // The command follows the decommission HDFS runs and returns once HDFS calls the node DECOMMISSIONED.
    ToolRun follow = assertTimeoutPreemptively(Duration.ofSeconds(180), () -> tool("decommission", node, "--json"),
        () -> "rebuilt " + metrics().decommissionUnitsRebuilt() + ", left " + metrics().decommissionUnitsLeft()
            + ", failures " + metrics().decommissionRebuildFailures());
    assertEquals(0, follow.exit(), follow.out() + follow.err());
    assertEquals("DECOMMISSIONED", follow.json().path("state").asText(), follow.out());
    assertEquals(0, follow.json().path("unitsFromLeavingNode").asLong(), follow.out());
    DatanodeManager dm = cluster.getNamesystem().getBlockManager().getDatanodeManager();
    assertTrue(dm.getDatanode(dn.getDatanodeId()).isDecommissioned());
    awaitOrdersEnded();

    assertEquals(0, counter(dn.getMetrics(), "blocksReplicated") - copiedBefore,
        "HDFS copied nothing from the leaving node");
    assertEquals(0, metrics().decommissionUnitsFromLeavingNode(), "the plan read no unit from the leaving node");
    assertEquals(units, metrics().decommissionUnitsRebuilt() - rebuiltBefore,
        "every unit of " + node + " rebuilt by our workers");
    // The slice port's only answers were the CRC32C digests the NameNode asked of its block-group replicas (the
    // check a rebuilt unit must pass): one 8-byte frame each.
    assertEquals((long) Long.BYTES * stripedOn.get(leaving),
        worker.bytesSentInRack() + worker.bytesSentCrossRack() - slicesBefore,
        "the leaving node served no slice of any unit, only one digest per block-group unit ("
            + stripedOn.get(leaving) + " of them; " + l.archivedBlocks() + " archived blocks)");
    Map<String, Integer> stripedAfter = stripedUnitsPerNode();
    assertEquals(stripedOn.get(leaving), stripedAfter.getOrDefault(leaving, 0),
        "the decommissioned node still lists its units, each live elsewhere too");
    for (Path p : striped.keySet()) {
      for (LocatedStripedBlock g : StripedGroups.groups(fs, p)) {
        var placed = StripedGroups.unitsAndUnitsOutside(g, node);
        assertEquals(placed.getKey(), placed.getValue(),
            p + " group " + g.getBlock() + " has every unit on a node in service");
      }
      assertArrayEquals(striped.get(p), read(p), p.toString());
      // Every replica of every unit, the rebuilt ones and those left on the decommissioned node, read from disk
      // through its checksums, is what the code computes from the file's bytes.
      int located = StripedGroups.groups(fs, p).stream().mapToInt(g -> g.getLocations().length).sum();
      assertEquals(located, StripedGroups.verifyEveryUnit(cluster, fs, p, policy,
          org.wideec.coder.StripedCodec.AZURE_LRC_L2.codeFor(6, 4), striped.get(p)), p.toString());
    }
    checks.everyByteReadsBack();
    for (ArchivedStripe s : manifestOf("/ar").stripes()) {
      for (int u : s.storedUnits()) {
        var member = s.member(u);
        var lb = located(member);
        String what = "stripe " + s.stripeId() + " unit " + u + " (blk_" + member.blockId() + ")";
        assertEquals(1, java.util.Arrays.stream(lb.getLocations()).filter(d -> !d.getXferAddr().equals(node)).count(),
            what + " has one replica in service");
        assertEquals(member.generationStamp(), lb.getBlock().getGenerationStamp(), what);
        DatanodeInfo inService = java.util.Arrays.stream(lb.getLocations()).filter(d -> !d.getXferAddr().equals(node))
            .findFirst().orElseThrow();
        assertEquals(member.crc32c(), ArchiveChecks.crc(replica(inService, member)), what + " on "
            + inService.getXferAddr() + " has the manifest's CRC32C");
      }
    }
  }

  /**
   * A node entering maintenance is expected back, so HDFS asks only for a group's data-unit count of live units and
   * one live replica of a contiguous block: its archived blocks (single replicas HDFS would copy from it) are rebuilt
   * elsewhere, its block-group units stay, and nothing is copied from it.
   */
  @Test
  @Order(2)
  void aNodeEnteringMaintenanceHasItsArchivedBlocksRebuiltAndKeepsItsBlockGroupUnits() throws Exception {
    Leaving l = busiestLeaving();
    long copiedBefore = counter(l.dn().getMetrics(), "blocksReplicated");
    long rebuiltBefore = metrics().decommissionUnitsRebuilt();

    startMaintenance(l.dn());
    awaitAdminState(l, l.node() + " in maintenance", DatanodeDescriptor::isInMaintenance,
        () -> "rebuilt " + (metrics().decommissionUnitsRebuilt() - rebuiltBefore));
    awaitOrdersEnded();

    assertEquals(0, counter(l.dn().getMetrics(), "blocksReplicated") - copiedBefore,
        "HDFS copied nothing from " + l.node());
    assertEquals(l.archivedBlocks(), metrics().decommissionUnitsRebuilt() - rebuiltBefore,
        "its archived blocks, and nothing else, rebuilt elsewhere");
    // HDFS hides a node in maintenance from readers: its units drop out of the locations, and none is added elsewhere.
    int listed = l.striped().values().stream().mapToInt(Integer::intValue).sum();
    assertEquals(listed - l.stripedUnits(), stripedUnitsPerNode().values().stream().mapToInt(Integer::intValue).sum(),
        "its block-group units stay on it: none rebuilt elsewhere");
    for (ArchivedStripe s : manifestOf("/ar").stripes()) {
      for (int u : s.storedUnits()) {
        assertTrue(java.util.Arrays.stream(located(s.member(u)).getLocations())
            .anyMatch(d -> d.getAdminState() == DatanodeInfo.AdminStates.NORMAL),
            "stripe " + s.stripeId() + " unit " + u + " has a replica in service");
      }
    }
    everyByteReadsBack();
  }

  /**
   * Our rebuild failing is no reason for a decommission to hang: with the leaving node's slice port refusing to
   * answer (so no rebuilt unit can be checked against its replica's digest), each of its block-group units is given
   * back to HDFS, which handles it as stock HDFS does (a copy from the node, or, for the groups that also miss their
   * unit on the node in maintenance, a reconstruction); its archived blocks need nothing from it and are rebuilt from
   * their stripes.
   */
  @Test
  @Order(3)
  void aUnitOurWorkerFailsToRebuildIsCopiedByHdfsAndTheDecommissionStillCompletes() throws Exception {
    Leaving l = busiestLeaving();
    String node = l.node();
    long rebuiltBefore = metrics().decommissionUnitsRebuilt();
    long failedBefore = metrics().decommissionRebuildFailures();
    TransportFaultInjector.set(new TransportFaultInjector() {
      @Override
      public void beforeSend(String from, String to, long repairId, int slice, ByteBuf payload) throws IOException {
        if (from.equals(node)) {
          throw new IOException("injected: " + node + " sends nothing on its slice port");
        }
      }
    });
    try {
      startDecommission(node);
      awaitAdminState(l, "the decommission of " + node + " complete", DatanodeDescriptor::isDecommissioned,
          () -> "failures " + (metrics().decommissionRebuildFailures() - failedBefore));
    } finally {
      TransportFaultInjector.set(null);
    }
    awaitOrdersEnded();
    // HDFS may copy a unit before our walk reaches it (the node it keeps in maintenance since @Order(2) changes what
    // HDFS counts as missing), so not every unit's rebuild need have been tried; none may have succeeded.
    assertTrue(metrics().decommissionRebuildFailures() - failedBefore >= 1, "our worker's rebuilds failed");
    assertEquals(l.archivedBlocks(), metrics().decommissionUnitsRebuilt() - rebuiltBefore,
        "the archived blocks rebuilt from their stripes");
    everyByteReadsBack();
  }

  /**
   * A unit whose replica on the leaving node is corrupt is no decommission copy: HDFS reconstructs it from the other
   * units as it would any lost unit, our claim leaves it alone (plan and claim read the same usable replicas), and the
   * decommission completes with every byte read back.
   */
  @Test
  @Order(4)
  void aUnitWhoseReplicaOnTheLeavingNodeIsCorruptIsReconstructedByHdfsAndTheDecommissionCompletes() throws Exception {
    var fsn = cluster.getNamesystem();
    DatanodeManager dm = fsn.getBlockManager().getDatanodeManager();
    // HDFS counts a group's units on a node in maintenance (the one of the test before stays there) toward its
    // redundancy and asks for as many units as it is short of that, and a DataNode rebuilds the lowest missing
    // indexes first: with a lower unit in maintenance, HDFS rebuilds that one, calls the group whole, and the
    // decommission completes with this unit still missing. So the unit is the lowest its group lacks once it is
    // corrupt: every unit below it is live in service, and it is live on its node only.
    Path file = null;
    LocatedStripedBlock group = null;
    int at = -1;
    for (Path p : striped.keySet()) {
      for (LocatedStripedBlock g : StripedGroups.groups(fs, p)) {
        int i = group == null ? lowestSingleUnitInService(dm, g) : -1;
        if (i >= 0) {
          file = p;
          group = g;
          at = i;
        }
      }
    }
    assertTrue(group != null, "some group has every unit below one live in service and that one on a node in service"
        + " only");
    DatanodeInfo holder = group.getLocations()[at];
    DataNode dn = datanode(holder.getXferAddr());
    var internal = new org.apache.hadoop.hdfs.protocol.ExtendedBlock(group.getBlock().getBlockPoolId(),
        group.getBlock().getBlockId() + group.getBlockIndices()[at], 1, group.getBlock().getGenerationStamp());
    fsn.writeLock();
    try {
      // In one hold of the lock, so our decommission never sees the replica usable.
      DatanodeDescriptor d = dm.getDatanode(dn.getDatanodeId());
      dm.getDatanodeAdminManager().startDecommission(d);
      fsn.getBlockManager().findAndMarkBlockAsCorrupt(internal, d, group.getStorageIDs()[at], "test: bit rot");
    } finally {
      fsn.writeUnlock();
    }
    awaitAdminState(new Leaving(holder.getXferAddr(), dn, Map.of(), Map.of()),
        "the decommission of " + holder.getXferAddr() + " complete", DatanodeDescriptor::isDecommissioned, () -> "");
    int unit = group.getBlockIndices()[at];
    Path inFile = file;
    long groupId = group.getBlock().getBlockId();
    // The decommission completes once HDFS counts the group whole, which its reconstruction of this unit makes it; the
    // unit's new replica may reach the locations a client is given a moment later.
    Eventually.await("unit " + unit + " of " + group.getBlock() + " live on a node in service again",
        Duration.ofSeconds(60), () -> {
          for (LocatedStripedBlock g : StripedGroups.groups(fs, inFile)) {
            for (int i = 0; g.getBlock().getBlockId() == groupId && i < g.getLocations().length; i++) {
              if (g.getBlockIndices()[i] == unit && dm.getDatanode(g.getLocations()[i]).isInService()) {
                return null;
              }
            }
          }
          return "not yet";
        }, java.util.Objects::isNull);
    everyByteReadsBack();
  }

  /** Starts the node's maintenance (with no end), as dfsadmin -refreshNodes does for a host so listed. */
  private void startMaintenance(DataNode dn) throws IOException {
    var fsn = cluster.getNamesystem();
    DatanodeManager dm = fsn.getBlockManager().getDatanodeManager();
    fsn.writeLock();
    try {
      dm.getDatanodeAdminManager().startMaintenance(dm.getDatanode(dn.getDatanodeId()), Long.MAX_VALUE);
    } finally {
      fsn.writeUnlock();
    }
  }

  /**
   * A decommissioned node keeps its replicas listed: each archived block the first test rebuilt elsewhere is still
   * listed there beside its new replica, and HDFS never copies from a decommissioned node. When the node holding the
   * new replica enters maintenance, the block has no replica to copy but the leaving one, as if it had only that one:
   * our workers rebuild it from its stripe and HDFS copies nothing from the node, though every rebuild here is held
   * back {@link #HOLD_MS} ms, past the cycles in which HDFS would order its copy (its admin monitor, redundancy
   * monitor and heartbeats run every second here).
   */
  @Test
  @Order(5)
  void anArchivedBlockAlsoListedOnADecommissionedNodeIsRebuiltNotCopiedWhenItsLiveReplicaLeaves() throws Exception {
    DatanodeManager dm = cluster.getNamesystem().getBlockManager().getDatanodeManager();
    // Each stored member by the one DataNode in service listing it; the first also listed on a decommissioned node.
    Map<String, Integer> onlyLiveOn = new TreeMap<>();
    StripeMember both = null;
    String holder = null;
    for (ArchivedStripe s : manifestOf("/ar").stripes()) {
      for (int u : s.storedUnits()) {
        StripeMember m = s.member(u);
        List<String> inService = new ArrayList<>();
        boolean decommissioned = false;
        for (DatanodeInfo d : located(m).getLocations()) {
          DatanodeDescriptor dd = dm.getDatanode(d);
          decommissioned |= dd.isDecommissioned();
          if (dd.isInService()) {
            inService.add(d.getXferAddr());
          }
        }
        if (inService.size() == 1) {
          onlyLiveOn.merge(inService.get(0), 1, Integer::sum);
          if (both == null && decommissioned && aloneInItsFileOn(m, inService.get(0))) {
            both = m;
            holder = inService.get(0);
          }
        }
      }
    }
    assertTrue(both != null, "some archived block is listed on a decommissioned node and on one node in service that"
        + " holds no other block of its file (one that were claimed would hold back HDFS's copy of the whole file)");
    DataNode dn = datanode(holder);
    long copiedBefore = counter(dn.getMetrics(), "blocksReplicated");
    long rebuiltBefore = metrics().decommissionArchivedBlocksRebuilt();
    TransportFaultInjector.set(new TransportFaultInjector() {
      @Override
      public void onRepairAttempt(String requestorNode, long repairId) {
        if (requestorNode.startsWith("client ")) {
          return; // a degraded read, not our worker's rebuild
        }
        try {
          Thread.sleep(HOLD_MS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    });
    try {
      startMaintenance(dn);
      awaitAdminState(new Leaving(holder, dn, Map.of(), Map.of()), holder + " in maintenance",
          DatanodeDescriptor::isInMaintenance, () -> "");
    } finally {
      TransportFaultInjector.set(null);
    }
    awaitOrdersEnded();
    String what = "blk_" + both.blockId() + ", listed on " + holder + " and on a decommissioned node";
    assertEquals(0, counter(dn.getMetrics(), "blocksReplicated") - copiedBefore,
        "HDFS copied nothing from " + holder + ", " + what);
    assertEquals(onlyLiveOn.get(holder).longValue(), metrics().decommissionArchivedBlocksRebuilt() - rebuiltBefore,
        "every archived block live only on " + holder + " rebuilt from its stripe, " + what + " among them");
    int live = 0;
    for (DatanodeInfo d : located(both).getLocations()) {
      live += dm.getDatanode(d).isInService() ? 1 : 0;
    }
    assertEquals(1, live, what + ": one replica in service, the rebuilt one");
    everyByteReadsBack();
  }

  /**
   * How long each rebuild attempt waits before it starts in the last test: with the claim, HDFS waits for our rebuild
   * however long it takes, so the hold only gives HDFS's copy, were the block not claimed, time to happen first.
   */
  private static final long HOLD_MS = 5_000;

  /** Whether no block of {@code m}'s file but its own is listed on {@code node}. */
  private boolean aloneInItsFileOn(StripeMember m, String node) throws IOException {
    String file = org.wideec.archive.hdfs.ArchiveLayout.inodePath(m.inodeId()).toString();
    for (var lb : cluster.getFileSystem().getClient().getLocatedFileInfo(file, false).getLocatedBlocks()
        .getLocatedBlocks()) {
      if (lb.getBlock().getBlockId() != m.blockId()
          && java.util.Arrays.stream(lb.getLocations()).anyMatch(d -> d.getXferAddr().equals(node))) {
        return false;
      }
    }
    return true;
  }

  /**
   * The position in {@code g}'s locations of its lowest unit held on one node in service only, when every unit below
   * it is live in service; -1 when a unit below is not (in maintenance, say).
   */
  private int lowestSingleUnitInService(DatanodeManager dm, LocatedStripedBlock g) throws IOException {
    for (int unit = 0; unit < policy.getNumDataUnits() + policy.getNumParityUnits(); unit++) {
      int position = -1;
      int held = 0;
      for (int i = 0; i < g.getLocations().length; i++) {
        if (g.getBlockIndices()[i] == unit && dm.getDatanode(g.getLocations()[i]).isInService()) {
          position = i;
          held++;
        }
      }
      if (held == 1) {
        return position;
      }
      if (held == 0) {
        return -1;
      }
    }
    return -1;
  }

  private Map<String, Integer> stripedUnitsPerNode() throws Exception {
    Map<String, Integer> n = new TreeMap<>();
    for (Path p : striped.keySet()) {
      for (LocatedStripedBlock g : StripedGroups.groups(fs, p)) {
        for (DatanodeInfo d : g.getLocations()) {
          n.merge(d.getXferAddr(), 1, Integer::sum);
        }
      }
    }
    return n;
  }


  /** A replica's bytes read from the DataNode's disk through its checksums. */
  private byte[] replica(DatanodeInfo at, org.wideec.archive.StripeMember m) throws Exception {
    byte[] b = new byte[(int) m.length()];
    try (var in = new org.wideec.datanode.FsDatasetUnitStore(datanode(at.getXferAddr())).open(
        new org.wideec.repair.BlockRef(cluster.getNamesystem().getBlockPoolId(), m.blockId(), m.generationStamp(),
            m.length()))) {
      in.read(0, b, 0, b.length);
    }
    return b;
  }

  private byte[] read(Path p) throws Exception {
    byte[] back = new byte[striped.get(p).length];
    try (FSDataInputStream in = fs.open(p)) {
      in.readFully(0, back);
    }
    return back;
  }
}
