package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.placement.hdfs.WideEcNameNodeMetrics;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;

/**
 * One member of a multi-file stripe deleted, another truncated, a third appended never lowers the protection of the
 * others (racked test bed: 6 racks x 3 DataNodes, azure-lrc:k=6,l=2,g=2, which claims 3 losses; the NameNode plugin
 * with its trimmer, reprotection and repair monitor). Three units lost for good leave no replication short of {@code f + 1 = 4}
 * that survives 3 more losses, so the NameNode plugin raises every remaining unit's file (and the changed files) to
 * 4; then the three DataNodes holding the other data members' trimmed replicas stop, and every file still reads
 * back byte for byte with a stock client.
 */
class ChangedMemberClusterTest extends ChangedMemberTestBed {
  private static final String DIR = "/cm";

  private static WideEcNameNodeMetrics metrics() {
    return WideEcNameNodePlugin.metrics();
  }

  @Test
  void deletingTruncatingAndAppendingMembersLeavesEveryOtherMemberReadableAfterTheCodesLosses() throws Exception {
    String[] names = {"a", "b", "c", "d", "e", "f"}; // six small files: the data units of one stripe
    ArchivedStripe s = archiveSmallFiles(DIR, names);
    assertEquals(StripeState.TRIMMED, s.state());
    Map<String, Integer> unitOf = unitsOf(s, DIR, names);
    Map<String, byte[]> expected = new LinkedHashMap<>();
    for (String n : List.of("a", "e", "f", "c", "d")) {
      expected.put(n, read(DIR + "/" + n));
    }
    long inodeB = s.member(unitOf.get("b")).inodeId();

    checks.delete(DIR + "/b");
    Path c = new Path(DIR + "/c");
    int cut = expected.get("c").length / 2;
    if (!fs.truncate(c, cut)) {
      await("the truncate of " + c + " to recover its last block", () -> {
        try {
          return fs.isFileClosed(c);
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
    }
    expected.put("c", java.util.Arrays.copyOf(expected.get("c"), cut));
    byte[] extra = {7, 7, 7, 7};
    checks.append(DIR + "/d", extra);
    byte[] d = java.util.Arrays.copyOf(expected.get("d"), expected.get("d").length + extra.length);
    System.arraycopy(extra, 0, d, d.length - extra.length, extra.length);
    expected.put("d", d);

    // Every remaining unit (data a, e, f and the parities) and the changed files c and d at 4 live replicas.
    List<Long> inodes = new ArrayList<>();
    for (int u : s.storedUnits()) {
      StripeMember m = s.member(u);
      if (m.inodeId() != inodeB) {
        inodes.add(m.inodeId());
      }
    }
    await("every remaining unit and changed file at 4 live replicas",
        () -> inodes.stream().allMatch(i -> fewestReplicas(i) >= 4));
    await("the reprotection gauges", () -> metrics().archivedStripesReprotected() >= 1
        && metrics().archivedMembersChanged() >= 3);

    List<String> protection = stripeFindings(DIR, s.stripeId());
    assertEquals(1, protection.size(), protection.toString());
    String finding = protection.get(0);
    assertTrue(finding.startsWith("reprotected: stripe " + s.stripeId() + " of " + DIR + ": members changed since"
        + " archival: "), finding);
    for (String part : List.of("unit " + unitOf.get("b") + " (/.reserved/.inodes/" + inodeB + ", deleted)",
        "unit " + unitOf.get("c") + " (" + DIR + "/c, truncated)", "unit " + unitOf.get("d") + " (" + DIR
            + "/d, appended)", "its code claims 3 losses, so each other unit needs 4 replicas and each changed file 4:"
            + " the other units hold at least 4, the changed files at least 4, so it survives 3 losses again",
        "unarchive " + DIR + " and archive it again")) {
      assertTrue(finding.contains(part), part + " in " + finding);
    }

    // As many DataNodes as the code tolerates, those holding the other data members' trimmed replicas.
    for (String n : List.of("a", "e", "f")) {
      lose(s.member(unitOf.get(n)).plannedNode());
    }
    for (Map.Entry<String, byte[]> e : expected.entrySet()) {
      assertArrayEquals(e.getValue(), read(DIR + "/" + e.getKey()), DIR + "/" + e.getKey());
    }
  }
}
