package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivedStripeRepair.BlockNow;
import org.wideec.topology.Site;
import org.wideec.code.UnitRole;
import org.wideec.repair.BlockRef;
import org.wideec.protocol.RebuildRequest;
import org.wideec.repair.RepairGraph;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.RepairStep;
import org.wideec.repair.SingleUnitRepairPlanner;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Endpoint;

/**
 * The repair of an archived stripe from its manifest and the NameNode's view (azure-lrc:k=4,l=2,g=1: data 0-3, global
 * parity 4, local parities 5 = f(0, 1) and 6 = f(2, 3)): lost, stale, gone and unrecoverable units, padding as zeros,
 * the plan handed to the repair planner, the target choice and the request's bytes.
 */
class ArchivedStripeRepairTest {
  private static final ArchivedStripe TRIMMED = ManifestFixtures.golden().stripe(7).withState(StripeState.COMMITTED)
      .withState(StripeState.TRIMMED);

  /** Every stored unit as the manifest has it, live on its planned node, except those listed. */
  private static Map<Integer, BlockNow> now(ArchivedStripe s, Set<Integer> dead) {
    Map<Integer, BlockNow> out = new HashMap<>();
    for (int u : s.storedUnits()) {
      StripeMember m = s.member(u);
      out.put(u, new BlockNow(m.generationStamp(), m.length(),
          dead.contains(u) ? List.of() : List.of(new Site(m.plannedNode(), m.plannedRack()))));
    }
    return out;
  }

  private static int[] helperUnits(StripeRepair r) {
    RepairGraph g = SingleUnitRepairPlanner.plan(r.scheme(), r.code(), r.lost()[0], r.survivors(), "req:1", "/rack9",
        r.weights(), r.preference());
    return g.steps().stream().map(RepairStep::helper).mapToInt(UnitLocation::unit).sorted().toArray();
  }

  private static StripeRepair repairOf(ArchivedStripeRepair p, int unit) {
    return p.repairOf(unit, "stripe 7 unit " + unit, u -> new BlockRef("bp", 1, 1, 1), RepairScheme.PIPELINED,
        Comparator.naturalOrder());
  }

  @Test
  void aStripeWithEveryUnitLiveNeedsNothing() {
    ArchivedStripeRepair p = ArchivedStripeRepair.of(TRIMMED, now(TRIMMED, Set.of()));
    assertTrue(p.healthy());
    assertEquals(7, p.helpers().size());
    assertArrayEquals(new int[0], p.stale());
  }

  @Test
  void aLostDataUnitIsRebuiltFromItsLocalGroupFirst() {
    ArchivedStripeRepair p = ArchivedStripeRepair.of(TRIMMED, now(TRIMMED, Set.of(1)));
    assertArrayEquals(new int[] {1}, p.lost());
    StripeRepair r = repairOf(p, 1);
    assertArrayEquals(new long[] {4096}, r.lostLengths());
    assertArrayEquals(new int[] {0, 5}, helperUnits(r), "local group {0, 1, L5}");
  }

  @Test
  void aLostParityIsRebuiltToo() {
    ArchivedStripeRepair p = ArchivedStripeRepair.of(TRIMMED, now(TRIMMED, Set.of(6)));
    assertArrayEquals(new int[] {6}, p.lost());
    assertArrayEquals(new int[] {2, 3}, helperUnits(repairOf(p, 6)));
  }

  @Test
  void anAppendedMemberIsStaleAndNeverAHelper() {
    Map<Integer, BlockNow> now = now(TRIMMED, Set.of(1));
    StripeMember appended = TRIMMED.member(0);
    now.put(0, new BlockNow(appended.generationStamp() + 1, appended.length() + 100,
        List.of(new Site(appended.plannedNode(), appended.plannedRack()))));
    ArchivedStripeRepair p = ArchivedStripeRepair.of(TRIMMED, now);
    assertArrayEquals(new int[] {0}, p.stale());
    assertArrayEquals(new int[] {1}, p.lost(), "unit 1 is still decodable without unit 0");
    assertFalse(p.helpers().containsKey(0));
    int[] helpers = helperUnits(repairOf(p, 1));
    assertTrue(java.util.Arrays.stream(helpers).noneMatch(u -> u == 0), java.util.Arrays.toString(helpers));
    assertTrue(p.describe().contains("stale unit 0 (blk_" + appended.blockId() + ")"), p.describe());
  }

