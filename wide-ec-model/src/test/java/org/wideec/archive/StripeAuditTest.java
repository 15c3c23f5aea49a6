package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.wideec.archive.StripeAudit.Finding;
import org.wideec.archive.StripeAudit.Observed;
import org.wideec.archive.StripeAudit.Presence;
import org.wideec.archive.StripeAudit.Problem;
import org.wideec.topology.Site;
import org.wideec.archive.StripeAudit.Verdict;
import org.wideec.code.Codes;
import org.wideec.code.ErasurePatterns;
import org.wideec.code.LinearCode;
import org.wideec.code.RemainingTolerance;
import org.wideec.code.UnitRole;

/** fsck's judgement of one archived stripe against what HDFS reports, and of the layout's orphans. */
class StripeAuditTest {
  private static final String SPEC = "azure-lrc:k=6,l=2,g=2";
  private static final LinearCode CODE = Codes.pinnedFromSpec(SPEC);
  private static final String RESUME = "rerun 'wide-ec archive /a --code " + SPEC + "' to resume";

  /** A stripe of n units in the given state; unit u is block 1000 + u on node dn-u in rack /r(u % 5). */
  private static ArchivedStripe stripe(StripeState state, int realData) {
    List<StripeMember> members = new ArrayList<>();
    for (int u = 0; u < CODE.k(); u++) {
      members.add(u < realData ? StripeMember.data(500, 1000 + u, 7, 4096, "dn-" + u, "/r" + u % 5).withCrc(u)
          : StripeMember.padding(UnitRole.DATA));
    }
    for (int u = CODE.k(); u < CODE.n(); u++) {
      if (ArchivedStripe.zeroParity(CODE, u, d -> members.get(d).padding())) {
        members.add(StripeMember.padding(CODE.role(u)));
        continue;
      }
      StripeMember p = StripeMember.plannedParity(CODE.role(u), 4096, "dn-" + u, "/r" + u % 5);
      members.add(state.parityWritten() || state == StripeState.STALE ? p.written(600 + u, 1000 + u, 9, 1) : p);
    }
    String parity = state == StripeState.PLANNED ? "" : "/.wideec/parity/500/3";
    return new ArchivedStripe(3, SPEC, 1, state, parity, state.parityWritten() ? 599 : 0, members);
  }

  /** Every stored member where the plan put it, unchanged. */
  private static Map<Integer, Observed> healthy(ArchivedStripe s) {
    Map<Integer, Observed> out = new HashMap<>();
    for (int u = 0; u < CODE.n(); u++) {
      StripeMember m = s.member(u);
      if (!m.padding() && m.blockId() != 0) {
        out.put(u, Observed.present("/a/f" + u, m.generationStamp(), m.length(),
            List.of(new Site(m.plannedNode(), m.plannedRack()))));
      }
    }
    return out;
  }

  private static Verdict audit(ArchivedStripe s, Map<Integer, Observed> seen) {
    IntFunction<Observed> observe = u -> {
      Observed o = seen.get(u);
      if (o == null) {
        throw new AssertionError("unit " + u + " has no block to observe");
      }
      return o;
    };
    return StripeAudit.audit("/.wideec/manifests/500.wecm", "/a", s, observe, RESUME);
  }

  private static List<Problem> problems(Verdict v) {
    return v.findings().stream().map(Finding::problem).toList();
  }

  @Test
  void aTrimmedStripeOnPlanIsHealthyAndToleratesWhatTheCodeDoes() {
    Verdict v = audit(stripe(StripeState.TRIMMED, 6), healthy(stripe(StripeState.TRIMMED, 6)));
    assertTrue(v.healthy(), v.findings().toString());
    assertArrayEquals(new int[0], v.lost());
    assertEquals(Boolean.TRUE, v.decodable());
    assertEquals(3, v.remainingTolerance()); // Azure-LRC with g = 2 has distance 4
    assertEquals(3, v.toleranceWhole());
    assertTrue(v.toleranceExact());
  }

