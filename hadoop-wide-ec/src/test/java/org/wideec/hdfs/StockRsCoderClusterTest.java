package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
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
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.protocol.SystemErasureCodingPolicies;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.io.erasurecode.CodecUtil;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.RSRawDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;
import org.apache.hadoop.io.erasurecode.rawcoder.WideEcRawDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.WideEcRawEncoder;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.wideec.code.LinearCode;
import org.wideec.coder.NativeRequirement;
import org.wideec.coder.StripedCodec;
import org.wideec.minicluster.MiniClusters;
import org.wideec.minicluster.StripedGroups;

/**
 * HDFS's stock RS-6-3 policy with our coder on one side and Hadoop's on the other, switched only by
 * io.erasurecode.codec.rs.rawcoders: files written by one coder are read degraded (three DataNodes gone) and
 * rebuilt by the DataNodes with the other, and every stored and rebuilt internal block is what RS(6,3) computes.
 */
class StockRsCoderClusterTest {
  static final String KEY = "io.erasurecode.codec.rs.rawcoders";
  static final String OURS = "wideec_native";
  static final String STOCK = "rs_java";
  static final long BLOCK = 2L << 20; // two 1 MiB cells per internal block

  @TempDir
  Path base;

  @ParameterizedTest(name = "written by {0}, read and rebuilt by {1}")
  @CsvSource({"wideec_native, rs_java", "rs_java, wideec_native"})
  void filesWrittenByOneCoderAreReadDegradedAndRebuiltByTheOther(String writer, String other) throws Exception {
    NativeRequirement.nativeCoder();
    ErasureCodingPolicy policy = SystemErasureCodingPolicies.getByID(SystemErasureCodingPolicies.RS_6_3_POLICY_ID);
    LinearCode code = StripedCodec.WIDE_RS.codeFor(6, 3);
    Configuration dnConf = new Configuration();
    dnConf.set(KEY, other);
    // DataNodes also check each rebuild by decoding one input back from the rebuilt units (DecodingValidator)
    // and refuse to write it on a mismatch: a second, differently shaped call into the decoder.
    dnConf.setBoolean(DFSConfigKeys.DFS_DN_EC_RECONSTRUCTION_VALIDATION_KEY, true);
    // One DataNode per rack, three more than a group's nine units: room to rebuild three lost units.
    MiniDFSCluster cluster = MiniClusters.start(dnConf, new File(base.toFile(), "dfs"), 12, 1, BLOCK);
    try {
      assertCoder(other, cluster.getDataNodes().get(0).getConf());
      DistributedFileSystem writing = client(cluster, writer);
      DistributedFileSystem reading = client(cluster, other);
      writing.enableErasureCodingPolicy(policy.getName());
      org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path("/rs");
      writing.mkdirs(dir);
      writing.setErasureCodingPolicy(dir, policy.getName());

      Random r = new Random(writer.hashCode());
      int cell = policy.getCellSize();
      // A partial first stripe, one full stripe, and two block groups ending in a partial stripe.
      int[] sizes = {2 * cell + 5, 6 * cell, (int) (6 * BLOCK) + 4 * cell + 12345};
      List<org.apache.hadoop.fs.Path> files = new ArrayList<>();
      List<byte[]> contents = new ArrayList<>();
      for (int s : sizes) {
        org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(dir, "f" + s);
        contents.add(write(writing, p, s, r));
        files.add(p);
      }
      StripedGroups.awaitSettled(cluster, writing, policy, files, 60_000);
      for (int i = 0; i < files.size(); i++) {
        assertTrue(StripedGroups.verifyEveryUnit(cluster, writing, files.get(i), policy, code, contents.get(i)) > 0);
      }

      // Lose three DataNodes (m = 3): the holders of data units 1 and 4 and parity 7 of the big file's first group.
      LocatedStripedBlock g0 = StripedGroups.groups(writing, files.get(files.size() - 1)).get(0);
      List<DataNode> lost = new ArrayList<>();
      for (int unit : new int[] {1, 4, 7}) {
        lost.add(cluster.getDataNodes().get(indexOf(cluster, StripedGroups.location(g0, unit))));
      }
      for (DataNode dn : lost) {
        cluster.stopDataNode(dn.getDatanodeId().getXferAddr());
      }
      for (int i = 0; i < files.size(); i++) {
        assertArrayEquals(contents.get(i), read(reading, files.get(i), sizes[i]), "degraded read by " + other);
      }

      for (DataNode dn : lost) {
        cluster.setDataNodeDead(dn.getDatanodeId());
      }
      int units = 0;
      for (int i = 0; i < files.size(); i++) {
        StripedGroups.awaitComplete(writing, files.get(i), policy, 120_000);
        units += StripedGroups.verifyEveryUnit(cluster, writing, files.get(i), policy, code, contents.get(i));
        assertArrayEquals(contents.get(i), read(reading, files.get(i), sizes[i]), "read after rebuild by " + other);
      }
      assertTrue(units >= 2 * 9, "checked " + units + " internal blocks");
      for (DataNode dn : cluster.getDataNodes()) {
        assertEquals(0, dn.getMetrics().getECInvalidReconstructionTasks(), "rebuilds the validator refused");
      }
    } finally {
      cluster.shutdown();
    }
  }

  /** A client of its own whose striped streams code with the given coder. */
  static DistributedFileSystem client(MiniDFSCluster cluster, String coder) throws IOException {
    Configuration conf = new Configuration(cluster.getConfiguration(0));
    conf.set(KEY, coder);
    assertCoder(coder, conf);
    return (DistributedFileSystem) FileSystem.newInstance(cluster.getURI(), conf);
  }

  /** What CodecUtil gives HDFS for rs under this configuration is the coder the test means. */
  static void assertCoder(String coder, Configuration conf) {
    ErasureCoderOptions o = new ErasureCoderOptions(6, 3);
    RawErasureEncoder e = CodecUtil.createRawEncoder(conf, "rs", o);
    RawErasureDecoder d = CodecUtil.createRawDecoder(conf, "rs", o);
    if (coder.equals(OURS)) {
      assertInstanceOf(WideEcRawEncoder.class, e);
      assertInstanceOf(WideEcRawDecoder.class, d);
    } else {
      assertEquals(STOCK, coder);
      assertInstanceOf(RSRawDecoder.class, d);
    }
  }

  static byte[] write(DistributedFileSystem fs, org.apache.hadoop.fs.Path p, int size, Random r) throws IOException {
    byte[] data = new byte[size];
    r.nextBytes(data);
    try (FSDataOutputStream o = fs.create(p, true, 4096, (short) 1, BLOCK)) {
      o.write(data);
    }
    return data;
  }

  static byte[] read(DistributedFileSystem fs, org.apache.hadoop.fs.Path p, int size) throws IOException {
    byte[] back = new byte[size];
    try (FSDataInputStream in = fs.open(p)) {
      IOUtils.readFully(in, back, 0, size);
      assertEquals(-1, in.read(), "no bytes beyond the file's length");
    }
    return back;
  }

  static int indexOf(MiniDFSCluster cluster, DatanodeInfo info) {
    List<DataNode> dns = cluster.getDataNodes();
    for (int i = 0; i < dns.size(); i++) {
      if (dns.get(i).getXferPort() == info.getXferPort()) {
        return i;
      }
    }
    throw new IllegalStateException("no DataNode " + info);
  }
}
