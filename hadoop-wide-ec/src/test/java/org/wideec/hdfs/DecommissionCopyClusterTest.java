package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
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
import org.junit.jupiter.api.Test;
import org.wideec.datanode.RepairMetrics;
import org.wideec.datanode.WideEcDataNodePlugin;
import org.wideec.minicluster.Eventually;
import org.wideec.minicluster.StripedGroups;
import org.wideec.placement.hdfs.DecommissionSettings;
import org.wideec.placement.hdfs.WideEcNameNodeMetrics;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;

/**
 * Decommission by copies through our workers, on the racked test bed (6 racks x 3 DataNodes, Azure-LRC(6,2,2) block
 * groups), with the NICs priced a thousand times faster than the rack links and one order at a time, so that each
 * unit, planned alone, is copied: its copy crosses at most one rack link, while its rebuild crosses at least one (a
 * local group of 4 units cannot fit a rack of 3 nodes) and loads more links. The dry run prints the plan (the units
 * as one batch, which may rebuild some to spare the leaving rack's uplink); the decommission then copies every unit
 * through our workers: the planned bytes leave the leaving node's slice port exactly once, with one 8-byte digest per
 * unit, the other DataNodes send only the targets' read-back digests, HDFS copies nothing, and every replica of every unit is what the code
 * computes from the file's bytes.
 */
class DecommissionCopyClusterTest extends ArchiveTestBed {

  @Override
  Configuration baseConf() {
    Configuration base = repairConf(300);
    base.setInt(DFSConfigKeys.DFS_NAMENODE_DECOMMISSION_INTERVAL_KEY, 1);
    base.setLong(DecommissionSettings.NODE_RATE_KEY, 1_000_000_000L);
    base.setLong(DecommissionSettings.RACK_RATE_KEY, 1_000_000L);
    // One order at a time: each unit is priced alone, and alone a copy crosses at most one rack link where every
    // rebuild crosses at least one (a local group of 4 cannot fit a rack of 3) and loads more links.
    base.setInt("wide-ec.decommission.max-concurrent", 1);
    return base;
  }

