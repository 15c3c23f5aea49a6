package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.test.GenericTestUtils.LogCapturer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.minicluster.Eventually;
import org.wideec.minicluster.MiniClusters;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;

/**
 * The archive repair monitor re-plans around a helper it cannot use, on the racked test bed (6 racks x 3 DataNodes,
 * azure-lrc:k=6,l=2,g=2): a DataNode holding a unit of a stripe runs no wide-ec worker (no cluster secret), two other
 * units of the stripe are lost one after the other, and each is rebuilt without a failed order from the other helpers;
 * the bad node is left out once and for the next order too, and no rebuild fails.
 */
class ArchiveRepairUnusableHelperClusterTest extends ArchiveTestBed {
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

  /** Restarts the DataNode without the cluster secret: its wide-ec worker stays off; its blocks are reported again. */
  private void workerOff(StripeMember held) throws Exception {
    MiniDFSCluster.DataNodeProperties p = cluster.stopDataNode(held.plannedNode());
    java.lang.reflect.Field f = MiniDFSCluster.DataNodeProperties.class.getDeclaredField("conf");
    f.setAccessible(true);
    ((Configuration) f.get(p)).unset("wide-ec.transport.secret");
    MiniClusters.restart(cluster, p, MiniClusters.Ports.SAME);
    cluster.waitActive();
    Eventually.await("blk_" + held.blockId() + " reported again", Duration.ofSeconds(60),
        () -> located(held).getLocations().length > 0);
  }

  /** The monitor logs a rebuild once the NameNode confirms it, which can be just after the test sees the block live. */
  private static void awaitConfirmed(LogCapturer log, StripeMember lost) {
    Eventually.await("the repair monitor's line for blk_" + lost.blockId(), Duration.ofSeconds(60),
        () -> log.getOutput().lines().anyMatch(l -> l.contains("archived block blk_" + lost.blockId() + " of")
            && l.contains("rebuilt under its original id")));
  }

  @Test
  void aHelperWhoseWorkerIsOffIsLeftOutAndEveryLostBlockIsRebuiltWithoutAFailedOrder() throws Exception {
    checks.write("/ru/f", 6 * BLOCK);
    ToolRun archived = tool("archive", "/ru/f", "--code", CODE);
    assertEquals(0, archived.exit(), archived.out() + archived.err());
    StripeManifest m = manifestOf("/ru/f");
    ArchivedStripe s = m.stripes().get(0);
    StripeMember bad = s.member(1); // in the local group {0, 1, 2, L1}: a helper of both local repairs
    String badNode = bad.plannedNode();
    workerOff(bad);
    org.apache.log4j.Logger monitor = org.apache.log4j.Logger.getLogger("org.wideec.placement.hdfs.ArchiveRepairMonitor");
    monitor.setLevel(org.apache.log4j.Level.INFO); // each rebuild's line names the helpers its order offered
    LogCapturer log = LogCapturer.captureLogs(monitor);
    long failures = WideEcNameNodePlugin.metrics().archivedRepairFailures();
    lose(s.member(0));
    awaitRebuilt(s.member(0));
    // Confirmed before the next loss: unit 0's new node may be the one the next loss takes, and an order whose target
    // dies before the monitor sees its block live fails (rightly), which is not what this test is about.
    awaitConfirmed(log, s.member(0));
    lose(s.member(2)); // its node may also hold unit 0 now (a rebuild prefers the planned rack): both come back
    awaitRebuilt(s.member(2));
    awaitRebuilt(s.member(0));
    for (StripeMember lost : List.of(s.member(0), s.member(2))) {
      awaitConfirmed(log, lost);
    }
    log.stopCapturing();
    String out = log.getOutput();
    assertEquals(0, WideEcNameNodePlugin.metrics().archivedRepairFailures() - failures, out);
    assertEquals(1, out.lines().filter(l -> l.contains("leaves DataNode " + badNode + " out of rebuild orders")
        && l.contains("worker of DataNode " + badNode + " is off")).count(), out);
    assertEquals(1, WideEcNameNodePlugin.metrics().archiveNodesFoundUnusable(), out);
    for (StripeMember lost : List.of(s.member(0), s.member(2))) {
      List<String> rebuilt = out.lines().filter(l -> l.contains("archived block blk_" + lost.blockId() + " of")
          && l.contains("rebuilt under its original id")).toList();
      assertTrue(!rebuilt.isEmpty(), out);
      for (String line : rebuilt) {
        assertTrue(line.contains(" from helpers [") && !line.contains(badNode), line);
      }
    }
    checks.everyByteReadsBack();
  }
}
