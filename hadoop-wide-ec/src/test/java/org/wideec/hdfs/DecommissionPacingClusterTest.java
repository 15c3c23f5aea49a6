package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
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
import org.junit.jupiter.api.Test;
import org.wideec.minicluster.Eventually;
import org.wideec.minicluster.StripedGroups;
import org.wideec.placement.hdfs.WideEcNameNodeMetrics;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;

/**
 * Our decommission is paced by its orders, not by the repair interval: with one rebuild order at a time and a repair
 * pass only every 10 minutes, a DataNode holding several units of our block groups is still decommissioned within
 * minutes, every unit rebuilt by our workers and none left to HDFS's copy, because each order that ends while others
 * wait runs the next pass at once (HDFS's own admin monitor reschedules every few seconds).
 */
class DecommissionPacingClusterTest extends ArchiveTestBed {

  @Override
  Configuration baseConf() {
    Configuration base = repairConf(600_000);
    base.setInt("wide-ec.decommission.max-concurrent", 1);
    base.setInt(DFSConfigKeys.DFS_NAMENODE_DECOMMISSION_INTERVAL_KEY, 1);
    return base;
  }

  @Test
  void eachRebuildThatEndsStartsTheNextSoOneOrderAtATimeDecommissionsANodeWithinMinutes() throws Exception {
    awaitTrimmerLease();
    ErasureCodingPolicy policy = lrcPolicy();
    Map<Path, byte[]> striped = writeStriped("/lrc", policy, 8, 5, i -> 6 * BLOCK - 777 * i);
    Map<String, Integer> unitsOn = new TreeMap<>();
    for (Path p : striped.keySet()) {
      for (LocatedStripedBlock g : StripedGroups.groups(fs, p)) {
        for (DatanodeInfo d : g.getLocations()) {
          unitsOn.merge(d.getXferAddr(), 1, Integer::sum);
        }
      }
    }
    DatanodeManager dm = cluster.getNamesystem().getBlockManager().getDatanodeManager();
    String busiest = null;
    for (String node : unitsOn.keySet()) {
      DatanodeDescriptor d = dm.getDatanode(datanode(node).getDatanodeId());
      if (d.numBlocks() == unitsOn.get(node) && (busiest == null || unitsOn.get(node) > unitsOn.get(busiest))) {
        busiest = node;
      }
    }
    String leaving = busiest;
    assertTrue(leaving != null && unitsOn.get(leaving) >= 3,
        "some DataNode holds 3 or more units of our groups and nothing else: " + unitsOn);
    int units = unitsOn.get(leaving);
    WideEcNameNodeMetrics metrics = WideEcNameNodePlugin.metrics();
    long rebuiltBefore = metrics.decommissionUnitsRebuilt();
    long fromLeavingBefore = metrics.decommissionUnitsFromLeavingNode();

    DatanodeDescriptor d = startDecommission(leaving);
    // One order at a time, a pass every 10 minutes: without the next pass at each order's end, the second unit
    // would wait 10 minutes.
    Eventually.await("the decommission of " + leaving, Duration.ofSeconds(150),
        () -> d.isDecommissioned() ? null : "rebuilt " + (metrics.decommissionUnitsRebuilt() - rebuiltBefore) + " of "
            + units + ", state " + d.getAdminState(), java.util.Objects::isNull);
    assertEquals(units, metrics.decommissionUnitsRebuilt() - rebuiltBefore, "every unit rebuilt by our workers");
    assertEquals(0, metrics.decommissionUnitsFromLeavingNode() - fromLeavingBefore, "none left to HDFS's copy");
    for (Path p : striped.keySet()) {
      for (LocatedStripedBlock g : StripedGroups.groups(fs, p)) {
        var placed = StripedGroups.unitsAndUnitsOutside(g, leaving);
        assertEquals(placed.getKey(), placed.getValue(),
            p + " group " + g.getBlock() + " has every unit on a node in service");
      }
      byte[] back = new byte[striped.get(p).length];
      try (FSDataInputStream in = fs.open(p)) {
        in.readFully(0, back);
      }
      assertArrayEquals(striped.get(p), back, p.toString());
    }
  }
}