  @Test
  void aMemberWithoutLiveReplicaIsMissingNamedByStripeUnitBlockAndFile() {
    ArchivedStripe s = stripe(StripeState.TRIMMED, 6);
    Map<Integer, Observed> seen = healthy(s);
    seen.put(2, Observed.present("/a/f2", 7, 4096, List.of()));
    seen.put(7, new Observed("/.wideec/parity/500/3/u7", Presence.PRESENT, 9, 4096,
        List.of(new Site("dn-7", "/r2")), true));
    Verdict v = audit(s, seen);
    assertEquals(List.of(Problem.MISSING, Problem.MISSING), problems(v));
    Finding f = v.findings().get(0);
    assertEquals(2, f.unit());
    assertEquals(1002, f.blockId());
    assertEquals("/a/f2", f.file());
    assertEquals(3, f.stripeId());
    assertTrue(f.message().contains("stripe 3 of /a unit 2 (data block blk_1002 of /a/f2): no live replica"),
        f.message());
    assertTrue(v.findings().get(1).message().contains("every replica is corrupt"), v.findings().get(1).message());
    assertArrayEquals(new int[] {2, 7}, v.lost());
    assertEquals(Boolean.TRUE, v.decodable());
    assertEquals(RemainingTolerance.of(CODE, 2, 7).value(), v.remainingTolerance());
  }

  /** Every pattern of up to n - k lost units (missing or stale alike) is judged exactly as the code decodes it. */
  @Test
  void everyLossPatternIsJudgedByTheCodeItself() {
    ArchivedStripe s = stripe(StripeState.TRIMMED, 6);
    ErasurePatterns patterns = ErasurePatterns.of(CODE);
    int checked = 0;
    int notDecodable = 0;
    for (int mask = 0; mask < 1 << CODE.n(); mask++) {
      if (Integer.bitCount(mask) > CODE.n() - CODE.k()) {
        continue;
      }
      Map<Integer, Observed> seen = healthy(s);
      int[] lost = BitSet.valueOf(new long[] {mask}).stream().toArray();
      for (int u : lost) {
        seen.put(u, u % 2 == 0 ? Observed.present("/x", 7, 4096, List.of()) : Observed.gone("/x", Presence.FILE_GONE));
      }
      Verdict v = audit(s, seen);
      assertArrayEquals(lost, v.lost());
      assertEquals(patterns.isDecodable(lost), v.decodable(), java.util.Arrays.toString(lost));
      assertEquals(RemainingTolerance.of(CODE, lost).value(), v.remainingTolerance(), java.util.Arrays.toString(lost));
      // One finding per lost unit, and one for the stripe when some member changed for good (stale, not missing).
      boolean changed = v.findings().stream().anyMatch(f -> f.problem() == Problem.STALE);
      assertEquals(lost.length + (changed ? 1 : 0), v.findings().size());
      checked++;
      notDecodable += v.decodable() ? 0 : 1;
    }
    assertEquals(386, checked); // C(10,0..4)
    assertTrue(notDecodable > 0 && notDecodable < 210, "some four-loss patterns of an LRC do not decode");
  }

  @Test
  void aChangedMemberIsStaleAndCountsAsLost() {
    ArchivedStripe s = stripe(StripeState.TRIMMED, 6);
    Map<Integer, Observed> seen = healthy(s);
    seen.put(0, Observed.gone("/a/gone", Presence.FILE_GONE));
    seen.put(1, Observed.gone("/a/f1", Presence.BLOCK_GONE));
    seen.put(4, Observed.present("/a/f4", 8, 4096, List.of(new Site("dn-4", "/r4"))));
    seen.put(5, Observed.present("/a/f5", 7, 5000, List.of(new Site("dn-5", "/r0"))));
    Verdict v = audit(s, seen);
    assertEquals(List.of(Problem.STALE, Problem.STALE, Problem.STALE, Problem.STALE, Problem.BELOW_TOLERANCE),
        problems(v));
    assertTrue(v.findings().get(0).message().endsWith("its file is gone (deleted or overwritten)"));
    assertTrue(v.findings().get(1).message().endsWith("its file no longer holds the block (truncated or rewritten)"));
    assertTrue(v.findings().get(2).message().contains("generation stamp 8 and length 4096 now, the manifest records 7"
        + " and 4096"), v.findings().get(2).message());
    assertTrue(v.findings().get(3).message().contains("length 5000 now"));
    assertArrayEquals(new int[] {0, 1, 4, 5}, v.lost());
    assertEquals(ErasurePatterns.of(CODE).isDecodable(new int[] {0, 1, 4, 5}), v.decodable());
  }

  @Test
  void oneDeletedMemberLowersTheToleranceByWhatTheCodeSays() {
    ArchivedStripe s = stripe(StripeState.TRIMMED, 6);
    Map<Integer, Observed> seen = healthy(s);
    seen.put(3, Observed.gone("/a/f3", Presence.FILE_GONE));
    Verdict v = audit(s, seen);
    assertEquals(2, v.remainingTolerance());
    assertEquals(3, v.toleranceWhole());
    assertTrue(v.describe().endsWith("decodable with units [3] lost; tolerates 2 more losses (3 when whole)"),
        v.describe());
  }

