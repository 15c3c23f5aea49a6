package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.MiniDFSCluster.DataNodeProperties;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.util.ECPolicyLoader;
import org.apache.hadoop.io.IOUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.client.WideEcFileSystem;
import org.wideec.code.LinearCode;
import org.wideec.code.StockStripedReader;
import org.wideec.coder.StripedCodec;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.minicluster.MiniClusters;
import org.wideec.minicluster.StripedGroups;
import org.wideec.placement.PlacementPlan;
import org.wideec.placement.StripedPlacement;

/**
 * Every shipped policy under the project's own NameNode configuration, every rack stopped in turn: a stock client
 * and our {@code WideEcFileSystem} read every byte of every file while the rack is down (DESIGN.md §2: the plan
 * keeps each rack's loss readable by HDFS's own parity choice). Then, per policy, the DataNodes holding the widest
 * loss the code decodes but the stock reader cannot are stopped, and the file reads through our FileSystem.
 * Reconstruction is held off (a redundancy interval of an hour) so every read is degraded.
 */
class RackLossClusterTest {
  static final int RACKS = 8;
  static final int NODES_PER_RACK = 4; // UniLRC 6+6 puts a local group of four units in each of three racks

  @TempDir
  static Path base;

  @Test
  void stockClientsReadEveryShippedPolicyThroughTheLossOfEachRack() throws Exception {
    File xml = new File(System.getProperty("wideec.conf.dir", "../conf"), "wide-ec-policies.xml");
    List<ErasureCodingPolicy> shipped = new ECPolicyLoader().loadPolicy(xml.getAbsolutePath());
    assertEquals(6, shipped.size());
    int cell = shipped.get(0).getCellSize();
    Configuration conf = MiniClusters.tuned(MiniClusters.withWideEcPlacement(new Configuration()),
        new File(base.toFile(), "dfs"), cell);
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, 3600);
    MiniDFSCluster cluster = MiniClusters.start(conf, RACKS, NODES_PER_RACK);
    try {
      DistributedFileSystem fs = cluster.getFileSystem();
      Configuration client = new Configuration(cluster.getConfiguration(0));
      client.set("fs.hdfs.impl", WideEcFileSystem.class.getName());
      WideEcFileSystem wide = (WideEcFileSystem) FileSystem.newInstance(fs.getUri(), client);
      Map<org.apache.hadoop.fs.Path, byte[]> files = new LinkedHashMap<>();
      Map<org.apache.hadoop.fs.Path, ErasureCodingPolicy> policyOf = new LinkedHashMap<>();
      Random r = new Random(10);
      for (ErasureCodingPolicy p : shipped) {
        ErasureCodingPolicy added = WideEcPolicies.addAndEnable(fs, p);
        org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path("/" + added.getName());
        fs.mkdirs(dir);
        fs.setErasureCodingPolicy(dir, added.getName());
        // One full group (one cell per internal block) and a short one of a cell and a half.
        org.apache.hadoop.fs.Path f = new org.apache.hadoop.fs.Path(dir, "file");
        byte[] data = new byte[added.getNumDataUnits() * cell + cell + cell / 2];
        r.nextBytes(data);
        try (FSDataOutputStream o = fs.create(f, true, 4096, (short) 1, cell)) {
          o.write(data);
        }
        files.put(f, data);
        policyOf.put(f, added);
      }
      for (Map.Entry<org.apache.hadoop.fs.Path, byte[]> e : files.entrySet()) {
        StripedGroups.awaitComplete(fs, e.getKey(), policyOf.get(e.getKey()), 60_000);
        assertPlaced(fs, e.getKey(), policyOf.get(e.getKey()));
      }
      int degradedReads = 0;
      for (int rack = 0; rack < RACKS; rack++) {
        List<DataNodeProperties> stopped = stopRack(cluster, "/rack" + rack);
        for (Map.Entry<org.apache.hadoop.fs.Path, byte[]> e : files.entrySet()) {
          int lost = lostUnits(fs, e.getKey(), policyOf.get(e.getKey()));
          degradedReads += lost > 0 ? 1 : 0;
          assertArrayEquals(e.getValue(), read(fs, e.getKey(), e.getValue().length),
              "stock read of " + e.getKey() + " with /rack" + rack + " down (" + lost + " units lost)");
          assertArrayEquals(e.getValue(), read(wide, e.getKey(), e.getValue().length),
              "WideEcFileSystem read of " + e.getKey() + " with /rack" + rack + " down");
        }
        restart(cluster, fs, stopped, files, policyOf);
      }
      assertTrue(degradedReads >= 6 * 3, "each file's groups span at least three racks: " + degradedReads);

      List<String> beyondStock = new ArrayList<>();
      for (Map.Entry<org.apache.hadoop.fs.Path, byte[]> e : files.entrySet()) {
        ErasureCodingPolicy p = policyOf.get(e.getKey());
        LinearCode code = StripedCodec.byName(p.getCodecName()).codeFor(p.getNumDataUnits(), p.getNumParityUnits());
        int[] pattern = StockStripedReader.widestLossOnlyTheCodeReads(code);
        if (pattern == null) {
          continue; // MDS codes: the stock reader reads every pattern the code decodes
        }
        LocatedStripedBlock g = StripedGroups.groups(fs, e.getKey()).get(0);
        List<DataNodeProperties> stopped = new ArrayList<>();
        for (int u : pattern) {
          DatanodeInfo holder = StripedGroups.location(g, u);
          stopped.add(cluster.stopDataNode(holder.getXferAddr()));
          cluster.setDataNodeDead(holder);
        }
        // Only the first (full) group is checked: the stopped nodes may hold more of the short group than it survives.
        long before = wide.readPathCounters().degradedReads();
        byte[] first = new byte[p.getNumDataUnits() * cell];
        try (FSDataInputStream in = wide.open(e.getKey())) {
          in.readFully(0, first);
        }
        assertArrayEquals(Arrays.copyOf(e.getValue(), first.length), first,
            p.getName() + " read through WideEcFileSystem with units " + Arrays.toString(pattern) + " lost");
        assertTrue(wide.readPathCounters().degradedReads() > before, "our degraded path served " + e.getKey());
        beyondStock.add(p.getCodecName());
        restart(cluster, fs, stopped, files, policyOf);
      }
      assertEquals(5, beyondStock.size(), "every shipped LRC has losses only our FileSystem reads: " + beyondStock);
      wide.close();
    } finally {
      cluster.shutdown();
    }
  }

  /** Restarts the stopped DataNodes (on fresh ports) and waits until every group is whole again. */
  private static void restart(MiniDFSCluster cluster, DistributedFileSystem fs, List<DataNodeProperties> stopped,
      Map<org.apache.hadoop.fs.Path, byte[]> files, Map<org.apache.hadoop.fs.Path, ErasureCodingPolicy> policyOf)
      throws Exception {
    MiniClusters.restartAndReport(cluster, stopped, MiniClusters.Ports.NEW);
    for (org.apache.hadoop.fs.Path f : files.keySet()) {
      StripedGroups.awaitComplete(fs, f, policyOf.get(f), 60_000);
    }
  }

  /** Every group of the file sits on its stock-readable plan, and each of its racks is stock-readable as placed. */
  private static void assertPlaced(DistributedFileSystem fs, org.apache.hadoop.fs.Path f, ErasureCodingPolicy p)
      throws IOException {
    PlacementPlan plan = StripedPlacement.planFor(p.getCodecName(), p.getNumDataUnits(), p.getNumParityUnits(),
        StripedPlacement.AUTO);
    LinearCode code = StripedCodec.byName(p.getCodecName()).codeFor(p.getNumDataUnits(), p.getNumParityUnits());
    for (LocatedStripedBlock g : StripedGroups.groups(fs, f)) {
      String[] racks = StripedGroups.rackOfUnit(g, code.n());
      assertTrue(StripedPlacement.holds(plan, racks), p.getName() + " group " + g.getBlock() + " on plan "
          + StripedGroups.unitsByRack(g));
      for (List<Integer> units : StripedGroups.unitsByRack(g).values()) {
        int[] lost = units.stream().mapToInt(Integer::intValue).toArray();
        assertTrue(StockStripedReader.canRead(code, lost), p.getName() + ": rack with units " + units);
      }
    }
  }

  private static int lostUnits(DistributedFileSystem fs, org.apache.hadoop.fs.Path f, ErasureCodingPolicy p)
      throws IOException {
    int lost = 0;
    for (LocatedStripedBlock g : StripedGroups.groups(fs, f)) {
      lost += StripedGroups.missingUnits(g, p).size();
    }
    return lost;
  }

  private static List<DataNodeProperties> stopRack(MiniDFSCluster cluster, String rack) throws IOException {
    List<DataNodeProperties> stopped = new ArrayList<>();
    for (DataNode dn : new ArrayList<>(cluster.getDataNodes())) {
      if (rack.equals(cluster.getNamesystem().getBlockManager().getDatanodeManager()
          .getDatanode(dn.getDatanodeId()).getNetworkLocation())) {
        stopped.add(cluster.stopDataNode(dn.getDatanodeId().getXferAddr()));
        cluster.setDataNodeDead(dn.getDatanodeId());
      }
    }
    assertEquals(NODES_PER_RACK, stopped.size(), "DataNodes stopped in " + rack);
    return stopped;
  }

  private static byte[] read(FileSystem fs, org.apache.hadoop.fs.Path f, int size) throws IOException {
    byte[] back = new byte[size];
    try (FSDataInputStream in = fs.open(f)) {
      IOUtils.readFully(in, back, 0, size);
      assertEquals(-1, in.read(), "no bytes beyond the file's length");
    }
    return back;
  }
}
