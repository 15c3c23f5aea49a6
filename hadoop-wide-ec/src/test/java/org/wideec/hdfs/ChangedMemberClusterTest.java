package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.NameNodePoll;
import org.wideec.archive.hdfs.TrimProtocol;
import org.wideec.minicluster.MiniClusters;
import org.wideec.placement.hdfs.WideEcNameNodeMetrics;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;

/**
 * One member of a multi-file stripe deleted, another truncated, a third appended never lowers the protection of the
 * others (racked test bed: 6 racks x 3 DataNodes, azure-lrc:k=6,l=2,g=2, which claims 3 losses; the NameNode plugin
 * with its trimmer and repair monitor). Three units lost for good leave no replication short of {@code f + 1 = 4}
 * that survives 3 more losses, so the repair monitor raises every remaining unit's file (and the changed files) to
 * 4; then the three DataNodes holding the other data members' trimmed replicas stop, and every file still reads
 * back byte for byte with a stock client.
 */
class ChangedMemberClusterTest extends ArchiveTestBed {
  private static final String DIR = "/cm";

  @Override
  Configuration baseConf() {
    Configuration base = MiniClusters.withWideEcRepair(MiniClusters.withWideEcArchiveTrim(new Configuration(), 300));
    base.setLong(TrimProtocol.WAIT_KEY, 30_000);
    base.setLong("wide-ec.archive.repair.interval.ms", 300);
    base.set(org.apache.hadoop.hdfs.DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, "250ms");
    return base;
  }

  @BeforeAll
  void awaitLease() throws Exception {
    awaitTrimmerLease();
  }

  private static WideEcNameNodeMetrics metrics() {
    return WideEcNameNodePlugin.metrics();
  }

  /** Waits (the NameNode's poll: short pauses doubling to a second) until the condition holds, at most a minute. */
  private static void await(String what, BooleanSupplier done) throws Exception {
    long deadline = System.nanoTime() + 60_000_000_000L;
    NameNodePoll poll = new NameNodePoll(100);
    while (!done.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "still waiting: " + what);
      poll.pause("interrupted while waiting: " + what);
    }
  }

  /** Live replicas of every block of the file (reached by inode, so a deleted one has none to ask for). */
  private int fewestReplicas(long inode) {
    try {
      String p = ArchiveLayout.inodePath(inode).toString();
      long len = fs.getClient().getFileInfo(p).getLen();
      int fewest = Integer.MAX_VALUE;
      for (LocatedBlock lb : fs.getClient().getLocatedBlocks(p, 0, len).getLocatedBlocks()) {
        fewest = Math.min(fewest, lb.getLocations().length);
      }
      return fewest;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private byte[] read(String path) throws Exception {
    byte[] b = new byte[(int) fs.getFileStatus(new Path(path)).getLen()];
    try (FSDataInputStream in = fs.open(new Path(path))) {
      in.readFully(0, b);
    }
    return b;
  }

  @Test
  void deletingTruncatingAndAppendingMembersLeavesEveryOtherMemberReadableAfterTheCodesLosses() throws Exception {
    String[] names = {"a", "b", "c", "d", "e", "f"};
    for (int i = 0; i < names.length; i++) {
      checks.write(DIR + "/" + names[i], BLOCK / 4 + 1000 * i); // six small files: the data units of one stripe
    }
    ToolRun archived = tool("archive", DIR, "--code", CODE);
    assertEquals(0, archived.exit(), archived.out() + archived.err());
    List<ArchivedStripe> stripes = manifestOf(DIR).stripes();
    assertEquals(1, stripes.size());
    ArchivedStripe s = stripes.get(0);
    assertEquals(StripeState.TRIMMED, s.state());
    Map<String, Integer> unitOf = new LinkedHashMap<>();
    for (String n : names) {
      long inode = store.inodeOf(new Path(DIR + "/" + n));
      for (int u = 0; u < s.code().k(); u++) {
        if (s.member(u).inodeId() == inode) {
          unitOf.put(n, u);
        }
      }
    }
    assertEquals(6, unitOf.size(), unitOf.toString());
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
    await("the repair monitor's gauges", () -> metrics().archivedStripesReprotected() >= 1
        && metrics().archivedMembersChanged() >= 3);

    JsonNode a = tool("fsck", DIR, "--json").json().get("archived");
    List<String> protection = new ArrayList<>();
    a.get("stripes").forEach(st -> st.get("findings").forEach(f -> {
      if (f.get("stripe").asLong() == s.stripeId() && f.get("unit").asInt() == -1) {
        protection.add(f.get("problem").asText() + ": " + f.get("message").asText());
      }
    }));
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
      String node = s.member(unitOf.get(n)).plannedNode();
      DataNode dn = cluster.getDataNodes().stream().filter(x -> x.getDatanodeId().getXferAddr().equals(node))
          .findFirst().orElseThrow(() -> new AssertionError("no DataNode at " + node));
      cluster.stopDataNode(node);
      cluster.setDataNodeDead(dn.getDatanodeId());
    }
    for (Map.Entry<String, byte[]> e : expected.entrySet()) {
      assertArrayEquals(e.getValue(), read(DIR + "/" + e.getKey()), DIR + "/" + e.getKey());
    }
  }
}
