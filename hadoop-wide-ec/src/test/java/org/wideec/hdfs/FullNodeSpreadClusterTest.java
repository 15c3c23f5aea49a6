package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.io.IOUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.analysis.PlanGuarantees;
import org.wideec.code.LinearCode;
import org.wideec.coder.StripedCodec;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.minicluster.MiniClusters;
import org.wideec.minicluster.StripedGroups;
import org.wideec.placement.PlacementPlan;
import org.wideec.placement.StripedPlacement;

/**
 * Full-node recovery spread over the racks in a real NameNode, on the real cluster's shape (6 racks of 4
 * DataNodes, Azure-LRC 12+2+2 under combined locality): the units of a lost DataNode are not all rebuilt in its
 * rack, yet every group keeps its plan (units per rack within the plan's limit, every rack's loss decodable and
 * readable by a stock client), and every byte reads back.
 */
class FullNodeSpreadClusterTest {
  static final int CELL = 64 * 1024;
  static final long BLOCK = 4L * CELL;
  static final int FILES = 12;

  @TempDir
  Path base;

  @Test
  void aLostNodesUnitsAreRebuiltInSeveralRacksAndEveryGroupKeepsItsPlan() throws Exception {
    Configuration conf = MiniClusters.withWideEcRepair(MiniClusters.withWideEcPlacement(new Configuration()));
    // The spread under test is the placement policy's, for the repairs HDFS schedules: the path a lost unit takes
    // when the NameNode's rebuild orders are off or hand it back.
    conf.setBoolean("wide-ec.lost-units.enabled", false);
    conf.setInt("wide-ec.transport.slice.bytes", 16 * 1024);
    MiniDFSCluster cluster = MiniClusters.start(conf, base.toFile(), 6, 4, BLOCK);
    try {
      DistributedFileSystem fs = cluster.getFileSystem();
      ErasureCodingPolicy policy = WideEcPolicies.addAndEnable(fs, WideEcPolicies.policy("azure-lrc-l2", 12, 4, CELL));
      LinearCode code = StripedCodec.AZURE_LRC_L2.codeFor(12, 4);
      PlacementPlan plan = StripedPlacement.planFor("azure-lrc-l2", 12, 4, StripedPlacement.AUTO);
      org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path("/spread");
      fs.mkdirs(dir);
      fs.setErasureCodingPolicy(dir, policy.getName());
      Map<org.apache.hadoop.fs.Path, byte[]> files = new LinkedHashMap<>();
      Random random = new Random(28);
      for (int i = 0; i < FILES; i++) {
        byte[] data = new byte[(int) (12 * BLOCK)]; // one full group per file
        random.nextBytes(data);
        org.apache.hadoop.fs.Path f = new org.apache.hadoop.fs.Path(dir, "f" + i);
        try (FSDataOutputStream o = fs.create(f)) {
          o.write(data);
        }
        files.put(f, data);
      }
      StripedGroups.awaitSettled(cluster, fs, policy, files.keySet(), 120_000);

      // Under this plan only a local parity may leave its planned rack ({g12,g13,l14} and {10,11,l15} give theirs to
      // a rack of two units of the other local group; any other move breaks the stock reader's rule or the local
      // group's repair cost), so the lost DataNode is the one holding the most local parities, then the most units.
      Map<String, Integer> unitsOn = new HashMap<>();
      Map<String, Integer> localParitiesOn = new HashMap<>();
      for (org.apache.hadoop.fs.Path f : files.keySet()) {
        LocatedStripedBlock g = StripedGroups.groups(fs, f).get(0);
        for (int i = 0; i < g.getLocations().length; i++) {
          unitsOn.merge(g.getLocations()[i].getXferAddr(), 1, Integer::sum);
          localParitiesOn.merge(g.getLocations()[i].getXferAddr(), g.getBlockIndices()[i] >= 14 ? 1 : 0, Integer::sum);
        }
      }
      String victim = unitsOn.keySet().stream().max(java.util.Comparator.comparing((String d) -> localParitiesOn.get(d))
          .thenComparing(unitsOn::get)).orElseThrow();
      assertTrue(localParitiesOn.get(victim) >= 2, "some DataNode holds two local parities: " + localParitiesOn);
      Map<org.apache.hadoop.fs.Path, Integer> lostUnit = new LinkedHashMap<>();
      String victimRack = null;
      for (org.apache.hadoop.fs.Path f : files.keySet()) {
        LocatedStripedBlock g = StripedGroups.groups(fs, f).get(0);
        for (int i = 0; i < g.getLocations().length; i++) {
          if (g.getLocations()[i].getXferAddr().equals(victim)) {
            lostUnit.put(f, (int) g.getBlockIndices()[i]);
            victimRack = g.getLocations()[i].getNetworkLocation();
          }
        }
      }
      assertTrue(lostUnit.size() >= 4, "the lost DataNode holds units of several groups: " + lostUnit);
      for (int i = 0; i < cluster.getDataNodes().size(); i++) {
        DataNode dn = cluster.getDataNodes().get(i);
        if (dn.getDatanodeId().getXferAddr().equals(victim)) {
          cluster.stopDataNode(i);
          cluster.setDataNodeDead(dn.getDatanodeId());
          break;
        }
      }
      for (org.apache.hadoop.fs.Path f : files.keySet()) {
        StripedGroups.awaitComplete(fs, f, policy, 120_000);
      }

      PlanGuarantees guarantees = PlanGuarantees.of(plan);
      Map<String, List<String>> rebuiltIn = new TreeMap<>();
      for (org.apache.hadoop.fs.Path f : files.keySet()) {
        LocatedStripedBlock g = StripedGroups.groups(fs, f).get(0);
        String[] racks = StripedGroups.rackOfUnit(g, code.n());
        Map<String, List<Integer>> byRack = StripedGroups.unitsByRack(g);
        for (List<Integer> units : byRack.values()) {
          assertTrue(units.size() <= plan.maxUnitsPerRack(), f + ": no rack holds more than the plan's "
              + plan.maxUnitsPerRack() + " units: " + byRack);
        }
        assertNull(guarantees.rackFaultBroken(racks, Set.of()), f + " " + byRack);
        if (lostUnit.containsKey(f)) {
          rebuiltIn.computeIfAbsent(racks[lostUnit.get(f)], r -> new ArrayList<>()).add(f.getName());
        }
        assertEquals(code.n(), StripedGroups.verifyEveryUnit(cluster, fs, f, policy, code, files.get(f)));
        byte[] back = new byte[files.get(f).length];
        try (FSDataInputStream in = fs.open(f)) {
          IOUtils.readFully(in, back, 0, back.length);
        }
        assertArrayEquals(files.get(f), back, f.toString());
      }
      assertEquals(lostUnit.size(), rebuiltIn.values().stream().mapToInt(List::size).sum());
      assertTrue(rebuiltIn.size() > 1, "the " + lostUnit.size() + " units of " + victim + " (" + victimRack
          + ") were rebuilt in more than one rack: " + rebuiltIn + " (racks " + new TreeSet<>(rebuiltIn.keySet()) + ")");
    } finally {
      cluster.shutdown();
    }
  }
}
