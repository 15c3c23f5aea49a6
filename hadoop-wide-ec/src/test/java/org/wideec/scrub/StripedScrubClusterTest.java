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
 * checking one-page summaries against the code, summed in each rack on a clean pass and asked unit by unit where a
 * check fails, and repaired by our worker from the units that agree.
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
  void aCleanPassSendsOnePagePerRackAndCheckRowAcrossRacksAndACorruptDataAndParityUnitAreStillNamedAndRepaired()
      throws Exception {
    Configuration conf = MiniClusters.withWideEcRepair(MiniClusters.withWideEcPlacement(new Configuration()));
    conf.setInt("wide-ec.transport.slice.bytes", 16 * 1024);
    // A scrub proves the READ token of each internal block to its holder's slice port.
    conf.setBoolean(org.apache.hadoop.hdfs.DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    conf = MiniClusters.tuned(conf, new File(base.toFile(), "dfs"), BLOCK);
    // 4 racks of 4: RS(10,4) keeps at most 4 units in a rack, so the placement fills three racks with 4 and the last
    // with 2: three racks sum, the last sends its 2 pages, as many as the 2 check rows.
    MiniDFSCluster cluster = MiniClusters.start(conf, 4, 4);
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

      // A clean pass: each rack's collector sums its units' pages in the rack and sends one page per check row.
      long planned = 0;
      long summed = 0;
      for (LocatedStripedBlock g : groups) {
        RackSummingPlan plan = RackSummingPlan.plan(ScrubChecks.of(code, ScrubChecks.DEFAULT_CHECKS, 41),
            StripedGroups.rackOfUnit(g, code.n()), port.rack());
        assertEquals(3, plan.sums().size(), "racks that sum: " + StripedGroups.unitsByRack(g));
        assertEquals(4L * ScrubChecks.DEFAULT_CHECKS * PAGE, plan.crossRackBytes(PAGE), "racks x checks x page");
        planned += plan.crossRackBytes(PAGE);
        summed += plan.sums().stream().mapToInt(r -> r.units().length).sum();
      }
      long crossBefore = crossRackBytes(cluster);
      VerifyRun clean = verify(cluster, "/rs", "--page-bytes", String.valueOf(PAGE), "--seed", "41", "--json");
      long cleanCross = crossRackBytes(cluster) - crossBefore;
      assertEquals(0, clean.rc);
      assertEquals(List.of("consistent [] false", "consistent [] false"), List.of(summary(clean.report.get("groups")
          .get(0)), summary(clean.report.get("groups").get(1))));
      assertEquals(planned, cleanCross, "the transports' cross-rack bytes are the plan's");
      assertEquals(2L * 4 * 2 * PAGE, cleanCross, "2 groups x 4 racks x 2 checks x 1 KiB, not 2 x 14 units x 1 KiB");
      assertEquals(cleanCross, clean.report.get("crossRackSummaryBytes").asLong());
      assertEquals(2 * code.n(), summariesServed(cluster), "each unit folded once, by its holder");

      corrupt(cluster, policy, groups.get(0), DATA_UNIT);
      corrupt(cluster, policy, groups.get(1), PARITY_UNIT);
      // HDFS's own checksums pass: a read returns the changed byte (unit 2's second cell is the file's cell 12).
      byte[] silently = data.clone();
      silently[12 * CELL + 5] ^= 0x21;
      assertArrayEquals(silently, read(fs, file, data.length));

      crossBefore = crossRackBytes(cluster);
      VerifyRun found = verify(cluster, "/rs", "--repair", "--page-bytes", String.valueOf(PAGE), "--seed", "42",
          "--json");
      long crossRack = crossRackBytes(cluster) - crossBefore;
      assertEquals(1, found.rc, "a group at fault is a problem");
      assertEquals(2, found.report.get("groupsChecked").asInt());
      assertEquals(2, found.report.get("problems").asInt());
      assertEquals(List.of("unit_at_fault [2] true", "unit_at_fault [11] true"), List.of(
          summary(found.report.get("groups").get(0)), summary(found.report.get("groups").get(1))));
      // Each group failed its check rows, so every unit of a rack that summed was asked again on its own (the client
      // is in no DataNode's rack): the rack sums and the other units' pages, then one page per summed unit.
      assertEquals(planned + summed * PAGE, crossRack);
      assertEquals(2L * (4 * 2 + 12) * PAGE, crossRack);
      assertEquals(crossRack, found.report.get("crossRackSummaryBytes").asLong());
      assertTrue(crossRack <= 0.01 * 2 * code.n() * BLOCK, crossRack + " cross-rack bytes");
      assertEquals(2 * code.n() + 2 * code.n() + summed, summariesServed(cluster), "each unit folded for the check"
          + " rows, and each summed unit again on its own");

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

  private record VerifyRun(int rc, JsonNode report) {}

  private static VerifyRun verify(MiniDFSCluster cluster, String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    String[] argv = new String[args.length + 1];
    argv[0] = "verify";
    System.arraycopy(args, 0, argv, 1, args.length);
    int rc = ToolRunner.run(cluster.getConfiguration(0), new WideEcTool(new PrintStream(out, true,
        StandardCharsets.UTF_8), System.err), argv);
    return new VerifyRun(rc, new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8).trim()));
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
