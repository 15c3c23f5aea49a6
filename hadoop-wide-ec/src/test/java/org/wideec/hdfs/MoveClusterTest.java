package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockManager;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.ipc.CallerContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivalPlan;
import org.wideec.archive.ArchivalPlanner;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.PlacementKind;
import org.wideec.archive.PlannedStripe;
import org.wideec.archive.PlannedUnit;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.ArchivalSource;
import org.wideec.archive.hdfs.BlockMover;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.Archiver;
import org.wideec.archive.hdfs.ClientClassicEncoder;
import org.wideec.archive.hdfs.TrimProtocol;
import org.wideec.code.Codes;
import org.wideec.code.UnitRole;
import org.wideec.minicluster.Eventually;
import org.wideec.minicluster.MiniClusters;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;

/**
 * The plan's MOVEs executed (replaceBlock with the source as delete hint, the Balancer's way) on the trim test bed
 * (6 racks x 3 DataNodes, azure-lrc:k=6,l=2,g=2) with block access tokens on, so the mover's tokens come from the
 * NameNode's block keys. Files are written with all replicas on three DataNodes in two racks, which no plan for a
 * stripe spread over racks can keep, so the plan must move blocks. Afterwards every stripe is TRIMMED, every data
 * block has exactly one replica, on its planned node, under its original id and generation stamp, no block fell
 * below its file's replication before the file was lowered, and every byte reads back.
 */
class MoveClusterTest extends ArchiveTestBed {
  InetSocketAddress[] crowded;

  @Override
  Configuration baseConf() {
    Configuration base = trimmingConf(30_000);
    base.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    return base;
  }

  @BeforeAll
  void crowdAndAwaitLease() throws Exception {
    // Two DataNodes of /rack0 and one of /rack1 (MiniClusters numbers them rack by rack).
    List<DataNode> dns = cluster.getDataNodes();
    crowded = new InetSocketAddress[] {dns.get(0).getXferAddress(), dns.get(1).getXferAddress(),
        dns.get(3).getXferAddress()};
    awaitTrimmerLease();
  }

  /** Block id → generation stamp, and block id → replicas (transfer addresses), of every file under a directory. */
  private Map<Long, Long> genStamps(Path dir) throws Exception {
    Map<Long, Long> out = new HashMap<>();
    for (LocatedBlock lb : blocksUnder(dir)) {
      out.put(lb.getBlock().getBlockId(), lb.getBlock().getGenerationStamp());
    }
    return out;
  }

  private Map<Long, List<String>> replicas(Path dir) throws Exception {
    Map<Long, List<String>> out = new HashMap<>();
    for (LocatedBlock lb : blocksUnder(dir)) {
      List<String> at = new ArrayList<>();
      for (DatanodeInfo d : lb.getLocations()) {
        at.add(d.getXferAddr());
      }
      java.util.Collections.sort(at); // the NameNode orders locations by distance to the reader, randomly on ties
      out.put(lb.getBlock().getBlockId(), at);
    }
    return out;
  }

  private List<LocatedBlock> blocksUnder(Path dir) throws Exception {
    List<LocatedBlock> out = new ArrayList<>();
    for (FileStatus st : fs.listStatus(dir)) {
      String f = st.getPath().toUri().getPath();
      out.addAll(fs.getClient().getLocatedBlocks(f, 0, st.getLen()).getLocatedBlocks());
    }
    return out;
  }

  /** Blocks the plan moves (MOVE units), checked to be what HDFS lacks: the planned node holds no replica. */
  private Set<Long> plannedMoves(Path dir, Map<Long, List<String>> before) throws Exception {
    ArchivalPlan plan = ArchivalPlanner.plan(new ArchivalSource(fs).request(dir, Codes.canonical(CODE),
        PlacementKind.CL));
    Set<Long> moves = new HashSet<>();
    for (PlannedStripe s : plan.stripes()) {
      for (PlannedUnit u : s.units()) {
        if (u.action() == PlannedUnit.Action.MOVE) {
          moves.add(u.block().blockId());
          assertTrue(before.get(u.block().blockId()).contains(u.fromNode()), u + " moves from a holder");
          assertFalse(before.get(u.block().blockId()).contains(u.node()), u + " moves to a node without a replica");
        }
      }
    }
    return moves;
  }

