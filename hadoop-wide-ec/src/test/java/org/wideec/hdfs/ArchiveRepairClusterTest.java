package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.tools.DFSck;
import org.apache.hadoop.test.GenericTestUtils.LogCapturer;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.code.UnitRole;
import org.wideec.minicluster.Eventually;
import org.wideec.minicluster.MiniClusters;
import org.wideec.placement.hdfs.WideEcNameNodeMetrics;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;
import org.wideec.transport.TransportFaultInjector;

/**
 * Archived stripes repair themselves on the racked test bed (6 racks x 3 DataNodes, 64 KiB blocks,
 * azure-lrc:k=6,l=2,g=2) with the trimmer, the NameNode's archive repair monitor and the DataNodes' wide-ec workers:
 * a DataNode holding trimmed data blocks (or a parity block) dies, and every block of every stripe is live again
 * under its own id, in its planned rack, with the manifest's CRC; fsck is healthy and every byte reads back with a
 * stock client. A member appended after archival is never a helper (the stripe is reported stale), and a corrupt
 * helper makes the CRC check refuse: nothing is stored until an honest repair.
 */
class ArchiveRepairClusterTest extends ArchiveTestBed {
  private final List<MiniDFSCluster.DataNodeProperties> stopped = new ArrayList<>();

  @Override
  Configuration baseConf() {
    Configuration base = repairConf(300);
    base.setLong("wide-ec.archive.repair.backoff.ms", 500);
    // Transient failures (a DataNode restarted by an earlier test, its slice port not yet found) double a block's
    // back-off too; capped, the corrupt-helper test sees its block attempted again within its deadline.
    base.setLong("wide-ec.archive.repair.backoff.max.ms", 2_000);
    // No second decode: the manifest's CRC is then all that stands between a corrupt helper and a stored block.
    base.setBoolean("dfs.datanode.ec.reconstruction.validation", false);
    return base;
  }

  @BeforeAll
  void awaitLease() throws Exception {
    awaitTrimmerLease();
  }

  @AfterEach
  void restartStopped() throws Exception {
    TransportFaultInjector.set(null);
    // The later tests archive their own files onto the nodes as they are.
    MiniClusters.restartAndReport(cluster, stopped, MiniClusters.Ports.SAME_IF_FREE);
  }

  private static WideEcNameNodeMetrics metrics() {
    return WideEcNameNodePlugin.metrics();
  }

  /** Stops the DataNode at a transfer address, and has the NameNode declare it dead at once. */
  private void kill(String xferAddr) throws Exception {
    DataNode dn = datanode(xferAddr);
    stopped.add(cluster.stopDataNode(xferAddr));
    cluster.setDataNodeDead(dn.getDatanodeId());
  }


  /** Waits until every stored member of the manifest has a live replica again. */
  private void awaitEveryMemberLive(StripeManifest m, long timeoutMs) throws Exception {
    Eventually.await("every stored member of " + m.stripes().size() + " stripes live again", Duration.ofMillis(timeoutMs),
        () -> {
          for (ArchivedStripe s : m.stripes()) {
            for (int u : s.storedUnits()) {
              if (located(s.member(u)).getLocations().length == 0) {
                return "stripe " + s.stripeId() + " unit " + u + " (blk_" + s.member(u).blockId() + ") still missing;"
                    + " repaired " + metrics().archivedBlocksRepaired() + ", failures "
                    + metrics().archivedRepairFailures();
              }
            }
          }
          return null;
        }, java.util.Objects::isNull);
  }

  /** The block's bytes read with a stock client. */
  private byte[] bytesOf(StripeMember m, LocatedBlock lb) throws Exception {
    byte[] b = new byte[(int) lb.getBlockSize()];
    try (FSDataInputStream in = fs.open(ArchiveLayout.inodePath(m.inodeId()))) {
      in.readFully(lb.getStartOffset(), b);
    }
    return b;
  }

  /**
   * Every stored member (data and parity) is live under the manifest's block id, generation stamp and length with the
   * manifest's CRC32C; a rebuilt one ({@code rebuilt}) sits on a node of its planned rack other than the dead one.
   */
  private void everyMemberAsArchived(StripeManifest m, List<Long> rebuilt, String dead) throws Exception {
    for (ArchivedStripe s : m.stripes()) {
      for (int u : s.storedUnits()) {
        StripeMember mem = s.member(u);
        LocatedBlock lb = located(mem);
        String what = "stripe " + s.stripeId() + " unit " + u + " blk_" + mem.blockId();
        assertEquals(mem.blockId(), lb.getBlock().getBlockId(), what);
        assertEquals(mem.generationStamp(), lb.getBlock().getGenerationStamp(), what);
        assertEquals(mem.length(), lb.getBlockSize(), what);
        assertEquals(1, lb.getLocations().length, what + " has one replica");
        assertEquals(mem.crc32c(), ArchiveChecks.crc(bytesOf(mem, lb)), what);
        if (rebuilt.contains(mem.blockId())) {
          assertEquals(mem.plannedRack(), lb.getLocations()[0].getNetworkLocation(), what + " rebuilt in its planned rack");
          assertTrue(!lb.getLocations()[0].getXferAddr().equals(dead), what);
        }
      }
    }
  }

