package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.test.GenericTestUtils.LogCapturer;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeMember;
import org.wideec.minicluster.MiniClusters;
import org.wideec.placement.hdfs.WideEcNameNodeMetrics;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;

/**
 * A changed member never lowers the others' protection, whatever else stands in the way: here the NameNode has no
 * wide-ec.transport.secret (no DataNode worker runs either), so the archive repair monitor is off, and the other
 * members are raised all the same; and a space quota on the members' directory that refuses the raise is said once
 * as an error, counted, and named by fsck, until it is raised. Racked test bed: 6 racks x 3 DataNodes,
 * azure-lrc:k=6,l=2,g=2 (3 losses claimed): with one member deleted, each remaining unit needs 2 replicas.
 */
class ReprotectionIndependenceClusterTest extends ChangedMemberTestBed {
  private static final String[] NAMES = {"a", "b", "c", "d", "e", "f"};

  @Override
  Configuration baseConf() {
    return passingEvery300Ms(MiniClusters.withWideEcArchiveTrim(new Configuration(), 300));
  }

  private static WideEcNameNodeMetrics metrics() {
    return WideEcNameNodePlugin.metrics();
  }

  @Test
  void aDeletedMemberRaisesTheOthersWithoutTheClusterSecretOrTheRepairMonitor() throws Exception {
    assertEquals(0, metrics().archiveRepairRunning(), "the repair monitor must be off here (no cluster secret)");
    String dir = "/nosecret";
    ArchivedStripe s = archiveSmallFiles(dir, NAMES);
    long reprotectedBefore = metrics().archivedStripesReprotected();
    List<Long> others = deleteMemberB(s, dir);

    await("every remaining unit's file at 2 live replicas", () -> others.stream().allMatch(i -> fewestReplicas(i) >= 2));
    await("the stripe counted re-protected", () -> metrics().archivedStripesBelowTolerance() == 0
        && metrics().archivedStripesReprotected() == reprotectedBefore + 1);
    for (long inode : others) {
      assertTrue(fewestReplicas(inode) >= 2, "inode " + inode);
    }
    List<String> findings = stripeFindings(dir, s.stripeId());
    assertEquals(1, findings.size(), findings.toString());
    assertTrue(findings.get(0).startsWith("reprotected: stripe " + s.stripeId() + " of " + dir), findings.get(0));
  }

  @Test
  void aRaiseTheSpaceQuotaRefusesIsOneErrorAGaugeAndAnFsckFindingUntilTheQuotaIsRaised() throws Exception {
    String dir = "/quota";
    ArchivedStripe s = archiveSmallFiles(dir, NAMES);
    long reprotectedBefore = metrics().archivedStripesReprotected();
    // Room for a thousand bytes more than the archived files hold at one replica: no raise fits.
    long used = fs.getQuotaUsage(new Path(dir)).getSpaceConsumed();
    fs.setQuota(new Path(dir), HdfsConstants.QUOTA_DONT_SET, used + 1000);
    LogCapturer log = LogCapturer.captureLogs(org.apache.log4j.Logger.getLogger(
        "org.wideec.placement.hdfs.ArchiveReprotector"));
    try {
      List<Long> others = deleteMemberB(s, dir);
      await("the raise refused for the quota", () -> metrics().archivedStripesReprotectionBlocked() == 1);
      long passes = metrics().archiveReprotectionPasses();
      await("three more reprotection passes", () -> metrics().archiveReprotectionPasses() >= passes + 3);
      assertEquals(1, metrics().archivedStripesReprotectionBlocked());
      assertEquals(1, metrics().archivedStripesBelowTolerance());
      String out = log.getOutput();
      String error = "but HDFS refuses the raise for the quota of " + dir + ":";
      assertEquals(1, out.split(java.util.regex.Pattern.quote(error), -1).length - 1, out);
      assertTrue(out.contains("needs replication 2 (now 1)"), out);
      assertTrue(out.contains("archived file " + dir + "/"), out);
      assertTrue(out.contains("ERROR"), out);

      List<String> findings = stripeFindings(dir, s.stripeId());
      assertEquals(1, findings.size(), findings.toString());
      String finding = findings.get(0);
      assertTrue(finding.startsWith("below-tolerance: stripe " + s.stripeId() + " of " + dir), finding);
      for (String part : List.of("HDFS refuses to raise them for a quota: the space quota of " + dir + " ("
          + (used + 1000) + " bytes, ", "raise that quota or unarchive " + dir + " and archive it again")) {
        assertTrue(finding.contains(part), part + " in " + finding);
      }

      fs.setQuota(new Path(dir), HdfsConstants.QUOTA_DONT_SET, HdfsConstants.QUOTA_RESET);
      await("every remaining unit's file at 2 live replicas once the quota is lifted",
          () -> others.stream().allMatch(i -> fewestReplicas(i) >= 2));
      await("the stripe counted re-protected", () -> metrics().archivedStripesReprotectionBlocked() == 0
          && metrics().archivedStripesBelowTolerance() == 0
          && metrics().archivedStripesReprotected() == reprotectedBefore + 1);
      List<String> after = stripeFindings(dir, s.stripeId());
      assertEquals(1, after.size(), after.toString());
      assertTrue(after.get(0).startsWith("reprotected: "), after.get(0));
    } finally {
      log.stopCapturing();
    }
  }

  /** Deletes member b of the stripe; the inodes of every other stored unit (data and parity). */
  private List<Long> deleteMemberB(ArchivedStripe s, String dir) throws Exception {
    long inodeB = s.member(unitsOf(s, dir, NAMES).get("b")).inodeId();
    checks.delete(dir + "/b");
    List<Long> others = new ArrayList<>();
    for (int u : s.storedUnits()) {
      StripeMember m = s.member(u);
      if (m.inodeId() != inodeB) {
        others.add(m.inodeId());
      }
    }
    return others;
  }
}
