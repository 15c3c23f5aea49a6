package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.wideec.topology.Site;

/**
 * Keeping archived stripes on plan, on the golden stripe: azure-lrc:k=4,l=2,g=1, data planned on
 * dn0, dn1 (/rack0), dn2, dn3 (/rack1), parity on dn4 (/rack2), dn5 (/rack0), dn6 (/rack1).
 */
class PlanKeepingTest {
  private static final List<Site> CLUSTER = List.of(r("dn0:9866", "/rack0"), r("dn1:9866", "/rack0"),
      r("dn2:9866", "/rack1"), r("dn3:9866", "/rack1"), r("dn4:9866", "/rack2"), r("dn5:9866", "/rack0"),
      r("dn6:9866", "/rack1"), r("dn8:9866", "/rack3"), r("dn9:9866", "/rack0"));

  private static Site r(String node, String rack) {
    return new Site(node, rack);
  }

  private static ArchivedStripe stripe(StripeState state) {
    ArchivedStripe s = ManifestFixtures.golden().stripes().get(0); // VERIFIED
    return state == StripeState.VERIFIED ? s : state == StripeState.COMMITTED ? s.withState(StripeState.COMMITTED)
        : s.withState(StripeState.COMMITTED).withState(StripeState.TRIMMED);
  }

  /** Every member on its planned node, one replica each. */
  private static Map<Integer, PlanKeeping.Observed> onPlan(ArchivedStripe s) {
    Map<Integer, PlanKeeping.Observed> now = new HashMap<>();
    for (int u : s.storedUnits()) {
      StripeMember m = s.member(u);
      now.put(u, observed(m, r(m.plannedNode(), m.plannedRack())));
    }
    return now;
  }

  private static PlanKeeping.Observed observed(StripeMember m, Site... live) {
    Set<String> holders = new java.util.HashSet<>();
    for (Site x : live) {
      holders.add(x.node());
    }
    return new PlanKeeping.Observed(m.generationStamp(), m.length(), List.of(live), holders);
  }

  private static List<String> pinned(PlanKeeping.Actions a) {
    List<String> out = new ArrayList<>();
    a.pins().forEach(p -> out.add(p.unit() + "@" + p.node()));
    return out;
  }

  @Test
  void aTrimmedStripeOnPlanHasEveryMemberPinnedAndNothingMoved() {
    ArchivedStripe s = stripe(StripeState.TRIMMED);
    PlanKeeping.Actions a = PlanKeeping.of(s, onPlan(s), CLUSTER);
    assertEquals(List.of("0@dn0:9866", "1@dn1:9866", "2@dn2:9866", "3@dn3:9866", "4@dn4:9866", "5@dn5:9866",
        "6@dn6:9866"), pinned(a));
    assertTrue(a.moves().isEmpty());
    assertTrue(a.stuck().isEmpty());
  }

  @Test
  void aCommittedStripeHasItsParityPinnedButItsDataLeftToTheTrimmer() {
    ArchivedStripe s = stripe(StripeState.COMMITTED);
    Map<Integer, PlanKeeping.Observed> now = onPlan(s);
    now.put(0, observed(s.member(0), r("dn0:9866", "/rack0"), r("dn8:9866", "/rack3"))); // not trimmed yet
    now.put(1, observed(s.member(1), r("dn8:9866", "/rack3")));
    PlanKeeping.Actions a = PlanKeeping.of(s, now, CLUSTER);
    assertEquals(List.of("4@dn4:9866", "5@dn5:9866", "6@dn6:9866"), pinned(a));
    assertTrue(a.moves().isEmpty());
  }

  @Test
  void nothingIsDoneBeforeCommitted() {
    ArchivedStripe s = stripe(StripeState.VERIFIED);
    PlanKeeping.Actions a = PlanKeeping.of(s, onPlan(s), CLUSTER);
    assertTrue(a.pins().isEmpty() && a.moves().isEmpty() && a.stuck().isEmpty());
  }

  @Test
  void aBlockInAnotherRackGoesBackToItsPlannedNodeAndIsNotPinnedWhereItIs() {
    ArchivedStripe s = stripe(StripeState.TRIMMED);
    Map<Integer, PlanKeeping.Observed> now = onPlan(s);
    now.put(2, observed(s.member(2), r("dn8:9866", "/rack3")));
    PlanKeeping.Actions a = PlanKeeping.of(s, now, CLUSTER);
    assertEquals(1, a.moves().size());
    PlanKeeping.MoveBack mv = a.moves().get(0);
    assertEquals(2, mv.unit());
    assertEquals(r("dn8:9866", "/rack3"), mv.from());
    assertEquals(r("dn2:9866", "/rack1"), mv.to());
    assertTrue(pinned(a).stream().noneMatch(p -> p.startsWith("2@")), pinned(a).toString());
  }