  @Test
  void offPlanIsATrimmedDataBlockOrAWrittenParityAwayFromItsPlannedRackOrSharingANode() {
    for (StripeState state : List.of(StripeState.COMMITTED, StripeState.TRIMMED)) {
      ArchivedStripe s = stripe(state, 6);
      Map<Integer, Observed> seen = healthy(s);
      seen.put(1, Observed.present("/a/f1", 7, 4096, List.of(new Site("dn-x", "/r1")))); // right rack, alone
      seen.put(2, Observed.present("/a/f2", 7, 4096, List.of(new Site("dn-y", "/r9")))); // other rack
      seen.put(3, Observed.present("/a/f3", 7, 4096, List.of(new Site("dn-z", "/r9"), new Site("dn-3", "/r3"))));
      seen.put(8, Observed.present("/p/u8", 9, 4096, List.of(new Site("dn-q", "/r9"))));
      Verdict v = audit(s, seen);
      List<Integer> units = v.findings().stream().filter(f -> f.problem() == Problem.OFF_PLAN).map(Finding::unit)
          .toList();
      // Before trimming, data blocks keep every replica wherever HDFS put them: only the parity is placed. Unit 1 sits
      // on another node of its planned rack holding nothing else of the stripe (rebuilt there, its planned node gone):
      // a rack loss and a node loss cost the stripe what the plan says, so it is on plan.
      assertEquals(state == StripeState.TRIMMED ? List.of(2, 8) : List.of(8), units, state.toString());
      assertArrayEquals(new int[0], v.lost());
      if (state == StripeState.TRIMMED) {
        assertTrue(v.findings().get(0).message().contains("(another rack"), v.findings().get(0).message());
      }
    }
  }

  @Test
  void aUnitInItsPlannedRackOnANodeHoldingAnotherUnitIsOffPlan() {
    ArchivedStripe s = stripe(StripeState.TRIMMED, 6);
    Map<Integer, Observed> seen = healthy(s);
    // Units 1 and 6 are both planned in /r1; unit 1 now sits on unit 6's node, so losing that node costs two units.
    seen.put(1, Observed.present("/a/f1", 7, 4096, List.of(new Site("dn-6", "/r1"))));
    Verdict v = audit(s, seen);
    List<Finding> off = v.findings().stream().filter(f -> f.problem() == Problem.OFF_PLAN).toList();
    assertEquals(1, off.size(), v.findings().toString());
    assertEquals(1, off.get(0).unit());
    assertTrue(off.get(0).message().endsWith("on dn-6 (/r1), planned on dn-1 in /r1 (right rack, on a node holding"
        + " another unit of the stripe: a node loss costs it two)"), off.get(0).message());
  }

  @Test
  void aStripeStoppedMidArchiveIsStuckWithHowToResume() {
    for (StripeState state : List.of(StripeState.PLANNED, StripeState.ENCODING, StripeState.PARITY_WRITTEN,
        StripeState.VERIFIED)) {
      ArchivedStripe s = stripe(state, 6);
      Verdict v = audit(s, healthy(s));
      assertEquals(List.of(Problem.STUCK), problems(v), state.toString());
      assertEquals(-1, v.findings().get(0).unit());
      assertTrue(v.findings().get(0).message().equals("stripe 3 of /a is " + state + ": stopped mid-archive before"
          + " COMMITTED (every data block keeps its replication); " + RESUME), v.findings().get(0).message());
      if (state.parityWritten()) {
        assertEquals(Boolean.TRUE, v.decodable());
      } else {
        assertNull(v.decodable(), "no parity yet: nothing to decode with");
        assertNull(v.remainingTolerance());
      }
    }
    ArchivedStripe committed = stripe(StripeState.COMMITTED, 6);
    assertTrue(audit(committed, healthy(committed)).healthy(), "COMMITTED (archive --no-trim) is a finished state");
  }

