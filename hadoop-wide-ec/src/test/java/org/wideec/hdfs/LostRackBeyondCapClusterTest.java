package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.code.LinearCode;
import org.wideec.coder.StripedCodec;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.minicluster.MiniClusters;
import org.wideec.minicluster.StripedGroups;
import org.wideec.placement.PlacementPlan;
import org.wideec.placement.StripedPlacement;

/**
 * A whole rack lost where the surviving racks cannot hold the plan: Azure-LRC(6,2,2) groups, whose plan fills 4 racks
 * with at most 3 units each, on 4 racks of 4 DataNodes. With a rack gone, the 3 left have room below the cap for one
 * unit fewer than each group lost, so one unit per group must go to a rack beyond the cap. The NameNode's orders
 * rebuild every lost unit all the same (each such unit counted in {@code LostUnitsPlacedBeyondRackCap}, none left to
 * HDFS), in a rack whose loss the group still survives, and every byte reads back. Then the rack returns.
 */
class LostRackBeyondCapClusterTest {
  private static final int RACKS = 4;
  private static final int PER_RACK = 4;
  private static final int CELL = 64 * 1024;
  private static final int K = 6;
  private static final int GROUPS = 4;

  @Test
  void everyUnitOfALostRackIsRebuiltOnOurOrdersOneAGroupBeyondTheRackCapWhereItsLossStaysDecodable(
      @TempDir java.nio.file.Path dir) throws Exception {
    Configuration base = MiniClusters.withWideEcRepair(MiniClusters.withWideEcPlacement(new Configuration()));
    base.setLong("wide-ec.archive.repair.interval.ms", 300);
    MiniDFSCluster cluster = MiniClusters.start(base, dir.toFile(), RACKS, PER_RACK, CELL);
    try {
      DistributedFileSystem fs = cluster.getFileSystem();
      ErasureCodingPolicy lrc = WideEcPolicies.addAndEnable(fs, WideEcPolicies.policy("azure-lrc-l2", K, 4, CELL));
      LinearCode code = StripedCodec.AZURE_LRC_L2.codeFor(K, 4);
      PlacementPlan plan = StripedPlacement.planFor("azure-lrc-l2", K, 4, StripedPlacement.AUTO);
      assertEquals(RACKS, plan.racks(), "the plan needs every rack: " + plan);
      assertEquals(3, plan.maxUnitsPerRack(), plan.toString());
      Map<Path, byte[]> files = write(fs, lrc);
      StripedGroups.awaitSettled(cluster, fs, lrc, files.keySet(), 60_000);
      MiniClusters.awaitQuiet(cluster, 60_000);

      String rack = "/rack0";
      Set<String> nodes = new TreeSet<>();
      for (DataNode dn : cluster.getDataNodes()) {
        if (rack.equals(rackOf(cluster, dn))) {
          nodes.add(dn.getDatanodeId().getXferAddr());
        }
      }
      int lost = 0;
      for (Path p : files.keySet()) {
        for (LocatedStripedBlock g : StripedGroups.groups(fs, p)) {
          assertEquals(RACKS, StripedGroups.unitsByRack(g).size(), g.getBlock() + " fills every rack");
          lost += StripedGroups.unitsByRack(g).get(rack).size();
        }
      }
      long beyondBefore = DeadUnitDrills.metrics().lostUnitsPlacedBeyondRackCap();
      long rebuiltBefore = DeadUnitDrills.metrics().lostUnitsRebuilt();
      long leftBefore = DeadUnitDrills.metrics().lostUnitsLeftToHdfs();
      long[] ordersBefore = DeadUnitDrills.orderCounts();
      List<MiniDFSCluster.DataNodeProperties> stopped = DeadUnitDrills.kill(cluster, nodes);
      DeadUnitDrills.awaitEveryUnitBack("every unit " + rack + " held back on a live DataNode", fs, lrc,
          files.keySet());
      DeadUnitDrills.awaitOrdersAccounted(ordersBefore, lost);

      assertEquals(0, DeadUnitDrills.metrics().lostUnitsLeftToHdfs() - leftBefore, "no group left to HDFS");
      assertEquals(lost, DeadUnitDrills.metrics().lostUnitsRebuilt() - rebuiltBefore,
          "every unit " + rack + " held rebuilt on the NameNode's orders");
      assertEquals(GROUPS, DeadUnitDrills.metrics().lostUnitsPlacedBeyondRackCap() - beyondBefore,
          "one unit per group beyond the rack cap");
      for (Path p : files.keySet()) {
        for (LocatedStripedBlock g : StripedGroups.groups(fs, p)) {
          Map<String, List<Integer>> byRack = StripedGroups.unitsByRack(g);
          assertEquals(RACKS - 1, byRack.size(), g.getBlock() + " " + byRack);
          int over = 0;
          for (List<Integer> units : byRack.values()) {
            int[] erased = units.stream().mapToInt(Integer::intValue).toArray();
            over += units.size() > plan.maxUnitsPerRack() ? 1 : 0;
            assertTrue(code.isDecodable(erased), g.getBlock() + ": the loss of the rack holding " + units
                + " decodes: " + byRack);
          }
          assertEquals(1, over, g.getBlock() + ": one rack beyond the cap " + byRack);
        }
      }
      DeadUnitDrills.everyByteReadsBack(cluster, fs, lrc, code, files);

      // The rack returns with its replicas: each rebuilt unit is then stored twice, and HDFS deletes one copy of each
      // (its excess rule does not know the plan); a group left beyond the cap is then what HDFS calls badly
      // distributed, for its own placement check to fix. Nothing here restores the plan itself: what HDFS made of it
      // is printed, and the data must be whole.
      MiniClusters.restartAndReport(cluster, stopped, MiniClusters.Ports.NEW);
      for (Path p : files.keySet()) {
        StripedGroups.awaitComplete(fs, p, lrc, 60_000);
      }
      MiniClusters.awaitRedundancyCycles(cluster, 5, 30_000);
      for (Path p : files.keySet()) {
        for (LocatedStripedBlock g : StripedGroups.groups(fs, p)) {
          Map<String, List<Integer>> byRack = StripedGroups.unitsByRack(g);
          System.out.println("after the rack's return: " + g.getBlock() + " " + byRack + ", beyond the cap: "
              + byRack.values().stream().anyMatch(u -> u.size() > plan.maxUnitsPerRack()));
        }
      }
      System.out.println("after the rack's return: HDFS's low-redundancy queue holds "
          + cluster.getNamesystem().getBlockManager().getLowRedundancyBlocksCount() + " groups ("
          + cluster.getNamesystem().getBlockManager().getLowRedundancyBlocks() + " short of units)");
      DeadUnitDrills.everyByteReadsBack(cluster, fs, lrc, code, files);
    } finally {
      cluster.shutdown();
    }
  }

  private static Map<Path, byte[]> write(DistributedFileSystem fs, ErasureCodingPolicy lrc) throws Exception {
    Path d = new Path("/lrc");
    fs.mkdirs(d);
    fs.setErasureCodingPolicy(d, lrc.getName());
    Map<Path, byte[]> files = new TreeMap<>();
    Random r = new Random(29);
    for (int i = 0; i < GROUPS; i++) {
      byte[] data = new byte[K * CELL]; // one full group each
      r.nextBytes(data);
      Path p = new Path(d, "f" + i);
      try (FSDataOutputStream o = fs.create(p)) {
        o.write(data);
      }
      files.put(p, data);
    }
    return files;
  }

  private static String rackOf(MiniDFSCluster cluster, DataNode dn) throws java.io.IOException {
    return cluster.getNamesystem().getBlockManager().getDatanodeManager().getDatanode(dn.getDatanodeId())
        .getNetworkLocation();
  }
}
