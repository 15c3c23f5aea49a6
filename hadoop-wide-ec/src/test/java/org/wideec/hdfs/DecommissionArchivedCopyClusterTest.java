package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeDescriptor;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeManager;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.datanode.RepairMetrics;
import org.wideec.datanode.WideEcDataNodePlugin;
import org.wideec.minicluster.Eventually;
import org.wideec.placement.hdfs.DecommissionSettings;
import org.wideec.placement.hdfs.WideEcNameNodeMetrics;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;

/**
 * Archived blocks on a leaving DataNode priced like block-group units, on the racked test bed (6 racks x 3 DataNodes,
 * azure-lrc:k=6,l=2,g=2 stripes trimmed to one replica, every block 64 KiB): the NICs a thousand times slower than the
 * rack links, and every block of the node ordered in one pass, each priced against the orders before it, so the first
 * is copied from the leaving node (its copy loads two NICs, a rebuild six), the next rebuilt from its stripe (a second
 * copy would double the leaving node's NIC), and the others as the NICs then stand. The decommission completes with some blocks copied and some rebuilt: the
 * leaving node's slice port sends exactly the copied blocks' bytes and nothing else, HDFS copies nothing, every member
 * of every manifest is live on a node in service in its planned rack under its own id with the manifest's CRC32C, and
 * every file reads back byte for byte.
 */
class DecommissionArchivedCopyClusterTest extends ArchiveTestBed {

  @Override
  Configuration baseConf() {
    Configuration base = repairConf(300);
    base.setInt(DFSConfigKeys.DFS_NAMENODE_DECOMMISSION_INTERVAL_KEY, 1);
    base.setLong(DecommissionSettings.NODE_RATE_KEY, 1_000_000L);
    base.setLong(DecommissionSettings.RACK_RATE_KEY, 1_000_000_000L);
    // Every archived block of the leaving node ordered in one pass, priced one after another against those in flight.
    base.setInt("wide-ec.archive.repair.max-concurrent", 64);
    return base;
  }

  @Test
  void aLeavingNodesArchivedBlocksAreSomeCopiedSomeRebuiltAndEveryStripeKeepsItsPlan() throws Exception {
    awaitTrimmerLease();
    for (int i = 0; i < 8; i++) {
      checks.write("/ar/f" + i, 6 * BLOCK);
    }
    StripeManifest before = archived("/ar");
    Map<String, Integer> archivedOn = archivedMembersPerNode(before);
    String leaving = busiestHoldingOnlyArchivedBlocks(archivedOn);
    int blocks = archivedOn.get(leaving);
    assertTrue(blocks >= 3, leaving + " holds several archived blocks: " + archivedOn);

    DataNode dn = datanode(leaving);
    RepairMetrics worker = WideEcDataNodePlugin.running(dn.getXferPort()).metrics();
    WideEcNameNodeMetrics metrics = WideEcNameNodePlugin.metrics();
    long hdfsCopiedBefore = counter(dn.getMetrics(), "blocksReplicated");
    long sentBefore = worker.bytesSentInRack() + worker.bytesSentCrossRack();
    long movedBefore = metrics.decommissionUnitsRebuilt();
    long copiedBefore = metrics.decommissionUnitsCopied();
    long bytesCopiedBefore = metrics.decommissionBytesCopied();
    long archivedCopiedBefore = metrics.decommissionArchivedBlocksCopied();
    long archivedRebuiltBefore = metrics.decommissionArchivedBlocksRebuilt();

    DatanodeDescriptor d = startDecommission(leaving);
    Eventually.await("the decommission of " + leaving, Duration.ofSeconds(150),
        () -> d.isDecommissioned() ? null : "moved " + (metrics.decommissionUnitsRebuilt() - movedBefore) + " of "
            + blocks + " (copied " + (metrics.decommissionUnitsCopied() - copiedBefore) + "), state "
            + d.getAdminState(), java.util.Objects::isNull);

    long copied = metrics.decommissionUnitsCopied() - copiedBefore;
    long rebuilt = metrics.decommissionUnitsRebuilt() - movedBefore - copied;
    assertEquals(blocks, copied + rebuilt, "every archived block of " + leaving + " moved by our workers");
    assertTrue(copied >= 1 && rebuilt >= 1, "some copied (" + copied + "), some rebuilt (" + rebuilt + ")");
    assertEquals(copied, metrics.decommissionArchivedBlocksCopied() - archivedCopiedBefore);
    assertEquals(rebuilt, metrics.decommissionArchivedBlocksRebuilt() - archivedRebuiltBefore);
    assertEquals(copied * BLOCK, metrics.decommissionBytesCopied() - bytesCopiedBefore);
    assertEquals(0, counter(dn.getMetrics(), "blocksReplicated") - hdfsCopiedBefore, "HDFS copied nothing");
    // A copy streams the block once from the leaving node's slice port, checked against the manifest's CRC32C (no
    // digest asked of it); a rebuild reads nothing there (a leaving replica is no helper).
    assertEquals(copied * BLOCK, worker.bytesSentInRack() + worker.bytesSentCrossRack() - sentBefore,
        "the leaving node sent exactly the copied blocks");

    StripeManifest after = manifestOf("/ar");
    assertEquals(before.stripes().size(), after.stripes().size());
    int moved = 0;
    for (ArchivedStripe s : after.stripes()) {
      ArchivedStripe was = before.stripes().stream().filter(x -> x.stripeId() == s.stripeId()).findFirst()
          .orElseThrow();
      for (int u : s.storedUnits()) {
        StripeMember m = s.member(u);
        String what = "stripe " + s.stripeId() + " unit " + u + " (blk_" + m.blockId() + ")";
        assertEquals(was.member(u).blockId(), m.blockId(), what + ": the manifest names the same block");
        var lb = located(m);
        DatanodeInfo[] inService = java.util.Arrays.stream(lb.getLocations())
            .filter(x -> !x.getXferAddr().equals(leaving)).toArray(DatanodeInfo[]::new);
        assertEquals(1, inService.length, what + " has one replica in service");
        assertEquals(m.generationStamp(), lb.getBlock().getGenerationStamp(), what);
        assertEquals(m.plannedRack(), inService[0].getNetworkLocation(), what + " in its planned rack");
        if (lb.getLocations().length == 2) { // the leaving node's replica, and the one our worker stored
          moved++;
        }
      }
    }
    assertEquals(blocks, moved, "every block of the leaving node live on a node in service beside it");
    checks.everyByteReadsBack();
  }

  /** The DataNode in service holding the most archived members and no other block. */
  private String busiestHoldingOnlyArchivedBlocks(Map<String, Integer> archivedOn) throws Exception {
    DatanodeManager dm = cluster.getNamesystem().getBlockManager().getDatanodeManager();
    String best = null;
    for (String node : archivedOn.keySet()) {
      var d = dm.getDatanode(datanode(node).getDatanodeId());
      if (d.isInService() && d.numBlocks() == archivedOn.get(node)
          && (best == null || archivedOn.get(node) > archivedOn.get(best))) {
        best = node;
      }
    }
    assertTrue(best != null, "some DataNode holds archived blocks and nothing else: " + archivedOn);
    return best;
  }
}
