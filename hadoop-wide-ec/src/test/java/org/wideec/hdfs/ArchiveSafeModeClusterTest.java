package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.minicluster.Eventually;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;
import org.wideec.transport.TransportFaultInjector;

/**
 * Archived blocks hold one replica each, so a NameNode restarted while some are lost stays below
 * dfs.namenode.safemode.threshold-pct (its default here) for good unless they are rebuilt. On the racked test bed
 * (6 racks x 3 DataNodes, azure-lrc:k=6,l=2,g=2): two DataNodes holding trimmed blocks stop, the NameNode restarts
 * without them, and the archive repair monitor rebuilds the lost blocks in startup safe mode (after HDFS's heartbeat
 * expiry, seconds here); the NameNode leaves safe mode by itself, and every file reads back. While it is still in
 * safe mode, {@code wide-ec fsck} and {@code wide-ec status} run and say so.
 */
class ArchiveSafeModeClusterTest extends ArchiveTestBed {
  @Override
  Configuration baseConf() {
    Configuration base = repairConf(300);
    base.setLong("wide-ec.archive.repair.backoff.ms", 500);
    base.setLong("wide-ec.archive.repair.backoff.max.ms", 1_000);
    base.setBoolean("dfs.datanode.ec.reconstruction.validation", false);
    // The threshold stays HDFS's default (0.999): one missing block keeps the NameNode in safe mode. Once the rebuilt
    // blocks are reported, it leaves after this extension.
    base.setLong(DFSConfigKeys.DFS_NAMENODE_SAFEMODE_EXTENSION_KEY, 1_000);
    return base;
  }

  @BeforeAll
  void awaitLease() throws Exception {
    awaitTrimmerLease();
  }

  @AfterAll
  void noFaults() {
    TransportFaultInjector.set(null);
  }

  /** The one DataNode holding the member's block. */
  private String holder(StripeMember x) {
    return located(x).getLocations()[0].getXferAddr();
  }

  @Test
  void aNameNodeRestartedWithArchivedBlocksMissingRebuildsThemInSafeModeAndLeavesItByItself() throws Exception {
    checks.write("/sm/a", 3 * BLOCK + 17);
    checks.write("/sm/b", 6 * BLOCK);
    checks.write("/sm/sub/c", 2 * BLOCK + 5);
    // Down to one replica each first: an excess copy the old NameNode had not yet had deleted when it stopped would be
    // reported to the new one as a live replica, and the block it stands for would not be missing at all.
    StripeManifest m = archived("/sm");
    // Two nodes, each holding one unit of a stripe at most: every stripe still decodes. HDFS rounds the safe block
    // threshold down (a few dozen blocks here), so two missing blocks at least keep it in safe mode. The nodes are
    // where the blocks are, which is where they were planned unless the archive had to place one elsewhere.
    List<String> victims = List.of(holder(m.stripes().get(0).member(0)), holder(m.stripes().get(0).member(3)));
    List<StripeMember> lost = new ArrayList<>();
    for (ArchivedStripe s : m.stripes()) {
      for (int u : s.storedUnits()) {
        if (victims.contains(holder(s.member(u)))) {
          lost.add(s.member(u));
        }
      }
    }
    // Every rebuild fails (no helper can send a slice) until fsck has run, so the NameNode is still in safe mode with
    // the blocks missing when it does.
    AtomicBoolean held = new AtomicBoolean(true);
    TransportFaultInjector.set(new TransportFaultInjector() {
      @Override
      public void beforeSend(String node, String toNode, long repairId, int slice, ByteBuf payload) throws IOException {
        if (held.get()) {
          throw new IOException("held by the test");
        }
      }
    });
    victims.forEach(cluster::stopDataNode);
    cluster.restartNameNode(false);
    assertTrue(cluster.getNamesystem().isInSafeMode(), "the restarted NameNode starts in safe mode");
    Eventually.await("a rebuild attempted in safe mode for each lost block", Duration.ofSeconds(120),
        () -> WideEcNameNodePlugin.metrics().archivedRepairFailures(), n -> n >= lost.size());
    assertTrue(cluster.getNamesystem().isInSafeMode(), "still in safe mode: nothing was rebuilt yet");
    for (StripeMember x : lost) {
      assertEquals(0, located(x).getLocations().length, "blk_" + x.blockId() + " is missing");
    }

    String line = "NameNode in safe mode (wide-ec %s only reads): " + lost.size() + " archived block"
        + (lost.size() == 1 ? "" : "s") + " under /sm missing; the archive repair monitor is rebuilding them, and the"
        + " NameNode leaves safe mode by itself once enough blocks are back";
    ToolRun fsck = tool("fsck", "/sm");
    assertEquals(1, fsck.exit(), fsck.out() + fsck.err()); // it ran, and found the missing blocks
    assertEquals(String.format(line, "fsck"), fsck.out().lines().findFirst().orElse(""), fsck.out() + fsck.err());
    ToolRun status = tool("status", "/sm");
    assertEquals(0, status.exit(), status.out() + status.err());
    assertEquals(String.format(line, "status"), status.out().lines().findFirst().orElse(""), status.out());

    long repairedBefore = WideEcNameNodePlugin.metrics().archivedBlocksRepaired();
    held.set(false);
    Eventually.await("the NameNode out of safe mode", Duration.ofSeconds(120),
        () -> cluster.getNamesystem().isInSafeMode() ? cluster.getNamesystem().getSafemode() + "; repaired "
            + WideEcNameNodePlugin.metrics().archivedBlocksRepaired() : "", String::isEmpty);
    // HDFS rounds the safe block threshold down: the NameNode may leave before the last rebuilt block is reported.
    for (StripeMember x : lost) {
      Eventually.await("blk_" + x.blockId() + " live again", Duration.ofSeconds(60),
          () -> located(x).getLocations().length > 0);
      LocatedBlock lb = located(x);
      assertEquals(1, lb.getLocations().length, "blk_" + x.blockId() + " rebuilt");
      assertEquals(x.plannedRack(), lb.getLocations()[0].getNetworkLocation(), "blk_" + x.blockId());
      byte[] b = new byte[(int) lb.getBlockSize()];
      try (FSDataInputStream in = cluster.getFileSystem().open(ArchiveLayout.inodePath(x.inodeId()))) {
        in.readFully(lb.getStartOffset(), b);
      }
      assertEquals(x.crc32c(), ArchiveChecks.crc(b), "blk_" + x.blockId());
    }
    // The monitor counts a rebuild once the NameNode confirms it, which may come after a reader sees the block.
    await("at least " + (repairedBefore + lost.size()) + " archived blocks counted repaired",
        () -> WideEcNameNodePlugin.metrics().archivedBlocksRepaired() >= repairedBefore + lost.size());
    checks.everyByteReadsBack();
    ToolRun after = tool("fsck", "/sm");
    assertTrue(after.out().lines().noneMatch(l -> l.startsWith("NameNode in safe mode")), after.out());
  }
}
