package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.BlockMover;
import org.wideec.archive.hdfs.TrimProtocol;
import org.wideec.code.UnitRole;
import org.wideec.minicluster.Eventually;
import org.wideec.minicluster.MiniClusters;
import org.wideec.placement.hdfs.WideEcNameNodeMetrics;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;

/**
 * Archived replicas stay on plan on the racked test bed (6 racks x 3 DataNodes, 64 KiB blocks,
 * azure-lrc:k=6,l=2,g=2) with {@code dfs.datanode.block-pinning.enabled} and block tokens on. The NameNode starts
 * with its placement keeper off; a file is archived and trimmed, and one data block is moved to another rack the
 * Balancer's way (off plan, as after a NameNode restart mid-trim). The NameNode restarts with the keeper on: the block
 * is moved back onto its planned node under the same id and generation stamp with its bytes unchanged, every kept
 * replica and parity block is pinned on its planned node, a Balancer-style move of a pinned replica is refused, and
 * fsck finds nothing off plan.
 */
class ArchivePlacementKeeperClusterTest extends ArchiveTestBed {
  private static final String KEEPER = "wide-ec.archive.keeper.enabled";

  @Override
  Configuration baseConf() {
    Configuration base = MiniClusters.withWideEcRepair(MiniClusters.withWideEcArchiveTrim(new Configuration(), 300));
    base.setLong(TrimProtocol.WAIT_KEY, 30_000);
    base.setBoolean(DFSConfigKeys.DFS_DATANODE_BLOCK_PINNING_ENABLED, true);
    base.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    base.setBoolean(KEEPER, false);
    base.setLong("wide-ec.archive.keeper.interval.ms", 300);
    base.setLong("wide-ec.archive.keeper.backoff.ms", 500);
    return base;
  }

  @BeforeAll
  void awaitLease() throws Exception {
    awaitTrimmerLease();
  }

  private static WideEcNameNodeMetrics metrics() {
    return WideEcNameNodePlugin.metrics();
  }

  private List<String> holders(StripeMember m) throws Exception {
    List<String> out = new ArrayList<>();
    for (DatanodeInfo d : located(m).getLocations()) {
      out.add(d.getXferAddr());
    }
    return out;
  }

  private boolean pinnedOnPlannedNode(StripeMember m) throws IOException {
    ExtendedBlock b = new ExtendedBlock(cluster.getNamesystem().getBlockPoolId(), m.blockId(), m.length(),
        m.generationStamp());
    return datanode(m.plannedNode()).getFSDataset().getPinning(b);
  }

  /** The off-plan findings of {@code wide-ec fsck PATH}, as "unit blk". */
  private List<String> offPlan(String path) throws Exception {
    ToolRun r = tool("fsck", path, "--json");
    JsonNode archived = r.json().get("archived");
    List<String> out = new ArrayList<>();
    archived.get("stripes").forEach(s -> s.get("findings").forEach(f -> {
      if (f.get("problem").asText().equals("off-plan")) {
        out.add(f.get("unit").asInt() + " " + f.get("block").asLong());
      }
    }));
    return out;
  }