  @Test
  void aDecommissionThatThePlanCopiesMovesExactlyThePlannedBytesFromTheLeavingNodeAndEveryByteReadsBack()
      throws Exception {
    awaitTrimmerLease();
    ErasureCodingPolicy policy = lrcPolicy();
    Map<Path, byte[]> striped = writeStriped("/lrc", policy, 8, 17, i -> 6 * BLOCK - 999 * i);
    List<String> candidates = holdingOnlyOurUnits(striped);
    assertTrue(!candidates.isEmpty(), "some DataNode holds units of our groups and nothing else");
    String leaving = candidates.get(0);

    ToolRun dry = tool("decommission", leaving, "--dry-run", "--json");
    assertEquals(0, dry.exit(), dry.out() + dry.err());
    JsonNode plan = dry.json();
    int units = plan.path("rebuilds").size();
    assertTrue(units >= 3, "the leaving node holds several units: " + dry.out());
    assertEquals(units, plan.path("unitsCopied").asLong() + plan.path("unitsRebuilt").asLong(), dry.out());
    assertTrue(plan.path("predictedSeconds").asDouble() > 0, dry.out());
    long plannedBytes = plan.path("bytes").asLong();
    Map<String, String> plannedRack = new HashMap<>();
    for (JsonNode row : plan.path("rebuilds")) {
      assertEquals(row.path("fromLeavingNode").asBoolean() ? "copy" : "rebuild", row.path("way").asText(),
          row.toString());
      java.util.regex.Matcher id = java.util.regex.Pattern.compile("blk_(-?\\d+)").matcher(row.path("group").asText());
      assertTrue(id.find(), row.toString());
      plannedRack.put(id.group(1) + "/" + row.path("unit").asInt(), row.path("targetRack").asText());
    }

    DataNode dn = datanode(leaving);
    RepairMetrics worker = WideEcDataNodePlugin.running(dn.getXferPort()).metrics();
    WideEcNameNodeMetrics metrics = WideEcNameNodePlugin.metrics();
    long hdfsCopiedBefore = counter(dn.getMetrics(), "blocksReplicated");
    long sentByLeavingBefore = worker.bytesSentInRack() + worker.bytesSentCrossRack();
    long sentByAllBefore = sumOverDataNodes(m -> m.bytesSentInRack() + m.bytesSentCrossRack());
    long copiedBefore = metrics.decommissionUnitsCopied();
    long bytesCopiedBefore = metrics.decommissionBytesCopied();

    DatanodeDescriptor d = startDecommission(leaving);
    Eventually.await("the decommission of " + leaving, Duration.ofSeconds(150),
        () -> d.isDecommissioned() ? null : "copied " + (metrics.decommissionUnitsCopied() - copiedBefore) + " of "
            + units + ", state " + d.getAdminState(), java.util.Objects::isNull);

    assertEquals(units, metrics.decommissionUnitsCopied() - copiedBefore, "every unit copied by our workers");
    assertEquals(plannedBytes, metrics.decommissionBytesCopied() - bytesCopiedBefore, "the planned bytes copied");
    assertEquals(0, counter(dn.getMetrics(), "blocksReplicated") - hdfsCopiedBefore, "HDFS copied nothing");
    // The leaving node's slice port sent each unit once and one 8-byte CRC32C digest per unit; the other DataNodes
    // sent only the 8-byte digest each target reads back of the replica it stored (a copy reads no helper, and no
    // second decode rereads the one replica).
    long sentByLeaving = worker.bytesSentInRack() + worker.bytesSentCrossRack() - sentByLeavingBefore;
    assertEquals(plannedBytes + (long) Long.BYTES * units, sentByLeaving, "exactly the planned bytes and digests");
    assertEquals((long) Long.BYTES * units, sumOverDataNodes(m -> m.bytesSentInRack() + m.bytesSentCrossRack())
        - sentByAllBefore - sentByLeaving, "the other DataNodes sent one read-back digest per unit, no slice");

    String leavingRack = d.getNetworkLocation();
    int placedAsPlanned = 0;
    for (Path p : striped.keySet()) {
      for (LocatedStripedBlock g : StripedGroups.groups(fs, p)) {
        var placed = StripedGroups.unitsAndUnitsOutside(g, leaving);
        assertEquals(placed.getKey(), placed.getValue(),
            p + " group " + g.getBlock() + " has every unit on a node in service");
        for (int i = 0; i < g.getLocations().length; i++) {
          DatanodeInfo at = g.getLocations()[i];
          String key = g.getBlock().getBlockId() + "/" + g.getBlockIndices()[i];
          String rack = plannedRack.get(key);
          if (rack != null && !at.getXferAddr().equals(leaving)) {
            // The unit's own rack is every plan's first choice wherever a node there holds none of the group; another
            // rack is chosen among equals by whom earlier plans selected, which one plan and many differ in.
            if (rack.equals(leavingRack)) {
              assertEquals(rack, at.getNetworkLocation(), key + " copied into its own rack, as the dry run planned");
            }
            placedAsPlanned++;
          }
        }
      }
      byte[] back = new byte[striped.get(p).length];
      try (FSDataInputStream in = fs.open(p)) {
        in.readFully(0, back);
      }
      assertArrayEquals(striped.get(p), back, p.toString());
      int located = StripedGroups.groups(fs, p).stream().mapToInt(g -> g.getLocations().length).sum();
      assertEquals(located, StripedGroups.verifyEveryUnit(cluster, fs, p, policy,
          org.wideec.coder.StripedCodec.AZURE_LRC_L2.codeFor(6, 4), striped.get(p)), p.toString());
    }
    assertEquals(units, placedAsPlanned, "every planned unit found live on a node in service");
  }

  /** The DataNodes holding units of the striped files and no other block, those holding the most first. */
  private List<String> holdingOnlyOurUnits(Map<Path, byte[]> striped) throws Exception {
    Map<String, Integer> unitsOn = new TreeMap<>();
    for (Path p : striped.keySet()) {
      for (LocatedStripedBlock g : StripedGroups.groups(fs, p)) {
        for (DatanodeInfo d : g.getLocations()) {
          unitsOn.merge(d.getXferAddr(), 1, Integer::sum);
        }
      }
    }
    DatanodeManager dm = cluster.getNamesystem().getBlockManager().getDatanodeManager();
    List<String> out = new ArrayList<>();
    for (String node : unitsOn.keySet()) {
      if (dm.getDatanode(datanode(node).getDatanodeId()).numBlocks() == unitsOn.get(node)) {
        out.add(node);
      }
    }
    out.sort(java.util.Comparator.comparing((String n) -> -unitsOn.get(n)).thenComparing(n -> n));
    return out;
  }
}
