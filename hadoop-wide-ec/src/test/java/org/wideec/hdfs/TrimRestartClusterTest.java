package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.ipc.CallerContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.ManifestStore;
import org.wideec.archive.hdfs.TrimProtocol;
import org.wideec.code.UnitRole;
import org.wideec.minicluster.Eventually;
import org.wideec.minicluster.MiniClusters;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;

/**
 * A NameNode restart between the archiver's setReplication(1) and the trim: the restarted NameNode's scan of
 * mis-replicated blocks trims with the stock choice before our trimmer sees the blocks. Blocks whose stock survivor
 * is the planned node end on plan; the others (counted off plan by the NameNode plugin, which deletes nothing
 * more) are moved onto their planned node by the archiver's next trim, replaceBlock with the survivor as delete
 * hint, and named as moved. Every block then has its one replica on its planned node, under its original id and
 * generation stamp, every stripe is TRIMMED and the run exits 0. The first NameNode runs with the trimmer off, so
 * it cannot trim first.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TrimRestartClusterTest {
  static final long BLOCK = 64 * 1024;
  static final String CODE = "azure-lrc:k=6,l=2,g=2";

  MiniDFSCluster cluster;
  ArchiveChecks checks;

  @BeforeAll
  void start(@TempDir java.nio.file.Path dir) throws Exception {
    Configuration base = MiniClusters.withWideEcArchiveTrim(new Configuration(), 2000);
    base.setBoolean(TrimProtocol.ENABLED_KEY, false);
    base.setLong(TrimProtocol.WAIT_KEY, 30_000);
    cluster = ArchiveChecks.cluster(dir.toFile(), BLOCK, base);
    checks = new ArchiveChecks(cluster.getFileSystem());
  }

  @AfterAll
  void stop() {
    if (cluster != null) {
      cluster.shutdown();
    }
  }

  private ToolRun tool(Configuration conf, String... args) throws Exception {
    return ToolRun.of(conf, args);
  }

  @Test
  void blocksTheRestartTrimmedOffPlanAreMovedOntoPlan() throws Exception {
    DistributedFileSystem fs = cluster.getFileSystem();
    Configuration conf = cluster.getConfiguration(0);
    checks.write("/r/a", 9 * BLOCK + 1000); // 10 blocks, 2 stripes
    assertEquals(0, tool(conf, "archive", "/r/a", "--code", CODE, "--no-trim").exit());
    // What the archiver does at the start of its trim: the policy defers, and no trimmer runs on this NameNode.
    CallerContext before = CallerContext.getCurrent();
    CallerContext.setCurrent(new CallerContext.Builder(TrimProtocol.CALLER_CONTEXT).build());
    try {
      fs.setReplication(new Path("/r/a"), (short) 1);
    } finally {
      CallerContext.setCurrent(before);
    }
    for (LocatedBlock lb : fs.getClient().getLocatedBlocks("/r/a", 0, 10 * BLOCK).getLocatedBlocks()) {
      assertEquals(3, lb.getLocations().length, "deferred: every replica still there");
    }

    conf.setBoolean(TrimProtocol.ENABLED_KEY, true);
    cluster.restartNameNode(true);
    fs = cluster.getFileSystem();
    Eventually.await("a pass of the restarted NameNode's trimmer", Duration.ofSeconds(30),
        () -> WideEcNameNodePlugin.metrics() != null && WideEcNameNodePlugin.metrics().trim().passes() > 0);

    // What the restart left: once the stock choice's excess replicas are gone, one replica per block.
    ManifestStore store = new ManifestStore(fs, ArchiveLayout.from(conf));
    StripeManifest atRestart = store.find(store.inodeOf(new Path("/r/a")));
    java.util.Map<Long, String> keptByRestart = new java.util.HashMap<>();
    Eventually.await("the restarted NameNode trims every block to one replica", Duration.ofSeconds(30), () -> {
      keptByRestart.clear();
      DistributedFileSystem now = cluster.getFileSystem();
      for (LocatedBlock lb : now.getClient().getLocatedBlocks("/r/a", 0, 10 * BLOCK).getLocatedBlocks()) {
        if (lb.getLocations().length == 1) {
          keptByRestart.put(lb.getBlock().getBlockId(), lb.getLocations()[0].getXferAddr());
        }
      }
      return keptByRestart.size() >= 10;
    });
    Set<Long> offPlan = new HashSet<>();
    for (ArchivedStripe s : atRestart.stripes()) {
      for (StripeMember d : s.members()) {
        if (d.role() == UnitRole.DATA && !d.padding() && !keptByRestart.get(d.blockId()).equals(d.plannedNode())) {
          offPlan.add(d.blockId());
        }
      }
    }

    ToolRun r = tool(conf, "archive", "/r/a", "--code", CODE);
    StripeManifest m = store.find(store.inodeOf(new Path("/r/a")));
    for (ArchivedStripe s : m.stripes()) {
      for (StripeMember d : s.members()) {
        if (d.role() != UnitRole.DATA || d.padding()) {
          continue;
        }
        LocatedBlock found = null;
        for (LocatedBlock lb : fs.getClient().getLocatedBlocks("/r/a", 0, 10 * BLOCK).getLocatedBlocks()) {
          if (lb.getBlock().getBlockId() == d.blockId()) {
            found = lb;
          }
        }
        assertEquals(1, found.getLocations().length, "block " + d.blockId() + " has one replica");
        assertEquals(d.plannedNode(), found.getLocations()[0].getXferAddr(), "block " + d.blockId() + " on plan");
        assertEquals(d.generationStamp(), found.getBlock().getGenerationStamp(), "block " + d.blockId());
        if (offPlan.contains(d.blockId())) {
          assertTrue(r.out().contains("moved onto plan: /r/a block blk_" + d.blockId() + "_" + d.generationStamp()
              + " from " + keptByRestart.get(d.blockId()) + " to " + d.plannedNode()), r.out());
        }
      }
      assertEquals(StripeState.TRIMMED, s.state(), "stripe " + s.stripeId());
    }
    assertEquals(0, r.exit(), r.out() + r.err());
    assertEquals(offPlan.size(), r.out().lines().filter(l -> l.startsWith("moved onto plan: ")).count(), r.out());
    // The trimmer may count an off-plan block before the archiver moves it, never one the restart kept on plan.
    assertTrue(WideEcNameNodePlugin.metrics().trim().blocksOffPlan() <= offPlan.size());
    checks.everyByteReadsBack();
  }
}
