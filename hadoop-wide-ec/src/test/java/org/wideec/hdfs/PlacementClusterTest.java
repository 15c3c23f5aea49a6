package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
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
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.cli.WideEcTool;
import org.wideec.code.ErasurePatterns;
import org.wideec.code.LinearCode;
import org.wideec.code.StockStripedReader;
import org.wideec.coder.StripedCodec;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.minicluster.MiniClusters;
import org.wideec.minicluster.StripedGroups;
import org.wideec.placement.PlacementPlan;
import org.wideec.placement.StripedPlacement;

/** Our placement policy in a real NameNode: groups land as planned, repairs keep rack tolerance, fsck tells. */
class PlacementClusterTest {
  static final int CELL = 64 * 1024;
  static final long BLOCK = 256 * 1024;

  @TempDir
  Path base;

  static org.apache.hadoop.fs.Path write(DistributedFileSystem fs, String name, int size, Random r, byte[][] keep)
      throws Exception {
    org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(name);
    byte[] data = new byte[size];
    r.nextBytes(data);
    try (FSDataOutputStream o = fs.create(p)) {
      o.write(data);
    }
    keep[0] = data;
    return p;
  }

  static Map<String, Integer> unitsPerRack(LocatedStripedBlock g) {
    Map<String, Integer> m = new HashMap<>();
    for (DatanodeInfo d : g.getLocations()) {
      m.merge(d.getNetworkLocation(), 1, Integer::sum);
    }
    return m;
  }

