package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.test.GenericTestUtils.LogCapturer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.datanode.RepairMetrics;
import org.wideec.datanode.WideEcDataNodePlugin;
import org.wideec.minicluster.Eventually;
import org.wideec.minicluster.MiniClusters;
import org.wideec.placement.hdfs.WideEcNameNodeMetrics;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;

/**
 * A DataNode restarted on its HDFS ports opens a new slice port (the test bed's is 0: any free port) while the
 * NameNode still remembers the old one from the last rebuild, on the racked test bed (6 racks x 3 DataNodes,
 * azure-lrc:k=6,l=2,g=2). The very next rebuild that needs it asks it where it listens now: no order fails, no node is
 * left out, no attempt is retried, and the rebuilt block has the manifest's CRC.
 */
class ArchiveRepairRestartedHelperClusterTest extends ArchiveTestBed {
  @Override
  Configuration baseConf() {
    Configuration base = repairConf(300);
    base.setLong("wide-ec.archive.repair.backoff.ms", 500);
    return base;
  }

  @BeforeAll
  void awaitLease() throws Exception {
    awaitTrimmerLease();
  }

  private static WideEcNameNodeMetrics metrics() {
    return WideEcNameNodePlugin.metrics();
  }

  private static int slicePort(org.apache.hadoop.hdfs.server.datanode.DataNode dn) {
    return WideEcDataNodePlugin.running(dn.getXferPort()).transport().port();
  }

  @Test
  void aHelperRestartedOnANewSlicePortServesTheVeryNextRebuildWithoutBeingLeftOut() throws Exception {
    checks.write("/rr/f", 6 * BLOCK);
    StripeManifest m = archived("/rr/f");
    ArchivedStripe s = m.stripes().get(0);
    StripeMember helper = s.member(1); // in the local group {0, 1, 2, L1}: a helper of both local repairs
    String helperNode = helper.plannedNode();
    // A first rebuild looks up the slice port of every node of the stripe: the NameNode remembers the helper's.
    lose(s.member(0));
    awaitRebuilt(s.member(0));
    int before = slicePort(datanode(helperNode));
    MiniClusters.restart(cluster, cluster.stopDataNode(helperNode), MiniClusters.Ports.SAME);
    cluster.waitActive();
    Eventually.await("blk_" + helper.blockId() + " reported again", Duration.ofSeconds(60),
        () -> located(helper).getLocations().length > 0);
    int after = slicePort(datanode(helperNode));
    assertTrue(after != before, "the restarted DataNode listens on a new slice port (" + before + ", " + after + ")");

    // Each line says who rebuilt from whom, and whether a node was looked up again.
    org.apache.log4j.Logger engine = org.apache.log4j.Logger.getLogger("org.wideec.engine.RepairEngine");
    org.apache.log4j.Logger orders = org.apache.log4j.Logger.getLogger("org.wideec.placement.hdfs.ArchiveRepairMonitor");
    engine.setLevel(org.apache.log4j.Level.INFO);
    orders.setLevel(org.apache.log4j.Level.INFO);
    LogCapturer dataNodes = LogCapturer.captureLogs(engine);
    LogCapturer monitor = LogCapturer.captureLogs(orders);
    long failures = metrics().archivedRepairFailures();
    long leftOut = metrics().archiveNodesFoundUnusable();
    long retries = sumOverDataNodes(RepairMetrics::retries);
    long tookPart = tookPart(helperNode);
    lose(s.member(2)); // its local repair reads units 0, 1 and L1: the restarted node is one of its helpers
    awaitRebuilt(s.member(2));
    dataNodes.stopCapturing();
    monitor.stopCapturing();
    String out = monitor.getOutput() + dataNodes.getOutput();
    assertEquals(0, metrics().archivedRepairFailures() - failures, out);
    assertEquals(0, metrics().archiveNodesFoundUnusable() - leftOut, out);
    assertEquals(0, sumOverDataNodes(RepairMetrics::retries) - retries, out);
    assertEquals(0, out.lines().filter(l -> l.contains("helper " + helperNode + " is unusable")).count(), out);
    assertTrue(tookPart(helperNode) > tookPart, "the restarted node took part in the rebuild: " + out);
    checks.everyByteReadsBack();
  }

  /**
   * What the DataNode at a transfer address did for rebuilds since it started: the repairs it completed as a requestor
   * (which reads its own unit locally) plus the background slice bytes it sent as a helper.
   */
  private long tookPart(String node) {
    RepairMetrics m = WideEcDataNodePlugin.running(datanode(node).getXferPort()).metrics();
    return m.succeeded() + m.backgroundBytesSent();
  }
}
