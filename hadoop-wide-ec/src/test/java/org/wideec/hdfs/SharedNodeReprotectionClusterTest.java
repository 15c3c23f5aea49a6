package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.BlockMover;
import org.wideec.code.LinearCode;
import org.wideec.code.UnitSpan;

/**
 * Replicas of two units of a stripe on one another's DataNodes never lower the stripe's protection. Two members of an
 * azure-lrc:k=6,l=2,g=2 stripe (3 losses claimed) are deleted, so the NameNode plugin gives every remaining unit 2
 * replicas, and 3 losses may then take one of them. HDFS places each added replica by its own policy, per block: here
 * the test puts the added replica of a data unit A on the planned node of a parity unit B and B's on A's (moved as the
 * Balancer moves a replica), a pair whose loss with the two deleted members leaves A undecodable. The monitor raises
 * one of the two to f + 1 = 4 replicas, fsck names it among the units kept at 4 for shared DataNodes and reports the
 * stripe re-protected, and after A's node, B's node and a third one stop, every remaining member reads back byte for
 * byte with a stock client.
 */
class SharedNodeReprotectionClusterTest extends ChangedMemberTestBed {
  private static final String DIR = "/sn";
  private static final Pattern SHARED = Pattern.compile("\\(units \\[([0-9, ]+)\\] 4, as their replicas share DataNodes"
      + " with other units'\\)");

