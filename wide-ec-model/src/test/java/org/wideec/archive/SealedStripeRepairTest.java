package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivedStripeRepair.BlockNow;
import org.wideec.topology.Site;
import org.wideec.code.LinearCode;
import org.wideec.code.UnitSpan;
import org.wideec.repair.BlockRef;
import org.wideec.repair.RepairGraph;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.RepairStep;
import org.wideec.repair.SingleUnitRepairPlanner;
import org.wideec.repair.StripeRepair;

/**
 * The repair of a sealed stripe (rapidraid:n=8,k=4, not MDS): every codeword is a unit like a parity; a lost one is
 * rebuilt exactly when the live codewords span its generator row, and the plan's helpers always do.
 */
class SealedStripeRepairTest {
  private static final ArchivedStripe SEALED = SealedManifestTest.sealed().stripe(0).withState(StripeState.COMMITTED)
      .withState(StripeState.TRIMMED);

  private static Map<Integer, BlockNow> now(ArchivedStripe s, int[] dead) {
    Map<Integer, BlockNow> out = new HashMap<>();
    for (int u : s.storedUnits()) {
      StripeMember m = s.member(u);
      boolean gone = IntStream.of(dead).anyMatch(d -> d == u);
      out.put(u, new BlockNow(m.generationStamp(), m.length(),
          gone ? List.of() : List.of(new Site(m.plannedNode(), m.plannedRack()))));
    }
    return out;
  }

  @Test
  void everyLossPatternIsRebuiltExactlyWhenTheLiveCodewordsSpanIt() {
    LinearCode code = SEALED.code();
    int undecodable = 0;
    for (int mask = 1; mask < 1 << 8; mask++) {
      int bits = mask;
      int[] dead = IntStream.range(0, 8).filter(u -> (bits >> u & 1) != 0).toArray();
      ArchivedStripeRepair p = ArchivedStripeRepair.of(SEALED, now(SEALED, dead));
      UnitSpan span = new UnitSpan(code);
      IntStream.range(0, 8).filter(u -> (bits >> u & 1) == 0).forEach(span::add);
      int[] rebuilt = IntStream.of(dead).filter(span::canRebuild).toArray();
      int[] beyond = IntStream.of(dead).filter(u -> !span.canRebuild(u)).toArray();
      assertArrayEquals(rebuilt, p.lost(), "dead " + java.util.Arrays.toString(dead));
      assertArrayEquals(beyond, p.unrecoverable(), "dead " + java.util.Arrays.toString(dead));
      assertEquals(dead.length <= 4 && code.isDecodable(dead), beyond.length == 0 && dead.length <= 4,
          "dead " + java.util.Arrays.toString(dead));
      undecodable += dead.length <= 4 && !code.isDecodable(dead) ? 1 : 0;
      for (int u : p.lost()) {
        StripeRepair r = p.repairOf(u, "stripe 0 codeword " + u, x -> new BlockRef("bp", 1, 1, 1),
            RepairScheme.PIPELINED, Comparator.naturalOrder());
        RepairGraph g = SingleUnitRepairPlanner.plan(r.scheme(), r.code(), u, r.survivors(), "req:1", "/rack9",
            r.weights(), r.preference());
        UnitSpan helpers = new UnitSpan(code);
        g.steps().stream().map(RepairStep::helper).forEach(h -> {
          assertTrue(p.helpers().containsKey(h.unit()), "helper " + h.unit() + " is live");
          helpers.add(h.unit());
        });
        assertTrue(helpers.canRebuild(u), "the helpers of codeword " + u + " span it");
      }
      if (p.lost().length > 1) {
        Map<Integer, String> racks = new HashMap<>();
        for (int u : p.lost()) {
          racks.put(u, SEALED.member(u).plannedRack());
        }
        List<RebuildJobs.Job> jobs = RebuildJobs.plan(p, p.lost(), racks, RepairScheme.RACK_AGGREGATED,
            Comparator.naturalOrder());
        assertEquals(p.lost().length, jobs.stream().mapToInt(j -> j.units().length).sum());
      }
    }
    assertTrue(undecodable > 0, "rapidraid:n=8,k=4 is not MDS: some pattern of at most n - k losses is undecodable");
  }

  @Test
  void codewordsArePinnedAndMovedBackLikeParity() {
    Map<Integer, PlanKeeping.Observed> now = new HashMap<>();
    for (int u : SEALED.storedUnits()) {
      StripeMember m = SEALED.member(u);
      Site at = u == 5 ? new Site("elsewhere:1", "/rack9") : new Site(m.plannedNode(), m.plannedRack());
      now.put(u, new PlanKeeping.Observed(m.generationStamp(), m.length(), List.of(at), java.util.Set.of(at.node())));
    }
    StripeMember five = SEALED.member(5);
    PlanKeeping.Actions a = PlanKeeping.of(SEALED, now, List.of(new Site(five.plannedNode(), five.plannedRack())));
    assertEquals(List.of(0, 1, 2, 3, 4, 6, 7), a.pins().stream().map(PlanKeeping.Pin::unit).toList());
    assertEquals(1, a.moves().size());
    assertEquals(5, a.moves().get(0).unit());
    assertEquals(five.plannedNode(), a.moves().get(0).to().node());
  }

  @Test
  void fsckJudgesASealedStripeByTheExactCode() {
    LinearCode code = SEALED.code();
    int[] undecodable = null;
    for (int mask = 0; mask < 1 << 8 && undecodable == null; mask++) {
      int bits = mask;
      int[] dead = IntStream.range(0, 8).filter(u -> (bits >> u & 1) != 0).toArray();
      if (dead.length == 4 && !code.isDecodable(dead)) {
        undecodable = dead;
      }
    }
    int[] lostFour = undecodable;
    StripeAudit.Verdict one = StripeAudit.audit("/m.wecm", "/cold/f", SEALED, u -> observed(SEALED, u, u == 6), "");
    assertEquals(1, one.findings().size());
    assertEquals(StripeAudit.Problem.MISSING, one.findings().get(0).problem());
    assertTrue(one.findings().get(0).message().contains("coded block blk_" + SEALED.member(6).blockId()),
        one.findings().get(0).message());
    assertArrayEquals(new int[] {6}, one.lost());
    assertTrue(one.decodable());
    assertEquals(org.wideec.code.RemainingTolerance.of(code, new java.util.BitSet(), new int[] {6}).value(),
        one.remainingTolerance());
    StripeAudit.Verdict beyond = StripeAudit.audit("/m.wecm", "/cold/f", SEALED,
        u -> observed(SEALED, u, IntStream.of(lostFour).anyMatch(x -> x == u)), "");
    assertEquals(Boolean.FALSE, beyond.decodable(), "four losses rapidraid:n=8,k=4 cannot decode");
    assertTrue(beyond.describe().contains("CANNOT DECODE"), beyond.describe());
  }

  private static StripeAudit.Observed observed(ArchivedStripe s, int u, boolean missing) {
    StripeMember m = s.member(u);
    return StripeAudit.Observed.present("/.wideec/codewords/16500/0/u" + u, m.generationStamp(), m.length(),
        missing ? List.of() : List.of(new Site(m.plannedNode(), m.plannedRack())));
  }
}