  @Test
  void withItsPlannedNodeDownABlockGoesToANodeOfItsPlannedRackHoldingNoOtherUnit() {
    ArchivedStripe s = stripe(StripeState.TRIMMED);
    Map<Integer, PlanKeeping.Observed> now = onPlan(s);
    now.put(0, observed(s.member(0), r("dn8:9866", "/rack3")));
    List<Site> withoutDn0 = CLUSTER.stream().filter(x -> !x.node().equals("dn0:9866")).toList();
    PlanKeeping.MoveBack mv = PlanKeeping.of(s, now, withoutDn0).moves().get(0);
    // dn1 holds unit 1 and dn5 unit 5: dn9 is the node of /rack0 that holds nothing of the stripe.
    assertEquals(r("dn9:9866", "/rack0"), mv.to());
  }

  @Test
  void aBlockInItsPlannedRackStaysWhenItsPlannedNodeIsDownAndGoesThereWhenItIsBack() {
    ArchivedStripe s = stripe(StripeState.TRIMMED);
    Map<Integer, PlanKeeping.Observed> now = onPlan(s);
    now.put(0, observed(s.member(0), r("dn9:9866", "/rack0")));
    List<Site> withoutDn0 = CLUSTER.stream().filter(x -> !x.node().equals("dn0:9866")).toList();
    PlanKeeping.Actions down = PlanKeeping.of(s, now, withoutDn0);
    assertTrue(down.moves().isEmpty() && down.stuck().isEmpty());
    assertEquals(r("dn0:9866", "/rack0"), PlanKeeping.of(s, now, CLUSTER).moves().get(0).to());
  }

  @Test
  void aBlockWhosePlannedRackHasNoLiveNodeIsReportedStuck() {
    ArchivedStripe s = stripe(StripeState.TRIMMED);
    Map<Integer, PlanKeeping.Observed> now = onPlan(s);
    now.put(4, observed(s.member(4), r("dn8:9866", "/rack3")));
    List<Site> withoutRack2 = CLUSTER.stream().filter(x -> !x.rack().equals("/rack2")).toList();
    PlanKeeping.Actions a = PlanKeeping.of(s, now, withoutRack2);
    assertTrue(a.moves().isEmpty());
    assertEquals(1, a.stuck().size());
    assertEquals(4, a.stuck().get(0).unit());
    assertTrue(a.stuck().get(0).why().contains("/rack2"), a.stuck().get(0).why());
  }

  @Test
  void aTargetNeverHoldsAReplicaOfTheBlockEvenADeadOne() {
    ArchivedStripe s = stripe(StripeState.TRIMMED);
    Map<Integer, PlanKeeping.Observed> now = onPlan(s);
    StripeMember m = s.member(2);
    now.put(2, new PlanKeeping.Observed(m.generationStamp(), m.length(), List.of(r("dn8:9866", "/rack3")),
        Set.of("dn8:9866", "dn2:9866"))); // dn2 lists a corrupt or stale replica
    PlanKeeping.MoveBack mv = PlanKeeping.of(s, now, CLUSTER).moves().get(0);
    // Every other node of /rack1 holds another unit (dn3 unit 3, dn6 unit 6): the first by name, never dn2.
    assertEquals(r("dn3:9866", "/rack1"), mv.to());
  }

  @Test
  void aChangedBlockOrOneWithSeveralReplicasIsNotMoved() {
    ArchivedStripe s = stripe(StripeState.TRIMMED);
    Map<Integer, PlanKeeping.Observed> now = onPlan(s);
    StripeMember m0 = s.member(0);
    now.put(0, new PlanKeeping.Observed(m0.generationStamp() + 1, m0.length(), List.of(r("dn8:9866", "/rack3")),
        Set.of("dn8:9866"))); // appended: the parity no longer covers it
    now.put(1, observed(s.member(1), r("dn1:9866", "/rack0"), r("dn8:9866", "/rack3")));
    now.put(2, new PlanKeeping.Observed(-1, s.member(2).length(), List.of(r("dn8:9866", "/rack3")),
        Set.of("dn8:9866"))); // under construction
    PlanKeeping.Actions a = PlanKeeping.of(s, now, CLUSTER);
    assertTrue(a.moves().isEmpty(), a.moves().toString());
    assertTrue(pinned(a).contains("1@dn1:9866"));
    assertTrue(pinned(a).stream().noneMatch(p -> p.startsWith("0@") || p.startsWith("2@")), pinned(a).toString());
  }

  @Test
  void aStaleStripeIsLeftAlone() {
    ArchivedStripe s = stripe(StripeState.TRIMMED).withState(StripeState.STALE);
    PlanKeeping.Actions a = PlanKeeping.of(s, onPlan(s), CLUSTER);
    assertTrue(a.pins().isEmpty() && a.moves().isEmpty());
  }
}
