package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
import org.apache.hadoop.hdfs.util.ECPolicyLoader;
import org.apache.hadoop.io.IOUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.code.LinearCode;
import org.wideec.coder.StripedCodec;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.minicluster.MiniClusters;
import org.wideec.minicluster.StripedGroups;

/** Our LRC codec in a real HDFS: write, degraded read with up to g DataNodes gone, rebuild, byte checks. */
class StripedLrcClusterTest {
  static final int CELL = 64 * 1024;
  static final long BLOCK = 512 * 1024;

  @TempDir
  static Path base;
  static MiniDFSCluster cluster;
  static DistributedFileSystem fs;
  static ErasureCodingPolicy policy;
  static LinearCode code;

  @BeforeAll
  static void start() throws IOException {
    // One DataNode per rack: with HDFS's stock rack-fault-tolerant placement a small group (fewer units than
    // racks) placed two-to-a-rack gets "fixed" by copying a unit, a race that can leave a group short when a
    // node dies meanwhile (see MiniClusters.awaitQuiet).
    cluster = MiniClusters.start(new Configuration(), new File(base.toFile(), "dfs"), 18, 1, BLOCK);
    fs = cluster.getFileSystem();
    code = StripedCodec.AZURE_LRC_L2.codeFor(12, 4);
    policy = WideEcPolicies.addAndEnable(fs, WideEcPolicies.policy("azure-lrc-l2", 12, 4, CELL));
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.shutdown();
    }
  }

  static byte[] write(org.apache.hadoop.fs.Path p, int size, Random r) throws IOException {
    return write(p, size, BLOCK, r);
  }

  static byte[] write(org.apache.hadoop.fs.Path p, int size, long blockSize, Random r) throws IOException {
    byte[] data = new byte[size];
    r.nextBytes(data);
    try (FSDataOutputStream o = fs.create(p, true, 4096, (short) 1, blockSize)) {
      o.write(data);
    }
    return data;
  }

  static byte[] read(org.apache.hadoop.fs.Path p, int size) throws IOException {
    byte[] back = new byte[size];
    try (FSDataInputStream in = fs.open(p)) {
      IOUtils.readFully(in, back, 0, size);
      assertEquals(-1, in.read(), "no bytes beyond the file's length");
    }
    return back;
  }

  static int indexOf(DatanodeInfo info) {
    List<DataNode> dns = cluster.getDataNodes();
    for (int i = 0; i < dns.size(); i++) {
      if (dns.get(i).getXferPort() == info.getXferPort()) {
        return i;
      }
    }
    throw new IllegalStateException("no DataNode " + info);
  }

  @Test
  void lrcFilesSurviveLosingTwoDataNodesAndAreRebuiltByteForByte() throws Exception {
    org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path("/lrc");
    fs.mkdirs(dir);
    fs.setErasureCodingPolicy(dir, policy.getName());
    assertEquals(policy.getName(), fs.getErasureCodingPolicy(dir).getName());
    Random r = new Random(1);
    int[] sizes = {1, CELL, 3 * CELL + 17, 12 * CELL, (int) (12 * BLOCK) + 5 * CELL + 999};
    List<org.apache.hadoop.fs.Path> files = new ArrayList<>();
    List<byte[]> contents = new ArrayList<>();
    for (int s : sizes) {
      org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(dir, "f" + s);
      contents.add(write(p, s, r));
      files.add(p);
      assertEquals(policy.getName(), fs.getErasureCodingPolicy(p).getName());
    }
    for (int i = 0; i < files.size(); i++) {
      assertArrayEquals(contents.get(i), read(files.get(i), sizes[i]));
    }
    StripedGroups.awaitSettled(cluster, fs, policy, files, 60_000);
    // Lose g = 2 DataNodes: the holders of data unit 0 and of the global parity 12 of the big file.
    LocatedStripedBlock g0 = StripedGroups.groups(fs, files.get(files.size() - 1)).get(0);
    DatanodeInfo a = StripedGroups.location(g0, 0);
    DatanodeInfo b = StripedGroups.location(g0, 12);
    DataNode dnA = cluster.getDataNodes().get(indexOf(a));
    DataNode dnB = cluster.getDataNodes().get(indexOf(b));
    cluster.stopDataNode(indexOf(a));
    cluster.stopDataNode(indexOf(b));
    for (int i = 0; i < files.size(); i++) {
      assertArrayEquals(contents.get(i), read(files.get(i), sizes[i]), "degraded read of " + files.get(i));
    }
    cluster.setDataNodeDead(dnA.getDatanodeId());
    cluster.setDataNodeDead(dnB.getDatanodeId());
    int units = 0;
    for (int i = 0; i < files.size(); i++) {
      StripedGroups.awaitComplete(fs, files.get(i), policy, 120_000);
      units += StripedGroups.verifyEveryUnit(cluster, fs, files.get(i), policy, code, contents.get(i));
      assertArrayEquals(contents.get(i), read(files.get(i), sizes[i]), "read after reconstruction of " + files.get(i));
    }
    assertTrue(units >= 16 * 2, "checked " + units + " internal blocks");
  }

  @Test
  void everyPolicyInTheShippedPolicyFileIsAcceptedAndWorks() throws Exception {
    File xml = new File(System.getProperty("wideec.conf.dir", "../conf"), "wide-ec-policies.xml");
    List<ErasureCodingPolicy> policies = new ECPolicyLoader().loadPolicy(xml.getAbsolutePath());
    assertEquals(6, policies.size());
    Random r = new Random(2);
    for (ErasureCodingPolicy p : policies) {
      ErasureCodingPolicy added = WideEcPolicies.addAndEnable(fs, p);
      org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path("/policy-" + added.getName());
      fs.mkdirs(dir);
      fs.setErasureCodingPolicy(dir, added.getName());
      org.apache.hadoop.fs.Path f = new org.apache.hadoop.fs.Path(dir, "file");
      int size = 3 * 1024 * 1024 + 4321;
      byte[] data = write(f, size, 2L * added.getCellSize(), r);
      assertArrayEquals(data, read(f, size), added.getName());
      LinearCode c = StripedCodec.byName(added.getCodecName()).codeFor(added.getNumDataUnits(), added.getNumParityUnits());
      assertTrue(StripedGroups.verifyEveryUnit(cluster, fs, f, added, c, data) > 0);
    }
  }
}