  JsonNode fsck(Configuration conf, String path, int expectedExit) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int rc = ToolRunner.run(conf, new WideEcTool(new PrintStream(out, true, StandardCharsets.UTF_8), System.err),
        new String[] {"fsck", path, "--json"});
    assertEquals(expectedExit, rc, out.toString(StandardCharsets.UTF_8));
    return new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8));
  }

  @Test
  void groupsAreCombinedLocalityPlacedAndStayRackTolerantAfterRepair() throws Exception {
    MiniDFSCluster cluster = MiniClusters.start(MiniClusters.withWideEcPlacement(new Configuration()),
        new File(base.toFile(), "a"), 5, 4, BLOCK);
    try {
      DistributedFileSystem fs = cluster.getFileSystem();
      ErasureCodingPolicy policy = WideEcPolicies.addAndEnable(fs, WideEcPolicies.policy("azure-lrc-l2", 6, 4, CELL));
      fs.mkdirs(new org.apache.hadoop.fs.Path("/cl"));
      fs.setErasureCodingPolicy(new org.apache.hadoop.fs.Path("/cl"), policy.getName());
      LinearCode code = StripedCodec.AZURE_LRC_L2.codeFor(6, 4);
      PlacementPlan plan = StripedPlacement.planFor("azure-lrc-l2", 6, 4, StripedPlacement.AUTO);
      // Stock-readable combined locality: {0,1,2} {6,8} {3,4} {5,7,9} (a rack never holds three data units of the
      // second group, whose loss the reader's G1, G2, L1 could not rebuild); each group still spans two racks.
      assertArrayEquals(new int[] {3, 2, 2, 3}, plan.unitsPerRack());
      byte[][] data = new byte[1][];
      org.apache.hadoop.fs.Path f = write(fs, "/cl/file", (int) (6 * BLOCK * 3 + 12345), new Random(1), data);
      StripedGroups.awaitSettled(cluster, fs, policy, List.of(f), 60_000);
      List<LocatedStripedBlock> groups = StripedGroups.groups(fs, f);
      assertEquals(4, groups.size());
      for (LocatedStripedBlock g : groups) {
        assertTrue(StripedPlacement.holds(plan, StripedGroups.rackOfUnit(g, 10)), "group " + g.getBlock() + " placed as planned");
        if (g.getBlockIndices().length == 10) {
          assertEquals(4, unitsPerRack(g).size(), "4 racks for a full 6+2+2 group under CL");
        }
      }
      JsonNode ok = fsck(cluster.getConfiguration(0), "/cl", 0);
      assertEquals(4, ok.get("groupsChecked").asInt());
      assertEquals(0, ok.get("groupsOffPlan").asInt());
      assertEquals(0, ok.get("groupsNotRackTolerant").asInt());
      // Data units cost one cross-rack chunk as placed (their group spans two racks), ECWide's (r+1)/f - 1.
      JsonNode cost = ok.get("groups").get(0).get("crossRackCost");
      for (int u = 0; u < 6; u++) {
        assertEquals(1, cost.get(u).asInt());
      }

      // The victim holds data unit 0 of the short last group (units 0 and 6-9 only): putting it back where the
      // plan wants needs the unit's index, not only the group's per-rack counts.
      assertEquals(5, groups.get(3).getBlockIndices().length);
      DatanodeInfo victim = StripedGroups.location(groups.get(3), 0);
      loseAndCheck(cluster, fs, f, policy, plan, code, data[0], List.of(victim));

      // Two DataNodes at once, in two other racks (each keeps a free node for every group): group 0 loses two
      // units, in one reconstruction task or two, and each goes where the group keeps its plan's guarantees.
      StripedGroups.awaitSettled(cluster, fs, policy, List.of(f), 60_000);
      LocatedStripedBlock g0 = StripedGroups.groups(fs, f).get(0);
      List<DatanodeInfo> pair = new java.util.ArrayList<>();
      for (int u = 0; u < 10 && pair.size() < 2; u++) {
        DatanodeInfo d = StripedGroups.location(g0, u);
        if (!d.getNetworkLocation().equals(victim.getNetworkLocation())
            && pair.stream().noneMatch(p -> p.getNetworkLocation().equals(d.getNetworkLocation()))) {
          pair.add(d);
        }
      }
      loseAndCheck(cluster, fs, f, policy, plan, code, data[0], pair);
    } finally {
      cluster.shutdown();
    }
  }

  /**
   * Stops the victims at once and waits for the stock reconstruction: every group stays within f units per rack,
   * survives any rack, holds the plan again, every unit equals the code and the file reads back.
   */
  private void loseAndCheck(MiniDFSCluster cluster, DistributedFileSystem fs, org.apache.hadoop.fs.Path f,
      ErasureCodingPolicy policy, PlacementPlan plan, LinearCode code, byte[] data, List<DatanodeInfo> victims)
      throws Exception {
    for (DatanodeInfo victim : victims) {
      for (int i = 0; i < cluster.getDataNodes().size(); i++) {
        DataNode dn = cluster.getDataNodes().get(i);
        if (dn.getXferPort() == victim.getXferPort()) {
          cluster.stopDataNode(i);
          cluster.setDataNodeDead(dn.getDatanodeId());
          break;
        }
      }
    }
    StripedGroups.awaitComplete(fs, f, policy, 120_000);
    ErasurePatterns patterns = ErasurePatterns.of(code);
    for (LocatedStripedBlock g : StripedGroups.groups(fs, f)) {
      for (int count : unitsPerRack(g).values()) {
        assertTrue(count <= 3, "no rack holds more than f = 3 units after repair: " + unitsPerRack(g));
      }
      String[] racks = StripedGroups.rackOfUnit(g, 10);
      for (String rack : unitsPerRack(g).keySet()) {
        int[] lost = java.util.stream.IntStream.range(0, 10).filter(u -> rack.equals(racks[u])).toArray();
        assertTrue(patterns.isDecodable(lost), "losing " + rack + " is survivable");
        assertTrue(StockStripedReader.canRead(code, lost), "a stock client reads through the loss of " + rack);
      }
      // A rebuilt unit may leave its planned rack to spread a node's repairs over the rack links, but only where the
      // group keeps what its plan guarantees: the rack checks above, and no unit's repair reaching more racks.
      org.wideec.analysis.PlanGuarantees guarantees = org.wideec.analysis.PlanGuarantees.of(plan);
      java.util.Set<Integer> zeros = new java.util.HashSet<>();
      for (int u = 0; u < racks.length; u++) {
        if (racks[u] == null) {
          zeros.add(u);
        }
      }
      String after = "after losing " + victims.stream().map(DatanodeInfo::getXferAddr).toList() + ": "
          + StripedGroups.unitsByRack(g);
      assertEquals(null, guarantees.rackFaultBroken(racks, zeros), g.getBlock() + " " + after);
      for (int u = 0; u < racks.length; u++) {
        if (racks[u] != null) {
          assertTrue(org.wideec.analysis.PlanGuarantees.crossRackCost(code, racks, zeros, u)
              <= guarantees.plannedCrossRackCost(u), "unit " + u + "'s repair reaches no more racks than planned, "
              + g.getBlock() + " " + after);
        }
      }
    }
    assertEquals(3 * 10 + 5, StripedGroups.verifyEveryUnit(cluster, fs, f, policy, code, data));
    byte[] back = new byte[data.length];
    try (FSDataInputStream in = fs.open(f)) {
      IOUtils.readFully(in, back, 0, back.length);
    }
    assertArrayEquals(data, back);
    assertEquals(0, fsck(cluster.getConfiguration(0), "/cl", 0).get("groupsNotRackTolerant").asInt());
  }

  @Test
  void fsckReportsAGroupThatALostRackWouldKill() throws Exception {
    // The stock policy with only two racks must put 5 of the 10 units in each: more than the 3 an
    // Azure-LRC 6+2+2 survives.
    MiniDFSCluster cluster = MiniClusters.start(new Configuration(), new File(base.toFile(), "b"), 2, 6, BLOCK);
    try {
      DistributedFileSystem fs = cluster.getFileSystem();
      ErasureCodingPolicy policy = WideEcPolicies.addAndEnable(fs, WideEcPolicies.policy("azure-lrc-l2", 6, 4, CELL));
      fs.mkdirs(new org.apache.hadoop.fs.Path("/bad"));
      fs.setErasureCodingPolicy(new org.apache.hadoop.fs.Path("/bad"), policy.getName());
      write(fs, "/bad/file", (int) (6 * BLOCK), new Random(2), new byte[1][]);
      JsonNode report = fsck(cluster.getConfiguration(0), "/bad", 1);
      assertEquals(1, report.get("groupsChecked").asInt());
      assertEquals(1, report.get("groupsNotRackTolerant").asInt());
      JsonNode group = report.get("groups").get(0);
      assertFalse(group.get("stockReadableAfterRackLoss").asBoolean());
      assertTrue(group.get("decodable").asBoolean());
      assertTrue(group.get("stockReadable").asBoolean());
      assertEquals(3, group.get("remainingTolerance").asInt(), "a healthy 6+2+2 survives any 3 more losses");
    } finally {
      cluster.shutdown();
    }
  }
}
