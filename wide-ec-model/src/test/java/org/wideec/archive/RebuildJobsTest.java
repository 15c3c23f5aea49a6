package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivedStripeRepair.BlockNow;
import org.wideec.topology.Site;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.placement.CombinedLocalityPlanner;
import org.wideec.placement.PlacementPlan;
import org.wideec.repair.MultiUnitStreams;
import org.wideec.repair.RepairScheme;

/**
 * Lost units of one archived stripe grouped into rebuild orders and costed in cross-rack bytes. The main case is the
 * demo's: azure-lrc:k=64,l=4,g=4 (data 0-63, global parities 64-67, local parities 68-71) under combined locality
 * (five units a rack: group 0 is racks 0-3 with units 0-4, 5-9, 10-14 and 15 + L68; the global parities rack 16),
 * 1 MiB units, and rack 0 is lost.
 */
class RebuildJobsTest {
  private static final long MIB = 1 << 20;
  private static final String SPEC = "azure-lrc:k=64,l=4,g=4";

  /** A trimmed stripe of the code with unit u on node "n{u}:1" in rack "/r{plan rack}". */
  private static ArchivedStripe stripe(String spec, PlacementPlan plan) {
    LinearCode code = Codes.pinnedFromSpec(spec);
    List<StripeMember> members = new ArrayList<>();
    for (int u = 0; u < code.n(); u++) {
      String node = "n" + u + ":1";
      String rack = "/r" + plan.rackOf(u);
      members.add(u < code.k() ? StripeMember.data(1000 + u, 5000 + u, 1001, MIB, node, rack).withCrc(u)
          : StripeMember.plannedParity(code.role(u), MIB, node, rack).written(2000, 5000 + u, 1001, u));
    }
    return new ArchivedStripe(3, spec, 1, StripeState.TRIMMED, "/.wideec/parity/2000/3", 2000, members);
  }

  private static ArchivedStripeRepair lose(ArchivedStripe s, Set<Integer> dead) {
    Map<Integer, BlockNow> now = new HashMap<>();
    for (int u : s.storedUnits()) {
      StripeMember m = s.member(u);
      now.put(u, new BlockNow(m.generationStamp(), m.length(), dead.contains(u) ? List.of()
          : List.of(new Site(m.plannedNode(), m.plannedRack()))));
    }
    return ArchivedStripeRepair.of(s, now);
  }

  private static Set<Integer> range(int from, int to) {
    Set<Integer> out = new HashSet<>();
    IntStream.range(from, to).forEach(out::add);
    return out;
  }

  private static final PlacementPlan CL = new CombinedLocalityPlanner().plan(Codes.pinnedFromSpec(SPEC));

  @Test
  void theDemoLayoutIsFiveUnitsARack() {
    assertArrayEquals(new int[] {0, 1, 2, 3, 4}, CL.units(CL.rackOf(0)));
    assertArrayEquals(new int[] {15, 68}, CL.units(CL.rackOf(15)));
    assertArrayEquals(new int[] {64, 65, 66, 67}, CL.units(CL.rackOf(64)));
    assertEquals(17, CL.racks());
  }

  @Test
  void aLostRackOfFiveUnitsOfOneGroupIsOneDecodeFromOneHelperSetReadOnce() {
    ArchivedStripe s = stripe(SPEC, CL);
    ArchivedStripeRepair p = lose(s, range(0, 5));
    Map<Integer, String> targets = new HashMap<>();
    range(0, 5).forEach(u -> targets.put(u, "/r17")); // the spare rack, which holds none of the stripe
    List<RebuildJobs.Job> jobs = RebuildJobs.plan(p, p.lost(), targets, RepairScheme.RACK_AGGREGATED,
        Comparator.naturalOrder());
    assertEquals(1, jobs.size());
    RebuildJobs.Job j = jobs.get(0);
    assertTrue(j.joint());
    assertArrayEquals(new int[] {0, 1, 2, 3, 4}, j.units());
    // The helper set: every other data unit, the four global parities and group 0's local parity, each read once.
    MultiUnitStreams m = MultiUnitStreams.plan(s.code(), j.units(), p.helpers(), p.zeros(), "/r17", true);
    assertArrayEquals(IntStream.rangeClosed(5, 68).toArray(), m.inputs());
    // No rack holds more than five inputs, so each sends its inputs raw: 64 streams across, 1 MiB each.
    assertEquals(64, m.crossRackStreams("/r17"));
    assertEquals(64 * MIB, j.sliceBytes());
    assertEquals(0, j.writeBytes(), "every target in the requestor's rack");
    // One by one, each unit is a rack-aggregated chain over the same 64 helpers in racks 1-16: 16 crossings each.
    for (int u = 0; u < 5; u++) {
      assertEquals(16 * MIB, RebuildJobs.perUnitBytes(p, u, "/r17", RepairScheme.RACK_AGGREGATED,
          Comparator.naturalOrder()), "unit " + u);
    }
    assertEquals(80 * MIB, j.perUnitBytes());
    assertEquals(64 * MIB, j.crossRackBytes());
  }