  @Test
  void aStripeWithMembersChangedForGoodNamesThemAndTheReplicationItsOtherUnitsHold() {
    ArchivedStripe s = stripe(StripeState.TRIMMED, 6);
    Map<Integer, Observed> seen = healthy(s);
    seen.put(0, Observed.gone("/.reserved/.inodes/500", Presence.FILE_GONE));
    seen.put(1, Observed.present("/a/f1", 8, 100, List.of(new Site("dn-1", "/r1"))));
    seen.put(2, Observed.present("/a/f2", 8, 5000, List.of(new Site("dn-2", "/r2"))));
    Verdict v = audit(s, seen);
    assertEquals(List.of(Problem.STALE, Problem.STALE, Problem.STALE, Problem.BELOW_TOLERANCE), problems(v));
    Finding f = v.findings().get(3);
    assertEquals(3, f.stripeId());
    assertEquals("stripe 3 of /a: members changed since archival: unit 0 (/.reserved/.inodes/500, deleted), unit 1"
        + " (/a/f1, truncated), unit 2 (/a/f2, appended); its code claims 3 losses, so each other unit needs 4"
        + " replicas and each changed file 4: the other units hold at least 1, the changed files at least 1, so it"
        + " survives fewer losses than its code claims (losing dn-3, dn-4, dn-5 would take units [3, 4, 5], more than"
        + " the 0 it can spare) until the NameNode's wide-ec plugin raises them"
        + "; then unarchive /a and archive it again to re-encode it without those"
        + " members and free the space", f.message());

    // The repair monitor raised them: every other unit at 4 replicas, the changed files too.
    for (int u : s.storedUnits()) {
      if (u == 0) {
        continue;
      }
      Observed o = seen.get(u);
      List<Site> four = List.of(new Site("dn-" + u, "/r" + u % 5), new Site("y" + u, "/r1"),
          new Site("z" + u, "/r2"), new Site("w" + u, "/r3"));
      seen.put(u, Observed.present(o.file(), o.generationStamp(), o.length(), four));
    }
    Verdict raised = audit(s, seen);
    Finding r = raised.findings().stream().filter(x -> x.problem() == Problem.REPROTECTED).findFirst().orElseThrow();
    assertTrue(r.message().endsWith(": the other units hold at least 4, the changed files at least 4, so it survives"
        + " 3 losses again at that cost; unarchive /a and archive it again to re-encode it without those members and"
        + " free the space"), r.message());
    assertEquals(List.of(Problem.STALE, Problem.STALE, Problem.STALE, Problem.REPROTECTED), problems(raised));
  }

  @Test
  void unitsWhoseReplicasShareDataNodesAreNamedAndTheStripeIsBelowToleranceUntilOneHoldsFPlusOne() {
    ArchivedStripe s = stripe(StripeState.TRIMMED, 6);
    Map<Integer, Observed> seen = healthy(s);
    seen.put(0, Observed.gone("/.reserved/.inodes/500", Presence.FILE_GONE));
    seen.put(1, Observed.gone("/.reserved/.inodes/501", Presence.FILE_GONE));
    for (int u : s.storedUnits()) { // two units gone: every other one at 2 replicas, on a node of its own
      if (u > 1) {
        seen.put(u, on(s, u, List.of(new Site("dn-" + u, "/r1"),
            new Site("q" + u, "/r2"))));
      }
    }
    assertEquals(Problem.REPROTECTED, problems(audit(s, seen)).get(2));
    // Unit 2's added replica on unit 8's node and unit 8's on unit 2's: losing the two nodes takes both.
    seen.put(2, on(s, 2, List.of(new Site("dn-2", "/r2"), new Site("dn-8", "/r3"))));
    seen.put(8, on(s, 8, List.of(new Site("dn-8", "/r3"), new Site("dn-2", "/r2"))));
    Finding below = audit(s, seen).findings().get(2);
    assertEquals(Problem.BELOW_TOLERANCE, below.problem());
    assertTrue(below.message().contains("; its code claims 3 losses, so each other unit needs 2 replicas (units [2] 4,"
        + " as their replicas share DataNodes with other units') and each changed file 4: the other units hold at least"
        + " 2, so it survives fewer losses than its code claims (losing dn-2, dn-8 would take units [2, 8], more than"
        + " the 1 it can spare) until"), below.message());
    seen.put(2, on(s, 2, List.of(new Site("dn-2", "/r2"), new Site("dn-8", "/r3"),
        new Site("x", "/r4"), new Site("y", "/r0"))));
    Finding raised = audit(s, seen).findings().get(2);
    assertEquals(Problem.REPROTECTED, raised.problem());
    assertTrue(raised.message().contains("needs 2 replicas (units [2] 4, as their replicas share DataNodes with other"
        + " units') and each changed file 4: the other units hold at least 2, so it survives 3 losses again"),
        raised.message());
  }