  @Test
  void unitsWhoseAddedReplicasLandOnOneAnothersNodesGoToFPlusOneAndEveryOtherMemberSurvivesTheCodesLosses()
      throws Exception {
    String[] names = {"a", "b", "c", "d", "e", "f"};
    ArchivedStripe s = archiveSmallFiles(DIR, names);
    assertEquals(StripeState.TRIMMED, s.state());
    String[] fileOf = new String[s.code().k()];
    unitsOf(s, DIR, names).forEach((n, u) -> fileOf[u] = DIR + "/" + n);
    int[] pair = undecodablePair(s);
    int gone1 = pair[0];
    int gone2 = pair[1];
    int a = pair[2];
    int b = pair[3];
    Map<String, byte[]> expected = new LinkedHashMap<>();
    for (int u = 0; u < fileOf.length; u++) {
      if (u != gone1 && u != gone2) {
        expected.put(fileOf[u], read(fileOf[u]));
      }
    }
    checks.delete(fileOf[gone1]);
    checks.delete(fileOf[gone2]);

    // Two units gone for good: every remaining unit at floor(3/r) + 2 <= 3, r = 2.
    List<Long> remaining = new ArrayList<>();
    for (int u : s.storedUnits()) {
      if (u != gone1 && u != gone2) {
        remaining.add(s.member(u).inodeId());
      }
    }
    await("every remaining unit at 2 live replicas", () -> remaining.stream().allMatch(i -> fewestReplicas(i) >= 2));

    // A's added replica on B's node, B's on A's: losing those two nodes takes both.
    String nodeA = s.member(a).plannedNode();
    String nodeB = s.member(b).plannedNode();
    // The NameNode learns a moved replica from the target's next block report, and when the move briefly leaves more
    // replicas than the file's replication it may delete any of them, the planned one included (a copy that raced the
    // reprotector raising the file to 4 leaves an excess HDFS picks freely, with no delete hint): every look restores
    // whatever of the four placements is missing, from a holder outside the two nodes. A move whose source the
    // NameNode keeps waits out the mover's own limit before it returns, hence the longer bound.
    Set<String> both = Set.of(nodeA, nodeB);
    try (BlockMover mover = new BlockMover(fs)) {
      org.wideec.minicluster.Eventually.await("units " + a + " and " + b + " each held on both " + nodeA + " and "
          + nodeB, java.time.Duration.ofMinutes(6), () -> {
        for (StripeMember m : List.of(s.member(a), s.member(b))) {
          for (String node : both) {
            try {
              replicaOnto(mover, m, node, both);
            } catch (java.io.IOException e) {
              // The target may already hold the replica its block report has not named yet: look again.
            }
          }
        }
        return List.of(holders(s.member(a)), holders(s.member(b))); // units a's and b's holders, named on failure
      }, seen -> seen.get(0).containsAll(both) && seen.get(1).containsAll(both));
    }

    // The monitor raises A or B to 4; fsck names it and, once its replicas are placed, reports the stripe re-protected.
    String[] finding = new String[1];
    await("fsck reports the stripe re-protected with unit " + a + " or " + b + " at 4", () -> {
      try {
        List<String> f = stripeFindings(DIR, s.stripeId());
        finding[0] = String.join(" | ", f);
        Set<Integer> shared = sharedUnits(finding[0]);
        return f.size() == 1 && f.get(0).startsWith("reprotected: ") && (shared.contains(a) || shared.contains(b));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    for (int u : sharedUnits(finding[0])) {
      long inode = s.member(u).inodeId();
      assertTrue(fewestReplicas(inode) >= 4, "unit " + u + ": " + finding[0]);
      assertTrue(fs.getFileStatus(ArchiveLayout.inodePath(inode)).getReplication() >= 4, "unit " + u);
    }

    // The code's three losses: A's node, B's node, and the planned node of another remaining data member.
    int third = Arrays.stream(new int[] {0, 1, 2, 3, 4, 5}).filter(u -> u != gone1 && u != gone2 && u != a)
        .findFirst().getAsInt();
    for (String node : List.of(nodeA, nodeB, s.member(third).plannedNode())) {
      lose(node);
    }
    // A data unit taken is rebuilt by the repair monitor (at most one can be: the code decodes the rest).
    await("every remaining data member with a live replica", () -> expected.keySet().stream().allMatch(p -> {
      try {
        return fewestReplicas(fs.getClient().getFileInfo(p).getFileId()) >= 1;
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }));
    for (Map.Entry<String, byte[]> e : expected.entrySet()) {
      assertArrayEquals(e.getValue(), read(e.getKey()), e.getKey());
    }
  }

  /**
   * Two data units to delete, a data unit A and a parity unit B planned in another rack, such that losing all four
   * leaves A undecodable (in azure-lrc:k=6,l=2,g=2, three data units of a local group with its local or a global
   * parity): the stakes of A and B sharing nodes.
   */
  private static int[] undecodablePair(ArchivedStripe s) {
    LinearCode code = s.code();
    for (int g1 = 0; g1 < code.k(); g1++) {
      for (int g2 = g1 + 1; g2 < code.k(); g2++) {
        for (int a = 0; a < code.k(); a++) {
          for (int b = code.k(); b < code.n(); b++) {
            if (a == g1 || a == g2 || s.member(b).padding()
                || s.member(a).plannedRack().equals(s.member(b).plannedRack())) {
              continue;
            }
            UnitSpan span = new UnitSpan(code);
            for (int u = 0; u < code.n(); u++) {
              if (u != g1 && u != g2 && u != a && u != b) {
                span.add(u);
              }
            }
            if (!span.canRebuild(a)) {
              return new int[] {g1, g2, a, b};
            }
          }
        }
      }
    }
    throw new AssertionError("no four units of " + s.codeSpec() + " whose loss leaves a data unit undecodable");
  }

  /** Moves a replica of the member that is not on its planned node onto {@code node} (unless one is there). */
  /**
   * Moves a replica of {@code m} onto {@code node} unless it holds one, from a holder outside {@code keep}; none now
   * (the NameNode has not yet named a copy) leaves it to the next look.
   */
  private void replicaOnto(BlockMover mover, StripeMember m, String node, Set<String> keep) throws Exception {
    if (holders(m).contains(node)) {
      return;
    }
    DatanodeInfo target = Arrays.stream(fs.getDataNodeStats()).filter(d -> d.getXferAddr().equals(node)).findFirst()
        .orElseThrow(() -> new AssertionError("no DataNode " + node));
    String file = ArchiveLayout.inodePath(m.inodeId()).toString();
    java.util.Optional<BlockMover.Move> move = BlockMover.candidates(file, located(m), target, null).stream()
        .filter(c -> !keep.contains(c.source().getXferAddr())).findFirst();
    if (move.isPresent()) {
      mover.move(move.get());
    }
  }

  private Set<String> holders(StripeMember m) {
    Set<String> out = new TreeSet<>();
    for (DatanodeInfo d : located(m).getLocations()) {
      out.add(d.getXferAddr());
    }
    return out;
  }

  /** The units fsck's finding names as kept at 4 for shared DataNodes. */
  private static Set<Integer> sharedUnits(String finding) {
    Set<Integer> out = new TreeSet<>();
    Matcher m = SHARED.matcher(finding);
    if (m.find()) {
      for (String u : m.group(1).split(", ")) {
        out.add(Integer.parseInt(u));
      }
    }
    return out;
  }
}