  @Test
  void aUnitItsLocalGroupRebuildsStaysAloneAndTheOthersAreOneDecode() {
    ArchivedStripe s = stripe(SPEC, CL);
    Set<Integer> dead = range(0, 5);
    dead.add(16); // group 1 lost only unit 16: its local group rebuilds it
    ArchivedStripeRepair p = lose(s, dead);
    assertTrue(RebuildJobs.localAlone(p, 16));
    assertFalse(RebuildJobs.localAlone(p, 0));
    Map<Integer, String> targets = new HashMap<>();
    range(0, 5).forEach(u -> targets.put(u, "/r17"));
    targets.put(16, s.member(16).plannedRack());
    List<RebuildJobs.Job> jobs = RebuildJobs.plan(p, p.lost(), targets, RepairScheme.RACK_AGGREGATED,
        Comparator.naturalOrder());
    assertEquals(2, jobs.size());
    assertArrayEquals(new int[] {0, 1, 2, 3, 4}, jobs.get(0).units());
    assertArrayEquals(new int[] {16}, jobs.get(1).units());
    // Group 1's four other units in its own rack (17-20) are in-rack; 21-25, 26-30 and 31 + L69 are three racks.
    assertEquals(3 * MIB, jobs.get(1).crossRackBytes());
    // Without unit 16, the joint decode takes group 1's local parity (69) too.
    int[] inputs = MultiUnitStreams.plan(s.code(), jobs.get(0).units(), p.helpers(), p.zeros(), "/r17", true).inputs();
    assertArrayEquals(IntStream.concat(IntStream.rangeClosed(5, 15), IntStream.rangeClosed(17, 69)).toArray(), inputs);
  }

  @Test
  void targetsOutsideTheRequestorsRackAreCostedAndTheCheapestRequestorIsChosen() {
    ArchivedStripe s = stripe(SPEC, CL);
    ArchivedStripeRepair p = lose(s, range(0, 5));
    Map<Integer, String> targets = new HashMap<>(Map.of(0, "/r17", 1, "/r17", 2, "/r3", 3, "/r3", 4, "/r3"));
    RebuildJobs.Job j = RebuildJobs.plan(p, p.lost(), targets, RepairScheme.RACK_AGGREGATED,
        Comparator.naturalOrder()).get(0);
    // At rack 3, helpers 15 and L68 are in-rack (62 streams across) and two units go to rack 17; at rack 17, all 64
    // streams cross and three units go to rack 3.
    assertEquals(2, j.requestorUnit());
    assertEquals(62 * MIB + 2 * 8, j.sliceBytes(), "62 streams across, and two confirmations from rack 17");
    assertEquals(2 * MIB, j.writeBytes(), "two units written to rack 17");
    assertEquals(67 * MIB + 3 * 8, RebuildJobs.jointBytes(p, j.units(), 0, targets, RepairScheme.RACK_AGGREGATED)[0]
        + RebuildJobs.jointBytes(p, j.units(), 0, targets, RepairScheme.RACK_AGGREGATED)[1]);
  }

