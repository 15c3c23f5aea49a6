package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockManager;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcBlockPlacementPolicy;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcReplicaPlacementPolicy;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.util.ECPolicyLoader;
import org.apache.hadoop.io.IOUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.datanode.RepairMetrics;
import org.wideec.datanode.WideEcDataNodePlugin;
import org.wideec.minicluster.Eventually;
import org.wideec.minicluster.MiniClusters;
import org.wideec.minicluster.StripedGroups;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;

/**
 * The settings file an operator copies, {@code conf/hdfs-site-wide-ec.xml}, read as shipped: every class it names
 * loads in a NameNode and DataNodes with racks, and an LRC policy from the shipped {@code conf/wide-ec-policies.xml}
 * writes, loses a DataNode, is rebuilt by our worker and reads back byte for byte. Whatever moves inside the jar,
 * the configured names (the placement policies, the plugins) must keep working, and this is where a renamed class
 * without its alias fails. Only what the file itself leaves to each site is added: the cluster secret (commented
 * out there, to be set by the operator) and the slice port, which must be free per DataNode when one JVM hosts them
 * all.
 */
class ShippedSettingsClusterTest {
  private static final File CONF_DIR = new File(System.getProperty("wideec.conf.dir", "../conf"));
  private static final int RACKS = 5;
  private static final int PER_RACK = 3;
  private static final long BLOCK = 1024 * 1024;

  private static MiniDFSCluster cluster;
  private static java.io.File dir;
  private static DistributedFileSystem fs;
  private static ErasureCodingPolicy policy;

  @BeforeAll
  static void startFromTheShippedSettings() throws IOException {
    Configuration conf = new Configuration();
    conf.addResource(new Path(new File(CONF_DIR, "hdfs-site-wide-ec.xml").getAbsoluteFile().toURI()));
    conf.set("wide-ec.transport.secret", "a-cluster-secret-of-this-test-only");
    conf.setInt("wide-ec.transport.port", 0);
    dir = Files.createTempDirectory("wideec-shipped").toFile();
    cluster = MiniClusters.start(conf, dir, RACKS, PER_RACK, BLOCK);
    fs = cluster.getFileSystem();
    List<ErasureCodingPolicy> shipped =
        new ECPolicyLoader().loadPolicy(new File(CONF_DIR, "wide-ec-policies.xml").getAbsolutePath());
    policy = WideEcPolicies.addAndEnable(fs, shipped.stream()
        .filter(p -> p.getCodecName().equals("azure-lrc-l2") && p.getNumDataUnits() == 6)
        .findFirst().orElseThrow(() -> new AssertionError("Azure-LRC 6+2+2 is missing from the shipped policies file")));
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.shutdown();
    }
    if (dir != null) {
      org.apache.hadoop.fs.FileUtil.fullyDelete(dir);
    }
  }

  @Test
  void everyClassTheShippedFileNamesRunsInTheNameNodeAndTheDataNodes() {
    BlockManager bm = cluster.getNamesystem().getBlockManager();
    assertEquals(WideEcBlockPlacementPolicy.class, bm.getStriptedBlockPlacementPolicy().getClass());
    assertEquals(WideEcReplicaPlacementPolicy.class, bm.getBlockPlacementPolicy().getClass());
    assertNotNull(WideEcNameNodePlugin.metrics(), "the NameNode plugin started");
    for (DataNode dn : cluster.getDataNodes()) {
      WideEcDataNodePlugin worker = WideEcDataNodePlugin.running(dn.getXferPort());
      assertNotNull(worker, "the DataNode plugin runs on " + dn.getDatanodeId());
      assertTrue(worker.tookOverReconstruction(), "our worker took over reconstruction on " + dn.getDatanodeId());
    }
  }

  @Test
  void anLrcFileLosesADataNodeIsRebuiltByOurWorkerAndReadsBack() throws Exception {
    Path dir = new Path("/shipped");
    fs.mkdirs(dir);
    fs.setErasureCodingPolicy(dir, policy.getName());
    Path file = new Path(dir, "f");
    byte[] data = new byte[6 * (int) BLOCK + 12_345];
    new Random(25).nextBytes(data);
    try (FSDataOutputStream out = fs.create(file)) {
      out.write(data);
    }
    StripedGroups.awaitSettled(cluster, fs, policy, List.of(file), 60_000);

    LocatedStripedBlock group = StripedGroups.groups(fs, file).get(0);
    DatanodeInfo lost = StripedGroups.location(group, 0);
    long rebuiltBefore = rebuiltByOurWorkers();
    cluster.stopDataNode(lost.getXferAddr());
    cluster.setDataNodeDead(lost); // the NameNode drops its replicas now, not at the next heartbeat recheck
    StripedGroups.awaitComplete(fs, file, policy, 120_000);

    // The NameNode counts an order's unit once the DataNode has answered it, which can trail the new replica's
    // report that completed the group: wait for the count, which a rebuild by HDFS's reconstruction never raises.
    Eventually.await("the lost unit was rebuilt by our worker, not HDFS's", Duration.ofSeconds(30),
        () -> rebuiltByOurWorkers() > rebuiltBefore);
    byte[] back = new byte[data.length];
    try (FSDataInputStream in = fs.open(file)) {
      IOUtils.readFully(in, back, 0, back.length);
    }
    assertArrayEquals(data, back);
  }

  /**
   * Units our workers rebuilt: on the NameNode's order (the shipped settings order a dead node's units at once), or
   * taking over a reconstruction task of HDFS's (one it scheduled before the order's pass claimed the group), over the
   * DataNodes still running.
   */
  private static long rebuiltByOurWorkers() {
    long n = WideEcNameNodePlugin.metrics().lostUnitsRebuilt();
    for (DataNode dn : cluster.getDataNodes()) {
      WideEcDataNodePlugin worker = WideEcDataNodePlugin.running(dn.getXferPort());
      RepairMetrics m = worker == null ? null : worker.metrics();
      n += m == null ? 0 : m.tasksCompleted();
    }
    return n;
  }
}