  /** The monitor counts a rebuild once it sees the block live, which may be a moment after a test does. */
  private static void awaitRepairedBeyond(long count) throws Exception {
    Eventually.await("more than " + count + " rebuilds counted", Duration.ofSeconds(10),
        () -> metrics().archivedBlocksRepaired(), n -> n > count);
  }

  private void fsckHealthy() throws Exception {
    // The node killed may also hold units of earlier tests' stripes, whose repairs can be backing off after the
    // corrupt-helper test's refusals: they come back too, on their own schedule.
    Eventually.await("no missing blocks", Duration.ofSeconds(60), () -> fs.getClient().getMissingBlocksCount(),
        n -> n == 0);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int rc = ToolRunner.run(new DFSck(conf, new PrintStream(out, true, "UTF-8")), new String[] {"/"});
    String report = out.toString("UTF-8");
    assertEquals(0, rc, report);
    assertTrue(report.contains("is HEALTHY"), report);
  }

  /** Members of the manifest's stripes planned on a node. */
  private static List<StripeMember> onNode(StripeManifest m, String node) {
    List<StripeMember> out = new ArrayList<>();
    for (ArchivedStripe s : m.stripes()) {
      for (int u : s.storedUnits()) {
        if (s.member(u).plannedNode().equals(node)) {
          out.add(s.member(u));
        }
      }
    }
    return out;
  }

  @Test
  void aDeadNodesTrimmedDataBlocksComeBackUnderTheirOwnIdsInTheirPlannedRacks() throws Exception {
    checks.write("/rd/a", BLOCK / 3);
    checks.write("/rd/b", 3 * BLOCK + 17);
    checks.write("/rd/sub/c", 4 * BLOCK);
    checks.write("/rf/big", 13 * BLOCK + 999); // a large file: three stripes, the last short
    StripeManifest dir = archived("/rd");
    StripeManifest big = archived("/rf/big");
    StripeMember victim = big.stripes().get(0).member(2);
    List<Long> lost = new ArrayList<>();
    onNode(dir, victim.plannedNode()).forEach(x -> lost.add(x.blockId()));
    onNode(big, victim.plannedNode()).forEach(x -> lost.add(x.blockId()));
    long repaired = metrics().archivedBlocksRepaired();
    kill(victim.plannedNode());
    awaitEveryMemberLive(big, 60_000);
    awaitEveryMemberLive(dir, 60_000);
    assertTrue(lost.contains(victim.blockId()));
    // At least these (the dead node may also have held units of other tests' stripes).
    awaitRepairedBeyond(repaired + lost.size() - 1);
    everyMemberAsArchived(big, lost, victim.plannedNode());
    everyMemberAsArchived(dir, lost, victim.plannedNode());
    fsckHealthy();
    checks.everyByteReadsBack();
  }

  @Test
  void aDeadNodesParityBlockComesBackUnderItsOwnId() throws Exception {
    checks.write("/rp/f", 6 * BLOCK);
    StripeManifest m = archived("/rp/f");
    StripeMember parity = m.stripes().get(0).member(CODE_K + 1); // the second global parity
    assertEquals(UnitRole.GLOBAL_PARITY, parity.role());
    long repaired = metrics().archivedBlocksRepaired();
    kill(parity.plannedNode());
    awaitEveryMemberLive(m, 60_000);
    awaitRepairedBeyond(repaired);
    everyMemberAsArchived(m, List.of(parity.blockId()), parity.plannedNode());
    fsckHealthy();
    checks.everyByteReadsBack();
  }

  private static final int CODE_K = 6;