  @Test
  void shortUnitsStayOutOfAJointDecodeWhoseStreamsAreAsLongAsItsLongestUnit() {
    // A directory stripe: units 2-4 are short last blocks (64 KiB). Rebuilt with units 0 and 1 they would make every
    // input stream 1 MiB; alone each costs 16 x 64 KiB.
    ArchivedStripe full = stripe(SPEC, CL);
    List<StripeMember> members = new ArrayList<>(full.members());
    for (int u = 2; u < 5; u++) {
      StripeMember m = members.get(u);
      members.set(u, StripeMember.data(m.inodeId(), m.blockId(), m.generationStamp(), 64 * 1024, m.plannedNode(),
          m.plannedRack()).withCrc(u));
    }
    ArchivedStripe s = full.withMembers(members);
    ArchivedStripeRepair p = lose(s, range(0, 5));
    Map<Integer, String> targets = new HashMap<>();
    range(0, 5).forEach(u -> targets.put(u, "/r17"));
    List<RebuildJobs.Job> jobs = RebuildJobs.plan(p, p.lost(), targets, RepairScheme.RACK_AGGREGATED,
        Comparator.naturalOrder());
    assertEquals(4, jobs.size());
    assertArrayEquals(new int[] {0, 1}, jobs.get(0).units());
    for (int i = 1; i < 4; i++) {
      assertArrayEquals(new int[] {i + 1}, jobs.get(i).units());
      assertEquals(16 * 64 * 1024, jobs.get(i).crossRackBytes());
    }
    long all = RebuildJobs.jointBytes(p, p.lost(), 0, targets, RepairScheme.RACK_AGGREGATED)[0];
    assertEquals(64 * MIB, all, "all five: 64 streams of 1 MiB");
    assertTrue(jobs.get(0).crossRackBytes() < jobs.get(0).perUnitBytes());
    assertTrue(jobs.stream().mapToLong(RebuildJobs.Job::crossRackBytes).sum() < all);
  }

  @Test
  void unitsWhoseRacksHoldTooFewInputsForOneDecodeToSaveAnythingAreRebuiltOneByOne() {
    // rs:k=4,m=2 on two racks of three; one unit lost in each: a chain crosses once per unit, one decode would
    // take two raw streams across and write one unit across.
    PlacementPlan two = new PlacementPlan("test", Codes.pinnedFromSpec("rs:k=4,m=2"), new int[] {0, 0, 0, 1, 1, 1});
    ArchivedStripe s = stripe("rs:k=4,m=2", two);
    ArchivedStripeRepair p = lose(s, Set.of(0, 3));
    List<RebuildJobs.Job> jobs = RebuildJobs.plan(p, p.lost(), Map.of(0, "/r0", 3, "/r1"),
        RepairScheme.RACK_AGGREGATED, Comparator.naturalOrder());
    assertEquals(2, jobs.size());
    assertFalse(jobs.get(0).joint());
    assertEquals(MIB, jobs.get(0).crossRackBytes());
    assertEquals(MIB, jobs.get(1).crossRackBytes());
    long[] joint = RebuildJobs.jointBytes(p, new int[] {0, 3}, 0, Map.of(0, "/r0", 3, "/r1"),
        RepairScheme.RACK_AGGREGATED);
    assertArrayEquals(new long[] {2 * MIB + 8, MIB}, joint);
  }

  @Test
  void offPlanTargetsOfOneStripeNeverExceedWhatARackMayHold() {
    ArchivedStripe s = stripe(SPEC, CL);
    ArchivedStripeRepair p = lose(s, range(0, 5));
    List<Site> live = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      live.add(new Site("spare" + i + ":1", "/r17"));
    }
    live.add(new Site("x:1", "/r3")); // rack 3 holds two units of the stripe
    Map<String, Integer> perRack = new HashMap<>();
    p.helpers().values().forEach(h -> perRack.merge(h.rack(), 1, Integer::sum));
    RebuildTargets t = new RebuildTargets();
    Set<String> avoid = new HashSet<>();
    List<String> racks = new ArrayList<>();
    for (int u = 0; u < 4; u++) {
      Site r = t.choose(s.member(u), live, avoid, Set.of(), perRack, 3);
      avoid.add(r.node());
      racks.add(r.rack());
    }
    // Rack 17 fills to the cap of 3, rack 3 takes one more (2 -> 3); then no rack has room within the cap.
    assertEquals(List.of("/r17", "/r17", "/r17", "/r3"), racks);
    assertEquals(null, t.choose(s.member(4), live, avoid, Set.of(), perRack, 3));
  }
}