  @Test
  void aBlockMovedOffPlanIsMovedBackAndEveryReplicaOnPlanIsPinned() throws Exception {
    String path = "/keep/a";
    checks.write(path, 6 * BLOCK);
    ToolRun r = tool("archive", path, "--code", CODE);
    assertEquals(0, r.exit(), r.out() + r.err());
    StripeManifest m = manifestOf(path);
    assertEquals(1, m.stripes().size());
    ArchivedStripe s = m.stripes().get(0);
    assertEquals(StripeState.TRIMMED, s.state());

    // Off plan: data unit 0 moved (REPLACE_BLOCK, delete hint) to a node of another rack holding nothing of the stripe.
    StripeMember moved = s.member(0);
    assertEquals(UnitRole.DATA, moved.role());
    assertEquals(List.of(moved.plannedNode()), holders(moved));
    byte[] before = checks.readBlock(moved);
    Set<String> stripeNodes = new HashSet<>();
    for (int u : s.storedUnits()) {
      stripeNodes.addAll(holders(s.member(u)));
    }
    DatanodeInfo elsewhere = null;
    for (DatanodeInfo d : fs.getDataNodeStats()) {
      if (!d.getNetworkLocation().equals(moved.plannedRack()) && !stripeNodes.contains(d.getXferAddr())) {
        elsewhere = d;
        break;
      }
    }
    assertTrue(elsewhere != null, "a node outside the stripe");
    try (BlockMover mover = new BlockMover(fs)) {
      String file = ArchiveLayout.inodePath(moved.inodeId()).toString();
      mover.move(BlockMover.candidates(file, located(moved), elsewhere, null).get(0));
    }
    assertEquals(List.of(elsewhere.getXferAddr()), holders(moved));
    assertEquals(List.of("0 " + moved.blockId()), offPlan(path));

    // The NameNode restarts with its keeper on.
    cluster.getConfiguration(0).setBoolean(KEEPER, true);
    cluster.restartNameNode(true);
    // Four minutes: a move that fails while the DataNodes settle with the restarted NameNode (re-registration, block
    // reports, its new block keys) doubles the block's back-off from 500 ms (64 s after seven failures), so on a
    // loaded 2-core machine the first move that can succeed may come two minutes after the restart.
    Eventually.await("blk_" + moved.blockId() + " only on its planned node " + moved.plannedNode(),
        Duration.ofSeconds(240), () -> holders(moved), List.of(moved.plannedNode())::equals);
    LocatedBlock back = located(moved);
    assertEquals(moved.blockId(), back.getBlock().getBlockId());
    assertEquals(moved.generationStamp(), back.getBlock().getGenerationStamp());
    assertEquals(moved.length(), back.getBlockSize());
    assertArrayEquals(before, checks.readBlock(moved));
    assertEquals(moved.crc32c(), ArchiveChecks.crc(checks.readBlock(moved)));
    // The keeper counts the move once the NameNode lists the block on the target only, a moment after a test may.
    Eventually.await("a move back counted", Duration.ofSeconds(90), () -> metrics().archivedBlocksMovedBack(),
        n -> n > 0);
    assertEquals(1, metrics().archivedBlocksMovedBack());
    assertEquals(0, metrics().archivedMoveBackFailures());

    // Every stored member, data and parity, is pinned on its planned node, and only there.
    int stored = s.storedUnits().length;
    Eventually.await("all " + stored + " stored members pinned", Duration.ofSeconds(90),
        () -> metrics().archivedBlocksPinned(), n -> n >= stored);
    for (int u : s.storedUnits()) {
      StripeMember mem = s.member(u);
      assertEquals(List.of(mem.plannedNode()), holders(mem), "unit " + u);
      assertTrue(pinnedOnPlannedNode(mem), "unit " + u + " blk_" + mem.blockId() + " pinned on " + mem.plannedNode());
    }
    assertEquals(stored, metrics().archivedBlocksPinned());
    assertEquals(List.of(), offPlan(path));

    // The Balancer's move of a pinned replica is refused by its holder, and the replica stays.
    StripeMember kept = s.member(1);
    DatanodeInfo away = null;
    for (DatanodeInfo d : fs.getDataNodeStats()) {
      if (!d.getNetworkLocation().equals(kept.plannedRack())) {
        away = d;
        break;
      }
    }
    BlockMover.Move balancer = BlockMover.candidates(ArchiveLayout.inodePath(kept.inodeId()).toString(), located(kept),
        away, null).get(0);
    // The mover used before the NameNode restarted left an IPC connection to the old NameNode in the client's cache:
    // the first call after the restart may still meet it closed (EOF) and is tried once more.
    IOException refused = null;
    for (int attempt = 0; attempt < 2 && (refused == null || refused.getMessage().contains("EOFException")); attempt++) {
      try (BlockMover mover = new BlockMover(fs)) {
        refused = assertThrows(IOException.class, () -> mover.move(balancer));
      }
    }
    assertTrue(refused.getMessage().contains("ERROR_BLOCK_PINNED"), refused.getMessage());
    assertEquals(List.of(kept.plannedNode()), holders(kept));
    checks.everyByteReadsBack();

    // Every DataNode says it honours pins.
    JsonNode nodes = tool("nodes", "--json").json().get("datanodes");
    assertEquals(18, nodes.size());
    nodes.forEach(n -> assertTrue(n.get("blockPinning").asBoolean(), n.toString()));
    assertEquals(0, tool("check-cluster", "--json").json().get("warnings").size());
  }
}