  /** Runs in the background until stopped: no block drops below 3 live replicas while its file still asks for 3. */
  private Thread watchReplication(Path dir, AtomicReference<String> violation, AtomicBoolean stop) {
    Thread t = new Thread(() -> {
      BlockManager bm = cluster.getNamesystem().getBlockManager();
      while (!stop.get() && violation.get() == null) {
        try {
          for (FileStatus st : fs.listStatus(dir)) {
            String f = st.getPath().toUri().getPath();
            for (LocatedBlock lb : fs.getClient().getLocatedBlocks(f, 0, st.getLen()).getLocatedBlocks()) {
              int live = bm.countNodes(bm.getStoredBlock(lb.getBlock().getLocalBlock())).liveReplicas();
              // Counted first, replication read after: if it is still 3, the count was taken while it was 3.
              if (live < 3 && fs.getFileStatus(st.getPath()).getReplication() == 3) {
                violation.set(f + " block " + lb.getBlock() + " had " + live + " live replicas at replication 3");
              }
            }
          }
          Thread.sleep(20);
        } catch (Exception e) {
          if (!stop.get()) {
            violation.compareAndSet(null, "watcher failed: " + e);
          }
        }
      }
    }, "replication-watch");
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** Every data block of the manifest: one replica, on its planned node, id and generation stamp as recorded. */
  private void everyDataBlockExactlyOnItsPlannedNode(StripeManifest m, Map<Long, Long> genStampsBefore)
      throws Exception {
    for (ArchivedStripe s : m.stripes()) {
      assertEquals(StripeState.TRIMMED, s.state(), "stripe " + s.stripeId());
    }
    everyDataBlockOnItsPlannedNodeOnly(m);
    for (ArchivedStripe s : m.stripes()) {
      for (StripeMember d : s.members()) {
        if (d.role() == UnitRole.DATA && !d.padding()) {
          String what = "block " + d.blockId() + " of stripe " + s.stripeId() + " generation stamp";
          long now = located(d).getBlock().getGenerationStamp();
          assertEquals(d.generationStamp(), now, what);
          assertEquals(genStampsBefore.get(d.blockId()), now, what);
        }
      }
    }
  }

  @Test
  void thePlansMovesAreExecutedAndEveryBlockIsTrimmedOntoItsPlannedNode() throws Exception {
    Path dir = new Path("/mv");
    checks.writeOn("/mv/a", 9 * BLOCK + 1000, crowded); // 10 blocks: a full stripe and a short one
    checks.writeOn("/mv/b", 2 * BLOCK + 17, crowded);
    Map<Long, List<String>> before = replicas(dir);
    Map<Long, Long> gs = genStamps(dir);
    Set<Long> moves = plannedMoves(dir, before);
    assertTrue(moves.size() >= 1, "the layout forces the plan to move blocks");

    Archiver archiver = new Archiver(fs, store, ClientClassicEncoder.from(fs), Archiver.Hook.NONE,
        Archiver.Listener.NONE);
    archiver.archive(dir, CODE, PlacementKind.CL);
    StripeManifest committed = store.find(store.inodeOf(dir));
    Set<Long> lacking = new HashSet<>();
    Map<Long, List<String>> atCommit = replicas(dir);
    for (ArchivedStripe s : committed.stripes()) {
      assertEquals(StripeState.COMMITTED, s.state());
      for (StripeMember d : s.members()) {
        if (d.role() == UnitRole.DATA && !d.padding() && !atCommit.get(d.blockId()).contains(d.plannedNode())) {
          lacking.add(d.blockId());
        }
      }
    }
    assertEquals(moves, lacking, "the manifest's planned nodes are the plan's; its MOVEs are the blocks to move");
    assertEquals(atCommit, before, "nothing moved or deleted up to COMMITTED");

    AtomicReference<String> violation = new AtomicReference<>();
    AtomicBoolean stop = new AtomicBoolean();
    Thread watch = watchReplication(dir, violation, stop);
    Archiver.TrimResult t;
    try {
      t = archiver.trim(dir, Archiver.TrimProgress.NONE);
    } finally {
      stop.set(true);
      watch.join(10_000);
    }
    assertEquals(null, violation.get());
    assertEquals(List.of(), t.offPlan());
    assertEquals(List.of(), t.notTrimmed());
    assertEquals(List.of(), t.stale());
    assertEquals(moves.size(), t.moved().size(), t.moved().toString());
    for (long b : moves) {
      assertTrue(t.moved().stream().anyMatch(l -> l.contains("blk_" + b + "_")), "block " + b + " moved: " + t.moved());
    }
    StripeManifest m = store.find(store.inodeOf(dir));
    assertEquals(committed.stripes().size(), t.trimmed());
    everyDataBlockExactlyOnItsPlannedNode(m, gs);
    checks.everyStripeMatchesIndependentEncode(m);
    checks.everyByteReadsBack();

    // A rerun finds everything in place: nothing moved, nothing to trim.
    Archiver.TrimResult again = new Archiver(fs, store, ClientClassicEncoder.from(fs), Archiver.Hook.NONE,
        Archiver.Listener.NONE).trim(dir, Archiver.TrimProgress.NONE);
    assertEquals(List.of(), again.moved());
    assertEquals(0, again.trimmed());
    assertTrue(again.clean());
  }

  /**
   * A file lowered with the trim marker while its planned nodes held no replica (what an archiver without moves,
   * or one that crashed after lowering, leaves: the trimmer finds the blocks off plan and deletes nothing): the
   * next trim moves a replica onto each planned node at replication 1, and the NameNode keeps exactly the moved one
   * (our policy keeps the replica moved with a delete hint), so every stripe still ends TRIMMED on plan.
   */
  @Test
  void blocksOfAFileLoweredBeforeTheirMovesAreMovedAndTrimmedOnPlan() throws Exception {
    Path dir = new Path("/lw");
    checks.writeOn("/lw/a", 6 * BLOCK, crowded);
    Map<Long, Long> gs = genStamps(dir);
    Set<Long> moves = plannedMoves(dir, replicas(dir));
    assertTrue(moves.size() >= 1, "the layout forces the plan to move blocks");
    Archiver archiver = new Archiver(fs, store, ClientClassicEncoder.from(fs), Archiver.Hook.NONE,
        Archiver.Listener.NONE);
    archiver.archive(dir, CODE, PlacementKind.CL);
    long offPlanBefore = WideEcNameNodePlugin.metrics().trim().blocksOffPlan();
    CallerContext was = CallerContext.getCurrent();
    CallerContext.setCurrent(new CallerContext.Builder(TrimProtocol.CALLER_CONTEXT).build());
    try {
      fs.setReplication(new Path("/lw/a"), (short) 1);
    } finally {
      CallerContext.setCurrent(was);
    }
    Eventually.await("the trimmer sees the blocks whose planned node holds none", Duration.ofSeconds(20),
        () -> WideEcNameNodePlugin.metrics().trim().blocksOffPlan(), n -> n >= offPlanBefore + moves.size());
    Map<Long, List<String>> lowered = replicas(dir);
    for (long b : moves) {
      assertEquals(3, lowered.get(b).size(), "block " + b + ": off plan, nothing deleted");
    }

    Archiver.TrimResult t = archiver.trim(dir, Archiver.TrimProgress.NONE);
    assertEquals(List.of(), t.offPlan());
    assertEquals(List.of(), t.notTrimmed());
    assertEquals(moves.size(), t.moved().size(), t.moved().toString());
    everyDataBlockExactlyOnItsPlannedNode(store.find(store.inodeOf(dir)), gs);
    checks.everyByteReadsBack();
  }

  /**
   * A holder decommissioning is no live replica: after the copy the NameNode has nothing in excess and keeps the
   * source's replica, so the move ends once the target is listed, not after the whole wait.
   */
  @Test
  void aMoveOfABlockWithADecommissioningHolderEndsOnceTheTargetIsListed() throws Exception {
    List<DataNode> dns = cluster.getDataNodes();
    DataNode a = dns.get(0); // /rack0
    DataNode b = dns.get(3); // /rack1
    Path f = new Path("/decom/f");
    try (org.apache.hadoop.fs.FSDataOutputStream o = fs.create(f, org.apache.hadoop.fs.permission.FsPermission
        .getFileDefault(), true, 4096, (short) 2, BLOCK, null, new InetSocketAddress[] {a.getXferAddress(),
            b.getXferAddress()})) {
      o.write(new byte[(int) BLOCK]);
    }
    LocatedBlock lb = fs.getClient().getLocatedBlocks(f.toString(), 0, BLOCK).get(0);
    List<String> holders = java.util.Arrays.stream(lb.getLocations()).map(DatanodeInfo::getXferAddr).sorted().toList();
    org.junit.jupiter.api.Assumptions.assumeTrue(holders.equals(java.util.stream.Stream.of(a, b)
        .map(d -> d.getDatanodeId().getXferAddr()).sorted().toList()), "favored nodes honoured: " + holders);
    var dm = cluster.getNamesystem().getBlockManager().getDatanodeManager();
    var decommissioning = dm.getDatanode(a.getDatanodeId());
    DatanodeInfo target = java.util.Arrays.stream(fs.getClient().datanodeReport(
        org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType.LIVE))
        .filter(d -> !d.getNetworkLocation().equals("/rack0") && !d.getNetworkLocation().equals("/rack1"))
        .findFirst().orElseThrow();
    long was = fs.getConf().getLong(BlockMover.WAIT_KEY, BlockMover.WAIT_DEFAULT);
    fs.getConf().setLong(BlockMover.WAIT_KEY, 20_000);
    decommissioning.startDecommission();
    try (BlockMover mover = new BlockMover(fs)) {
      lb = fs.getClient().getLocatedBlocks(f.toString(), 0, BLOCK).get(0);
      List<BlockMover.Move> ways = BlockMover.candidates(f.toString(), lb, target, b.getDatanodeId().getXferAddr());
      assertEquals(List.of(b.getDatanodeId().getXferAddr()), ways.stream().map(m -> m.source().getXferAddr())
          .toList(), "the decommissioning holder is never the source");
      long start = System.nanoTime();
      mover.move(ways.get(0));
      long ms = (System.nanoTime() - start) / 1_000_000;
      assertTrue(ms < 10_000, "the move took " + ms + " ms: it waited for a replica the NameNode keeps");
      List<String> after = java.util.Arrays.stream(fs.getClient().getLocatedBlocks(f.toString(), 0, BLOCK).get(0)
          .getLocations()).map(DatanodeInfo::getXferAddr).toList();
      assertTrue(after.contains(target.getXferAddr()) && after.contains(b.getDatanodeId().getXferAddr()),
          "the copy is listed and the source kept (no excess): " + after);
    } finally {
      decommissioning.stopDecommission();
      fs.getConf().setLong(BlockMover.WAIT_KEY, was);
    }
  }
}