  @Test
  void aTruncatedMemberIsStaleEvenWithTheSameGenerationStamp() {
    Map<Integer, BlockNow> now = now(TRIMMED, Set.of());
    StripeMember m = TRIMMED.member(2);
    now.put(2, new BlockNow(m.generationStamp(), m.length() - 1, List.of(new Site("x", "/rack1"))));
    assertArrayEquals(new int[] {2}, ArchivedStripeRepair.of(TRIMMED, now).stale());
  }

  @Test
  void lostUnitsTheSurvivorsCannotDecodeAreNamedUnrecoverable() {
    Map<Integer, BlockNow> now = now(TRIMMED, Set.of(0, 1, 4));
    ArchivedStripeRepair p = ArchivedStripeRepair.of(TRIMMED, now);
    // L5 alone holds units 0 and 1 (their sum), and the global parity needs each of them.
    assertArrayEquals(new int[] {0, 1, 4}, p.unrecoverable());
    assertArrayEquals(new int[0], p.lost());
    assertFalse(p.healthy());
    assertTrue(p.describe().contains("unrecoverable unit 0 (blk_" + TRIMMED.member(0).blockId() + "), unit 1"),
        p.describe());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> repairOf(p, 0));
    assertTrue(e.getMessage().contains("unrecoverable"), e.getMessage());
  }

  @Test
  void aDeletedMemberIsGoneNotAHelper() {
    Map<Integer, BlockNow> now = now(TRIMMED, Set.of(2));
    now.remove(3);
    ArchivedStripeRepair p = ArchivedStripeRepair.of(TRIMMED, now);
    assertArrayEquals(new int[] {3}, p.gone());
    assertArrayEquals(new int[] {2}, p.lost());
    assertFalse(p.helpers().containsKey(3));
  }

  /** One data block, three virtual ones; the second group's local parity is virtual too. */
  private static ArchivedStripe shortTrimmed() {
    List<StripeMember> m = new ArrayList<>();
    m.add(StripeMember.data(16388, 1073741829L, 1005, 512, "dn7:9866", "/rack3").withCrc(7));
    for (int u = 1; u < 4; u++) {
      m.add(StripeMember.padding(UnitRole.DATA));
    }
    m.add(StripeMember.plannedParity(UnitRole.GLOBAL_PARITY, 512, "dn0:9866", "/rack0").written(16390, 1073741900L, 1100, 8));
    m.add(StripeMember.plannedParity(UnitRole.LOCAL_PARITY, 512, "dn2:9866", "/rack1").written(16390, 1073741901L, 1100, 9));
    m.add(StripeMember.padding(UnitRole.LOCAL_PARITY));
    return new ArchivedStripe(8, ManifestFixtures.LRC, 1, StripeState.TRIMMED, "/.wideec/parity/16388/8", 16390, m);
  }

  @Test
  void virtualPaddingCountsAsZerosSoAShortStripeRebuildsItsOnlyDataBlock() {
    ArchivedStripe s = shortTrimmed();
    ArchivedStripeRepair p = ArchivedStripeRepair.of(s, now(s, Set.of(0)));
    assertEquals(Set.of(1, 2, 3, 6), p.zeros());
    assertArrayEquals(new int[] {0}, p.lost());
    StripeRepair r = repairOf(p, 0);
    assertEquals(Set.of(1, 2, 3, 6), r.zeroUnits());
    assertArrayEquals(new long[] {512}, r.lostLengths());
  }

  @Test
  void onlyAStripeWhoseParityIsVerifiedProtectsAnything() {
    ArchivedStripe verified = ManifestFixtures.golden().stripe(7);
    assertFalse(ArchivedStripeRepair.protects(verified));
    assertThrows(IllegalArgumentException.class, () -> ArchivedStripeRepair.of(verified, now(verified, Set.of(1))));
    assertTrue(ArchivedStripeRepair.protects(TRIMMED.withState(StripeState.STALE)), "stale after trim: every CRC known");
    assertFalse(ArchivedStripeRepair.protects(ManifestFixtures.golden().stripe(8).withState(StripeState.STALE)));
  }

  @Test
  void theTargetIsInThePlannedRackAndHoldsNoOtherUnitLeastRecentlySelectedFirst() {
    StripeMember lost = TRIMMED.member(1); // planned on /rack0
    List<Site> live = List.of(new Site("a:1", "/rack0"), new Site("b:1", "/rack0"), new Site("c:1", "/rack0"),
        new Site("d:1", "/rack5"));
    RebuildTargets t = new RebuildTargets();
    Set<String> avoid = Set.of("a:1");
    assertEquals("b:1", t.choose(lost, live, avoid, Set.of(), new HashMap<>()).node());
    assertEquals("c:1", t.choose(lost, live, avoid, Set.of(), new HashMap<>()).node(), "b was selected last");
    assertEquals("b:1", t.choose(lost, live, avoid, Set.of(), new HashMap<>()).node());
    assertEquals("c:1", t.choose(lost, live, avoid, Set.of("b:1"), new HashMap<>()).node(), "never a node holding the block");
    assertEquals("a:1", t.choose(lost, live, avoid, Set.of("b:1", "c:1"), new HashMap<>()).node(), "in rack, though it holds a unit");
    assertEquals("d:1", t.choose(lost, live, Set.of("a:1", "b:1", "c:1"), Set.of("a:1", "b:1", "c:1"), new HashMap<>()).node(),
        "off rack rather than lost");
    assertNull(t.choose(lost, List.of(new Site("a:1", "/rack0")), Set.of(), Set.of("a:1"), new HashMap<>()));
  }

  @Test
  void withItsPlannedRackDownATargetGoesToTheRackHoldingTheFewestUnitsOfTheStripe() {
    StripeMember lost = TRIMMED.member(1); // planned on /rack0, which is down
    List<Site> live = List.of(new Site("e:1", "/rack4"), new Site("f:1", "/rack5"), new Site("g:1", "/rack6"));
    Map<String, Integer> perRack = new HashMap<>(Map.of("/rack4", 5, "/rack5", 2, "/rack6", 3));
    RebuildTargets t = new RebuildTargets();
    assertEquals("f:1", t.choose(lost, live, Set.of(), Set.of(), perRack).node(), "the rack with room, not the full one");
    assertEquals(3, perRack.get("/rack5"), "counted for the next unit of the stripe");
    assertEquals("g:1", t.choose(lost, live, Set.of(), Set.of(), perRack).node(), "3 and 3: the least recently chosen");
  }

  @Test
  void aRebuildRequestReadsBackAsWritten() throws Exception {
    ArchivedStripeRepair p = ArchivedStripeRepair.of(shortTrimmed(), now(shortTrimmed(), Set.of(5)));
    Map<String, Endpoint> eps = new HashMap<>();
    p.helpers().values().forEach(h -> eps.put(h.node(), new Endpoint("127.0.0.1", 5000 + h.unit(), h.site())));
    StripeRepair r = p.repairOf(5, "stripe 8 unit 5 of /x", u -> new BlockRef("bp-1", 100 + u, 7, 512, new byte[] {(byte) u}),
        RepairScheme.RACK_AGGREGATED, Comparator.reverseOrder());
    RebuildRequest req = new RebuildRequest(r, eps, new BlockRef("bp-1", 1073741901L, 1100, 512, new byte[] {1, 2, 3}),
        "DISK", "DS-1", 0xFFFFFFFEL);
    RebuildRequest back = RebuildRequest.parse(req.toBytes(), RepairScheme.PIPELINED);
    assertTrue(RebuildRequest.is(req.toBytes()));
    assertEquals(5, back.unit());
    assertEquals(req.target(), back.target());
    assertEquals(0xFFFFFFFEL, back.expectedCrc());
    assertEquals("DS-1", back.storageId());
    assertEquals(RepairScheme.PIPELINED, back.repair().scheme(), "the DataNode's own scheme");
    assertEquals(r.survivors(), back.repair().survivors());
    assertEquals(r.blocks(), back.repair().blocks());
    assertEquals(r.zeroUnits(), back.repair().zeroUnits());
    assertEquals(eps, back.endpoints());
    List<Integer> order = new ArrayList<>(back.repair().survivors().keySet());
    order.sort(back.repair().preference());
    assertEquals(List.of(4, 0), order, "the NameNode's preference travels as the helpers' order");
    byte[] bad = req.toBytes();
    bad[bad.length - 1] ^= 1; // a token byte: still well formed
    RebuildRequest.parse(bad, RepairScheme.PIPELINED);
    byte[] truncated = java.util.Arrays.copyOf(req.toBytes(), req.toBytes().length - 3);
    assertThrows(java.io.IOException.class, () -> RebuildRequest.parse(truncated, RepairScheme.PIPELINED));
  }

  @Test
  void aJointRebuildRequestNamesEachUnitsTargetAndReadsBackAsWritten() throws Exception {
    ArchivedStripeRepair p = ArchivedStripeRepair.of(TRIMMED, now(TRIMMED, Set.of(0, 1)));
    Map<String, Endpoint> eps = new HashMap<>();
    p.helpers().values().forEach(h -> eps.put(h.node(), new Endpoint("127.0.0.1", 5000 + h.unit(), h.site())));
    StripeRepair r = p.repairOf(new int[] {0, 1}, "stripe 7 units 0, 1", u -> new BlockRef("bp-1", 100 + u, 7, 4096,
        new byte[] {(byte) u}), RepairScheme.RACK_AGGREGATED, Comparator.naturalOrder());
    RebuildRequest.RemoteNode far = new RebuildRequest.RemoteNode("10.0.0.9", "dn9", "uuid-9", 9866, 9864, 0, 9867,
        new Endpoint("10.0.0.9", 7001, new Site("10.0.0.9:9866", "/rack4")));
    RebuildRequest req = new RebuildRequest(r, eps, List.of(
        new RebuildRequest.Target(0, new BlockRef("bp-1", TRIMMED.member(0).blockId(), 1001, 4096, new byte[] {9}),
            "DISK", "DS-a", 11, null),
        new RebuildRequest.Target(1, new BlockRef("bp-1", TRIMMED.member(1).blockId(), 1001, 4096, new byte[] {8}),
            "SSD", "DS-b", 0xFFFFFFFFL, far)));
    byte[] bytes = req.toBytes();
    assertEquals(RebuildRequest.KIND_JOINT, bytes[0]);
    assertTrue(RebuildRequest.is(bytes));
    RebuildRequest back = RebuildRequest.parse(bytes, RepairScheme.PIPELINED);
    assertEquals(req.targets(), back.targets());
    assertArrayEquals(new int[] {0, 1}, back.repair().lost());
    assertArrayEquals(new long[] {4096, 4096}, back.repair().lostLengths());
    assertEquals(r.survivors(), back.repair().survivors());
    assertEquals(eps, back.endpoints());
    assertThrows(java.io.IOException.class, () -> RebuildRequest.parse(java.util.Arrays.copyOf(bytes, bytes.length - 1),
        RepairScheme.PIPELINED));
    // One unit stored on the receiving node is still the version-1 kind, which every DataNode takes.
    StripeRepair one = p.repairOf(0, "stripe 7 unit 0", u -> new BlockRef("bp-1", 100 + u, 7, 4096, new byte[0]),
        RepairScheme.RACK_AGGREGATED, Comparator.naturalOrder());
    assertEquals(RebuildRequest.KIND, new RebuildRequest(one, eps, new BlockRef("bp-1", 5, 1001, 4096, new byte[0]),
        "DISK", "DS-a", 1).toBytes()[0]);
  }
}