  @Test
  void aMemberAppendedAfterArchivalIsNeverAHelperAndTheStripeIsReportedStale() throws Exception {
    checks.write("/rs/f", 5 * BLOCK + 1000); // units 0..5, the last one partial; local groups {0,1,2} and {3,4,5}
    StripeManifest m = manifestOfTrimmed("/rs/f");
    ArchivedStripe s = m.stripes().get(0);
    long staleBefore = metrics().archivedStripesStale();
    checks.append("/rs/f", new byte[] {1, 2, 3}); // unit 5 changes: new generation stamp and length
    StripeMember lost = s.member(3); // its local group would use unit 5: the repair must decode without it
    kill(lost.plannedNode());
    Eventually.await("unit 3 live again", Duration.ofSeconds(60), () -> located(lost).getLocations().length > 0);
    assertTrue(metrics().archivedStripesStale() > staleBefore, "the stripe is reported stale");
    LocatedBlock lb = located(lost);
    assertEquals(lost.blockId(), lb.getBlock().getBlockId());
    assertEquals(lost.crc32c(), ArchiveChecks.crc(bytesOf(lost, lb)), "rebuilt without the appended member");
    // The appended block is no longer protected by the parity: its file goes to f + 1 = 4 replicas (the code claims
    // three losses), which also covers the stripe's other units in that file.
    Eventually.await("/rs/f at replication 4", Duration.ofSeconds(30),
        () -> fs.getFileStatus(new org.apache.hadoop.fs.Path("/rs/f")).getReplication(), r -> r == 4);
    // The reprotector counts a raise once HDFS has taken it, a moment after a reader may see the new replication.
    Eventually.await("the raise counted", Duration.ofSeconds(30), () -> metrics().archivedFilesReReplicated(),
        n -> n >= 1);
    // And taken: the appended block's copies made, so a later test losing a node of this stripe cannot take its one
    // replica (the parity no longer covers it) while HDFS is still copying it.
    org.apache.hadoop.fs.Path f = new org.apache.hadoop.fs.Path("/rs/f");
    Eventually.await("every block of /rs/f at 4 live replicas", Duration.ofSeconds(60), () -> liveReplicas(f),
        r -> r.stream().allMatch(n -> n >= 4));
    checks.everyByteReadsBack();
  }

  private StripeManifest manifestOfTrimmed(String path) throws Exception {
    return archived(path);
  }

  @Test
  void aCorruptHelperMakesTheCrcCheckRefuseAndNothingIsStored() throws Exception {
    checks.write("/rc/f", 6 * BLOCK);
    StripeManifest m = archived("/rc/f");
    StripeMember lost = m.stripes().get(0).member(1);
    AtomicBoolean corrupt = new AtomicBoolean(true);
    AtomicInteger flipped = new AtomicInteger();
    // A helper that sends wrong bytes with good frames (past every wire check): only the CRC can tell.
    TransportFaultInjector.set(new TransportFaultInjector() {
      @Override
      public void beforeSend(String node, String toNode, long repairId, int slice, ByteBuf payload) {
        if (corrupt.get() && payload.readableBytes() > 8) {
          payload.setByte(payload.readerIndex(), payload.getByte(payload.readerIndex()) ^ 0x5a);
          flipped.incrementAndGet();
        }
      }
    });
    LogCapturer log = LogCapturer.captureLogs(org.apache.log4j.Logger.getLogger(
        "org.wideec.placement.hdfs.ArchiveRepairMonitor"));
    kill(lost.plannedNode());
    String refused = "archived block blk_" + lost.blockId() + " of /rc/f (stripe 0, unit 1, manifest ";
    // Refused, and refused again after the back-off. The killed node also held units of the other tests' stripes,
    // whose rebuilds this helper corrupts too and which share the monitor's rebuild slots and back-offs: allow for them.
    Eventually.await("the rebuild refused twice", Duration.ofSeconds(180), log::getOutput,
        out -> out.lines().filter(l -> l.contains(refused) && l.contains("the manifest records")
            && l.contains("nothing stored")).count() >= 2);
    log.stopCapturing();
    assertTrue(flipped.get() > 0);
    // Refused before the last packet: the NameNode lists no replica and no DataNode holds a finalized one.
    assertEquals(0, located(lost).getLocations().length);
    org.apache.hadoop.hdfs.protocol.ExtendedBlock b = new org.apache.hadoop.hdfs.protocol.ExtendedBlock(
        cluster.getNamesystem().getBlockPoolId(), lost.blockId(), lost.length(), lost.generationStamp());
    for (DataNode dn : cluster.getDataNodes()) {
      assertTrue(!dn.getFSDataset().isValidBlock(b), dn.getDatanodeId().getXferAddr() + " stored the refused block");
    }
    corrupt.set(false);
    awaitEveryMemberLive(m, 180_000); // the next attempt, honest, repairs it (after the back-off the refusals grew)
    LocatedBlock lb = located(lost);
    assertNotNull(lb);
    assertEquals(lost.crc32c(), ArchiveChecks.crc(bytesOf(lost, lb)));
    checks.everyByteReadsBack();
  }
}