  /** The member as archived, on these replicas. */
  private static Observed on(ArchivedStripe s, int unit, List<Site> replicas) {
    StripeMember m = s.member(unit);
    return Observed.present("/a/f" + unit, m.generationStamp(), m.length(), replicas);
  }

  @Test
  void aStripeRecordedStaleIsReportedAndItsDeletedParityIsNotNoise() {
    ArchivedStripe s = stripe(StripeState.STALE, 6);
    Map<Integer, Observed> seen = healthy(s);
    for (int u = CODE.k(); u < CODE.n(); u++) {
      seen.put(u, Observed.gone("/p/u" + u, Presence.FILE_GONE));
    }
    seen.put(0, Observed.present("/a/f0", 8, 4096, List.of(new Site("dn-0", "/r0"))));
    Verdict v = audit(s, seen);
    assertEquals(List.of(Problem.STALE, Problem.STALE), problems(v));
    assertEquals(0, v.findings().get(0).unit());
    assertEquals(-1, v.findings().get(1).unit());
    assertTrue(v.findings().get(1).message().startsWith("stripe 3 of /a is recorded STALE"));
  }

  @Test
  void virtualPaddingIsNeverLostNorCountedAsALossToCome() {
    ArchivedStripe s = stripe(StripeState.TRIMMED, 1); // d0, G0, G1, L0 stored; five data units and L1 virtual
    assertArrayEquals(new int[] {0, 6, 7, 8}, s.storedUnits());
    Verdict whole = audit(s, healthy(s));
    assertTrue(whole.healthy());
    assertEquals(3, whole.toleranceWhole(), "any one of the four stored units rebuilds d0");
    Map<Integer, Observed> seen = healthy(s);
    for (int u : new int[] {0, 6, 7}) {
      seen.put(u, Observed.present("/x", u == 0 ? 7 : 9, 4096, List.of()));
    }
    Verdict v = audit(s, seen);
    assertEquals(Boolean.TRUE, v.decodable());
    assertEquals(0, v.remainingTolerance(), "only L0 is left to lose");
  }

  @Test
  void blocksAppendedAfterArchivalAreUnprotected() {
    List<Finding> f = StripeAudit.unprotected("/a/f", Set.of(11L, 12L), new long[] {11, 12, 13}, (short) 1);
    assertEquals(1, f.size());
    assertEquals(Problem.UNPROTECTED, f.get(0).problem());
    assertEquals(13, f.get(0).blockId());
    assertTrue(f.get(0).message().startsWith("/a/f block blk_13 (block 2 of the file) is in no stripe"));
    assertTrue(StripeAudit.unprotected("/a/f", Set.of(11L, 12L), new long[] {11, 12}, (short) 1).isEmpty());
  }

  @Test
  void orphansAreManifestsOfGoneInodesParityWithoutManifestAndPointersToNothing() {
    Map<Long, String> manifests = Map.of(1L, "/.wideec/manifests/1.wecm", 2L, "/.wideec/manifests/2.wecm");
    ArchiveOrphans.Inventory inv = new ArchiveOrphans.Inventory(manifests, Map.of(1L, "/a", 2L, "/b"),
        Map.of(1L, Set.of(0L), 2L, Set.of(0L)), Map.of(1L, Set.of("0", "7", "junk"), 2L, Set.of("0"), 3L, Set.of("0")),
        Set.of(1L), Map.of("/a/x", "/.wideec/manifests/1.wecm", "/c/y", "/.wideec/manifests/9.wecm"),
        "/.wideec/parity");
    List<String> got = ArchiveOrphans.of(inv).stream().map(f -> f.problem().label() + " " + f.file()).toList();
    assertEquals(List.of("orphan-manifest /.wideec/manifests/2.wecm", "orphan-parity /.wideec/parity/1/7",
        "orphan-parity /.wideec/parity/1/junk", "orphan-parity /.wideec/parity/3", "orphan-pointer /c/y"), got);
    Finding m = ArchiveOrphans.of(inv).get(0);
    assertTrue(m.message().startsWith("manifest /.wideec/manifests/2.wecm archives inode 2 (archived as /b), which no"
        + " longer exists; its parity in /.wideec/parity/2 protects nothing"), m.message());
    assertFalse(ArchiveOrphans.of(new ArchiveOrphans.Inventory(Map.of(1L, "/m/1.wecm"), Map.of(), Map.of(),
        Map.of(1L, Set.of("0")), Set.of(1L), Map.of(), "/p")).iterator().hasNext(),
        "a corrupt manifest's parity is not judged: its stripes are unknown");
  }
}
