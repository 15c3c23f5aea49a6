package org.wideec.scrub;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.archive.hdfs.SlicePortClient;
import org.wideec.cli.WideEcTool;
import org.wideec.code.LinearCode;
import org.wideec.coder.StripedCodec;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.datanode.WideEcDataNodePlugin;
import org.wideec.minicluster.MiniClusters;
import org.wideec.minicluster.SilentCorruption;
import org.wideec.minicluster.StripedGroups;
import org.wideec.scrub.hdfs.StripedGroupScrub;
import org.wideec.time.Backoff;

/**
 * Silent corruption of a striped group (bytes changed, {@code .meta} rewritten so HDFS's checksums pass) found by
 * checking one-page summaries against the code, and repaired by our worker from the units that agree.
 */
class StripedScrubClusterTest {
  private static final int CELL = 64 * 1024;
  private static final long BLOCK = 4L * CELL;
  private static final int PAGE = 1024;
  private static final int DATA_UNIT = 2;
  private static final int PARITY_UNIT = 11;

  @TempDir
  java.nio.file.Path base;

  @Test
  void verifyNamesSilentlyCorruptDataAndParityUnitsRepairsThemAndSendsUnderOnePercentAcrossRacks()
      throws Exception {
    Configuration conf = MiniClusters.withWideEcRepair(MiniClusters.withWideEcPlacement(new Configuration()));
    conf.setInt("wide-ec.transport.slice.bytes", 16 * 1024);
    // A scrub proves the READ token of each internal block to its holder's slice port.
    conf.setBoolean(org.apache.hadoop.hdfs.DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    conf = MiniClusters.tuned(conf, new File(base.toFile(), "dfs"), BLOCK);
    MiniDFSCluster cluster = MiniClusters.start(conf, 6, 3);
    try (SlicePortClient port = new SlicePortClient(cluster.getConfiguration(0))) {
      DistributedFileSystem fs = cluster.getFileSystem();
      ErasureCodingPolicy policy = WideEcPolicies.addAndEnable(fs, WideEcPolicies.policy("wide-rs", 10, 4, CELL));
      LinearCode code = StripedCodec.WIDE_RS.codeFor(10, 4);
      Path dir = new Path("/rs");
      fs.mkdirs(dir);
      fs.setErasureCodingPolicy(dir, policy.getName());
      Path file = new Path(dir, "f");
      byte[] data = new byte[(int) (20 * BLOCK) - CELL / 3]; // two groups, every unit of both holding bytes
      new Random(7).nextBytes(data);
      try (FSDataOutputStream o = fs.create(file)) {
        o.write(data);
      }
      StripedGroups.awaitSettled(cluster, fs, policy, List.of(file), 60_000);
      List<LocatedStripedBlock> groups = StripedGroups.groups(fs, file);
      assertEquals(2, groups.size());
      corrupt(cluster, policy, groups.get(0), DATA_UNIT);
      corrupt(cluster, policy, groups.get(1), PARITY_UNIT);
      // HDFS's own checksums pass: a read returns the changed byte (unit 2's second cell is the file's cell 12).
      byte[] silently = data.clone();
      silently[12 * CELL + 5] ^= 0x21;
      assertArrayEquals(silently, read(fs, file, data.length));

      long crossBefore = crossRackBytes(cluster);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      int rc = ToolRunner.run(cluster.getConfiguration(0), new WideEcTool(new PrintStream(out, true,
          StandardCharsets.UTF_8), System.err), new String[] {"verify", "/rs", "--repair", "--page-bytes",
              String.valueOf(PAGE), "--seed", "42", "--json"});
      long crossRack = crossRackBytes(cluster) - crossBefore;
      assertEquals(1, rc, "a group at fault is a problem");
      JsonNode report = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8).trim());
      assertEquals(2, report.get("groupsChecked").asInt());
      assertEquals(2, report.get("problems").asInt());
      assertEquals(List.of("unit_at_fault [2] true", "unit_at_fault [11] true"), List.of(
          summary(report.get("groups").get(0)), summary(report.get("groups").get(1))));
      // The client is in no DataNode's rack: every summary crosses, one page per unit, and nothing else does.
      assertEquals(2L * code.n() * PAGE, crossRack);
      assertEquals(crossRack, report.get("crossRackSummaryBytes").asLong());
      assertTrue(crossRack <= 0.01 * 2 * code.n() * BLOCK, crossRack + " cross-rack bytes");
      assertEquals(2 * code.n(), summariesServed(cluster), "one summary per unit, each from its holder");

      awaitMoved(fs, file, 0, DATA_UNIT, StripedGroups.location(groups.get(0), DATA_UNIT));
      awaitMoved(fs, file, 1, PARITY_UNIT, StripedGroups.location(groups.get(1), PARITY_UNIT));
      StripedGroups.awaitComplete(fs, file, policy, 120_000);
      assertEquals(2 * code.n(), StripedGroups.verifyEveryUnit(cluster, fs, file, policy, code, data));
      assertArrayEquals(data, read(fs, file, data.length));
      StripedGroupScrub scrub = new StripedGroupScrub(fs, port, PAGE, 43);
      for (StripedGroupScrub.GroupResult r : scrub.verify(file)) {
        assertEquals(ScrubVerdict.CONSISTENT, r.verdict(), r.toString());
      }
    } finally {
      cluster.shutdown();
    }
  }

  private static String summary(JsonNode group) {
    return group.get("verdict").asText() + " " + group.get("suspects") + " " + group.get("repairRequested");
  }

  private static void corrupt(MiniDFSCluster cluster, ErasureCodingPolicy policy, LocatedStripedBlock group, int unit)
      throws Exception {
    DatanodeInfo holder = StripedGroups.location(group, unit);
    List<DataNode> dns = cluster.getDataNodes();
    for (int i = 0; i < dns.size(); i++) {
      if (dns.get(i).getDatanodeId().getXferAddr().equals(holder.getXferAddr())) {
        SilentCorruption.flipByte(cluster, i, StripedBlockUtil.constructInternalBlock(group.getBlock(), policy, unit),
            CELL + 5, 0x21);
        return;
      }
    }
    throw new IllegalStateException("no running DataNode at " + holder);
  }

  /** Waits until the NameNode lists unit {@code unit} of group {@code g} somewhere other than {@code from}. */
  private static void awaitMoved(DistributedFileSystem fs, Path file, int g, int unit, DatanodeInfo from)
      throws Exception {
    Backoff poll = Backoff.doubling(200, 1000, 120_000);
    while (true) {
      DatanodeInfo now = StripedGroups.location(StripedGroups.groups(fs, file).get(g), unit);
      if (now != null && !now.getXferAddr().equals(from.getXferAddr())) {
        return;
      }
      if (poll.expired()) {
        throw new java.io.IOException("unit " + unit + " of group " + g + " still listed on " + from);
      }
      poll.pause();
    }
  }

  private static long summariesServed(MiniDFSCluster cluster) {
    long sum = 0;
    for (DataNode dn : cluster.getDataNodes()) {
      sum += WideEcDataNodePlugin.running(dn.getXferPort()).metrics().summariesServed();
    }
    return sum;
  }

  private static long crossRackBytes(MiniDFSCluster cluster) {
    long sum = 0;
    for (DataNode dn : cluster.getDataNodes()) {
      sum += WideEcDataNodePlugin.running(dn.getXferPort()).metrics().bytesSentCrossRack();
    }
    return sum;
  }

  private static byte[] read(DistributedFileSystem fs, Path file, int len) throws Exception {
    byte[] out = new byte[len];
    try (FSDataInputStream in = fs.open(file)) {
      in.readFully(0, out);
    }
    return out;
  }
}
