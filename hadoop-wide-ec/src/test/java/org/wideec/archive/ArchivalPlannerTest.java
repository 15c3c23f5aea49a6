package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.code.UnitRole;
import org.wideec.topology.Site;
import org.wideec.topology.Topology;

/** The archival planner: stripes, kept replicas, parity targets, costs, and the inputs it refuses. */
class ArchivalPlannerTest {
  static final long MIB = PlanFixtures.MIB;

  record Shape(String spec, PlacementKind kind) {}

  static final List<Shape> SHAPES = List.of(new Shape("azure-lrc:k=4,l=2,g=1", PlacementKind.CL),
      new Shape("rs:k=6,m=3", PlacementKind.CL), new Shape("rs:k=6,m=3", PlacementKind.FLAT),
      new Shape("azure-lrc:k=8,l=2,g=2", PlacementKind.CL), new Shape("unilrc:alpha=1,z=3", PlacementKind.UNILRC),
      new Shape("unilrc:alpha=1,z=3", PlacementKind.CL), new Shape("azure-lrc+1:k=4,l=2,g=2", PlacementKind.CL),
      new Shape("rs:k=10,m=4", PlacementKind.FLAT), new Shape("azure-lrc:k=6,l=3,g=2", PlacementKind.FLAT));

  static ArchivalRequest file(String spec, PlacementKind kind, Topology t, SourceFile f) {
    return new ArchivalRequest(f.path(), ArchiveScope.FILE, List.of(f), spec, kind, t);
  }

  @Test
  void everyPlanOnRandomTopologiesHoldsEveryRule() {
    for (long seed = 0; seed < 150; seed++) {
      Random rnd = new Random(seed);
      Shape shape = SHAPES.get(rnd.nextInt(SHAPES.size()));
      LinearCode code = Codes.pinnedFromSpec(shape.spec());
      var base = shape.kind().planner().plan(code);
      int extraRacks = rnd.nextInt(5);
      int minNodes = base.maxUnitsPerRack() + (rnd.nextBoolean() ? 0 : 1);
      Topology t = PlanFixtures.randomTopology(rnd, base.racks() + extraRacks, minNodes, minNodes + rnd.nextInt(4));
      String writer = rnd.nextInt(3) == 0 ? t.nodes(t.racks().get(0)).get(0) : null;
      boolean directory = rnd.nextBoolean();
      List<SourceFile> files = new ArrayList<>();
      long block = 1073741825L;
      for (int i = 0, count = directory ? 1 + rnd.nextInt(5) : 1; i < count; i++) {
        int blocks = 1 + rnd.nextInt(3 * code.k());
        files.add(PlanFixtures.file(rnd, t, "/data/f" + i, 16386 + i, block, blocks, 64 * MIB, 1 + rnd.nextInt(64) * MIB,
            writer));
        block += blocks;
      }
      ArchivalRequest req = new ArchivalRequest(directory ? "/data" : files.get(0).path(),
          directory ? ArchiveScope.DIRECTORY : ArchiveScope.FILE, files,
          shape.spec(), shape.kind(), t, rnd.nextInt(100));
      PlanChecks.assertHolds(req, ArchivalPlanner.plan(req));
    }
  }

  @Test
  void fileLevelStripesTakeTheFilesBlocksInOrderAndPadTheLastOneVirtually() {
    Topology t = PlanFixtures.topology(3, 3, 3, 3, 3);
    SourceFile f = PlanFixtures.file(new Random(1), t, "/data/big", 16386, 1073741825L, 10, 100, 40, null);
    ArchivalPlan plan = ArchivalPlanner.plan(file("azure-lrc:k=4,l=2,g=1", PlacementKind.CL, t, f));
    assertEquals(3, plan.stripes().size());
    for (int s = 0; s < 3; s++) {
      for (int u = 0; u < 4 && 4 * s + u < 10; u++) {
        assertEquals(4 * s + u, plan.stripes().get(s).unit(u).block().index(), "stripe " + s + " unit " + u);
      }
    }
    PlannedStripe last = plan.stripes().get(2);
    assertEquals(List.of(PlannedUnit.Action.VIRTUAL, PlannedUnit.Action.VIRTUAL), List.of(last.unit(2).action(),
        last.unit(3).action()), "units past the last block are padding");
    assertEquals(PlannedUnit.Action.WRITE, last.unit(5).action(), "the first group's local parity covers blocks 8, 9");
    assertEquals(PlannedUnit.Action.VIRTUAL, last.unit(6).action(), "the second group's local parity covers padding");
    // 2 x (400 data + 3 x 100 parity) + (140 data + 2 x 100 parity) over 940 logical bytes.
    assertEquals(940, plan.logicalBytes());
    assertEquals(1740, plan.storedBytes());
    assertEquals(1740.0 / 940, plan.redundancy(), 1e-12);
    assertEquals(7.0 / 4, plan.redundancyOfFullStripes(), 1e-12);
    assertEquals(2, plan.paddingUnits());
    assertEquals(200, plan.paddingBytes());
  }

  @Test
  void directoryLevelStripesPackSmallFilesEndToEnd() {
    Topology t = PlanFixtures.topology(3, 3, 3, 3, 3);
    Random rnd = new Random(2);
    List<SourceFile> files = List.of(PlanFixtures.file(rnd, t, "/d/a", 11, 100, 3, 10, 10, null),
        PlanFixtures.file(rnd, t, "/d/b", 12, 200, 2, 10, 10, null),
        PlanFixtures.file(rnd, t, "/d/c", 13, 300, 4, 10, 10, null));
    ArchivalRequest req = new ArchivalRequest("/d", ArchiveScope.DIRECTORY, files, "azure-lrc:k=4,l=2,g=1",
        PlacementKind.CL, t, 40);
    ArchivalPlan plan = ArchivalPlanner.plan(req);
    List<List<String>> stripes = new ArrayList<>();
    for (PlannedStripe s : plan.stripes()) {
      stripes.add(s.units().stream().filter(PlannedUnit::isStoredData)
          .map(u -> u.block().file().path() + "#" + u.block().index()).toList());
    }
    assertEquals(List.of(List.of("/d/a#0", "/d/a#1", "/d/a#2", "/d/b#0"), List.of("/d/b#1", "/d/c#0", "/d/c#1", "/d/c#2"),
        List.of("/d/c#3")), stripes);
    assertEquals(List.of(40L, 41L, 42L), plan.stripes().stream().map(PlannedStripe::stripeId).toList());
    PlanChecks.assertHolds(req, plan);
    StripeManifest m = plan.toManifest(id -> "/.wideec/parity/d-" + id);
    assertArrayEquals(new long[] {40, 41}, m.stripesOf(12), "/d/b spans two stripes");
    assertTrue(new ArchivePointer("/.wideec/manifests/d", m.stripesOf(13)).toBytes().length < 1024);
  }

  /** Plans a file of {@code blocks} blocks on a random topology and checks every rule; returns the plan. */
  static ArchivalPlan planChecked(long seed, int racks, int minNodes, int maxNodes, String spec, PlacementKind kind,
      int blocks, long lastLength) {
    Random rnd = new Random(seed);
    Topology t = PlanFixtures.randomTopology(rnd, racks, minNodes, maxNodes);
    SourceFile f = PlanFixtures.file(rnd, t, "/data/big", 16386, 1073741825L, blocks, 128 * MIB, lastLength, null);
    ArchivalRequest req = file(spec, kind, t, f);
    ArchivalPlan plan = ArchivalPlanner.plan(req);
    PlanChecks.assertHolds(req, plan);
    return plan;
  }

  @Test
  void wideAzureLrc128UnderCombinedLocalityOnFortyRacks() {
    ArchivalPlan plan = planChecked(3, 40, 8, 12, "azure-lrc:k=128,r=27,g=3", PlacementKind.CL, 266, 5 * MIB);
    assertEquals(3, plan.stripes().size());
    assertEquals(List.of(34, 34, 5), plan.stripes().stream().map(s -> s.unitsPerRack().size()).toList(),
        "(136,128,27,34) CL: 34 racks of f = 4 (ECWide §3.4); the 10-block stripe needs 5");
    assertEquals(136.0 / 128, plan.redundancyOfFullStripes(), 0.01 * 136 / 128, "within 1% of n/k");
    assertEquals(118, plan.paddingUnits());
    PlannedStripe last = plan.stripes().get(2);
    assertEquals(4, last.count(PlannedUnit.Action.WRITE), "3 global parities and the first group's local parity");
    for (PlannedStripe s : plan.stripes()) {
      assertTrue(s.bytesMoved() < s.bytesMovedWithPlanRacks(), "reslotting a group's blocks over its racks pays off");
      assertEquals(4, s.chain().streams(), "3 global rows and one local row are open at once");
    }
  }

  @Test
  void uniLrcPlacesOneLocalGroupPerRack() {
    ArchivalPlan plan = planChecked(4, 8, 7, 10, "unilrc:alpha=1,z=6", PlacementKind.UNILRC, 70, 128 * MIB);
    assertEquals(List.of(6, 6, 6), plan.stripes().stream().map(s -> s.unitsPerRack().size()).toList());
    assertEquals(42.0 / 30, plan.redundancyOfFullStripes(), 1e-12);
  }

  @Test
  void wideReedSolomonFlatAndAzureLrc64CombinedLocalityHold() {
    assertEquals(68, planChecked(5, 72, 2, 4, "rs:k=64,m=4", PlacementKind.FLAT, 64, 128 * MIB).stripes().get(0)
        .unitsPerRack().size());
    assertEquals(17, planChecked(6, 20, 5, 8, "azure-lrc:k=64,l=4,g=4", PlacementKind.CL, 64, 128 * MIB).stripes()
        .get(0).unitsPerRack().size());
  }

  @Test
  void chainCarriesEveryReedSolomonRowAcrossEachRack() {
    // rs:k=4,m=2 under combined locality (f = 2): {0,1} {2,3} {4,5}. Blocks 0, 1 on /r0, blocks 2, 3 on /r1.
    Topology t = PlanFixtures.topology(2, 2, 2, 1);
    SourceFile f = fileWithReplicas("/data/rs", List.of(List.of("r0n0"), List.of("r0n1"), List.of("r1n0", "r0n0"),
        List.of("r1n1")), t);
    ArchivalPlan plan = ArchivalPlanner.plan(file("rs:k=4,m=2", PlacementKind.CL, t, f));
    PlannedStripe s = plan.stripes().get(0);
    assertEquals(0, s.bytesMoved());
    assertEquals(List.of(List.of(0, 1, 2, 3)), s.chain().trees(), "one tree of both rows, rack by rack");
    // /r0 to /r1 and /r1 to the collector in /r2 carry both partial sums; the other parity is delivered inside /r2.
    assertEquals(4 * 100, s.chain().crossRackStreamBytes());
    assertEquals(0, s.chain().crossRackDeliveryBytes());
    assertEquals(4 * 100, s.chain().crossRackBytes());
    assertEquals(2, s.chain().streams());
    // Classic: an encoder in /r0 reads block 2 there too, pulls block 3 and writes both parities across: 3 blocks.
    assertEquals("/r0", s.classic().encoderRack());
    assertEquals("r0n0", s.classic().encoderNode(), "r0n0 holds blocks 0 and 2");
    assertEquals(100, s.classic().crossRackReadBytes());
    assertEquals(200, s.classic().crossRackWriteBytes());
  }

  @Test
  void chainDropsALocalRowOnceItsGroupIsDone() {
    // azure-lrc:k=4,l=2,g=1 under combined locality (f = 2): {0,1} {4,5} {2,3} {6}; global 4, local 5 over {0,1},
    // local 6 over {2,3}.
    Topology t = PlanFixtures.topology(2, 2, 2, 2);
    SourceFile f = fileWithReplicas("/data/lrc", List.of(List.of("r0n0"), List.of("r0n1"), List.of("r2n0"),
        List.of("r2n1")), t);
    PlannedStripe s = ArchivalPlanner.plan(file("azure-lrc:k=4,l=2,g=1", PlacementKind.CL, t, f)).stripes().get(0);
    assertEquals(0, s.bytesMoved());
    assertEquals(List.of(List.of(0, 1, 2, 3), List.of(0, 1), List.of(2, 3)), s.chain().trees(),
        "the global row's tree, then one per local parity over its group");
    // G crosses from {0,1}'s rack to {2,3}'s and on to its own; L0 and L1 cross once each to their parity's rack.
    assertEquals(4 * 100, s.chain().crossRackBytes());
    assertEquals(s.unit(5).rack(), s.unit(4).rack(), "the global parity shares its rack with L0 (ECWide's packing)");
  }

  @Test
  void parityTargetsSpreadOverTheRacksNodes() {
    // Data of every stripe lives in /r0 and /r1, so each stripe's parity rack {4,5} is /r2: 6 stripes write 12
    // parities to its 3 nodes, 4 each.
    Topology t = PlanFixtures.topology(2, 2, 3);
    List<List<String>> replicas = new ArrayList<>();
    for (int i = 0; i < 24; i++) {
      replicas.add(List.of(i % 4 < 2 ? "r0n" + i % 2 : "r1n" + i % 2));
    }
    SourceFile f = fileWithReplicas("/data/many", replicas, t);
    ArchivalPlan plan = ArchivalPlanner.plan(file("rs:k=4,m=2", PlacementKind.CL, t, f));
    Map<String, Integer> writes = new HashMap<>();
    plan.stripes().forEach(s -> s.units().stream().filter(u -> u.action() == PlannedUnit.Action.WRITE)
        .forEach(u -> writes.merge(u.node(), 1, Integer::sum)));
    assertEquals(Map.of("r2n0", 4, "r2n1", 4, "r2n2", 4), writes);
    assertEquals(0, plan.bytesMoved());
  }

  @Test
  void aPlanPrintsAsTextAndJson() throws Exception {
    Random rnd = new Random(6);
    Topology t = PlanFixtures.randomTopology(rnd, 6, 3, 4);
    SourceFile f = PlanFixtures.file(rnd, t, "/data/p", 16386, 1073741825L, 9, 128 * MIB, MIB, null);
    ArchivalPlan plan = ArchivalPlanner.plan(file("azure-lrc:k=4,l=2,g=1", PlacementKind.CL, t, f));
    String text = plan.describe();
    assertTrue(text.startsWith("archive /data/p (file: 1 file, 9 blocks, 1.00 GiB) with azure-lrc:k=4,l=2,g=1 (n=7, k=4),"
        + " cl placement"), text);
    assertTrue(text.contains("3 stripes, the last one short: 1 data block, 3 virtual data units"), text);
    assertTrue(text.contains("redundancy after: "), text);
    assertTrue(text.contains("stripes grouped by files: asked for"), text);
    assertEquals(6 + 1 + 3, text.lines().count(), "summary, table header, one line per stripe: " + text);
    String units = plan.describeUnits(2);
    assertTrue(units.contains("/data/p block 8 (id 1073741833)"), units);
    assertTrue(units.lines().anyMatch(l -> l.startsWith("6     l     virtual")), units);
    String json = new ObjectMapper().writeValueAsString(plan.toJson());
    assertTrue(json.contains("\"redundancyAfter\":"), json);
    assertTrue(json.contains("\"crossRackBytesChain\":"), json);
    @SuppressWarnings("unchecked")
    Map<String, Object> back = new ObjectMapper().readValue(json, Map.class);
    assertEquals(3, ((List<?>) back.get("stripes")).size());
    assertEquals(plan.bytesMoved(), ((Number) back.get("bytesMoved")).longValue());
  }

  @Test
  void tooFewRacksIsRefusedNamingTheStripe() {
    Random rnd = new Random(7);
    Topology t = PlanFixtures.randomTopology(rnd, 30, 8, 8);
    SourceFile f = PlanFixtures.file(rnd, t, "/data/big", 16386, 1073741825L, 128, 128 * MIB, 128 * MIB, null);
    ArchivalPlanException e = assertThrows(ArchivalPlanException.class,
        () -> ArchivalPlanner.plan(file("azure-lrc:k=128,r=27,g=3", PlacementKind.CL, t, f)));
    assertTrue(e.getMessage().startsWith("stripe 0 of /data/big (azure-lrc:k=128,r=27,g=3, blocks /data/big block 0"),
        e.getMessage());
    assertTrue(e.getMessage().contains("needs 34 racks holding [4, 4,"), e.getMessage());
    assertTrue(e.getMessage().endsWith("the live topology has 30 racks"), e.getMessage());
  }

  @Test
  void tooFewNodesPerRackIsRefusedNamingTheRackSize() {
    Random rnd = new Random(8);
    Topology t = PlanFixtures.randomTopology(rnd, 6, 6, 6);
    SourceFile f = PlanFixtures.file(rnd, t, "/data/u", 16386, 1073741825L, 30, 128 * MIB, 128 * MIB, null);
    ArchivalPlanException e = assertThrows(ArchivalPlanException.class,
        () -> ArchivalPlanner.plan(file("unilrc:alpha=1,z=6", PlacementKind.UNILRC, t, f)));
    assertTrue(e.getMessage().contains("puts 7 units, one per node, into its 1st largest rack, but the 1st largest"
        + " live rack has 6 nodes"), e.getMessage());
  }

  @Test
  void aBlockWithoutALiveReplicaIsRefusedNamingIt() {
    Topology t = PlanFixtures.topology(2, 2, 2);
    SourceFile f = new SourceFile("/data/lost", 16386, 200, 100, List.of(
        new SourceFile.Block(1073741825L, 1001, 100, List.of(new Site("r0n0", "/r0"))),
        new SourceFile.Block(1073741826L, 1002, 100, List.of(new Site("gone1", "/r9"),
            new Site("gone2", "/r9")))));
    ArchivalPlanException e = assertThrows(ArchivalPlanException.class,
        () -> ArchivalPlanner.plan(file("rs:k=4,m=2", PlacementKind.CL, t, f)));
    assertTrue(e.getMessage().contains("/data/lost block 1 (id 1073741826) has no live replica (replicas on [gone1,"
        + " gone2])"), e.getMessage());
  }

  @Test
  void aCodeThatMayNotStoreDataIsRefusedNamingTheSpec() {
    Topology t = PlanFixtures.topology(2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2);
    SourceFile f = PlanFixtures.file(new Random(9), t, "/data/x", 16386, 1073741825L, 4, 100, 100, null);
    ArchivalPlanException unpinned = assertThrows(ArchivalPlanException.class,
        () -> ArchivalPlanner.plan(file("rs:k=40,m=3", PlacementKind.FLAT, t, f)));
    assertTrue(unpinned.getMessage().contains("rs:k=40,m=3 is not a code of on-disk format 1"), unpinned.getMessage());
    ArchivalPlanException coded = assertThrows(ArchivalPlanException.class,
        () -> ArchivalPlanner.plan(file("rapidraid:n=8,k=4", PlacementKind.FLAT, t, f)));
    assertTrue(coded.getMessage().contains("rapidraid:n=8,k=4: it is not systematic"), coded.getMessage());
    ArchivalPlanException groupless = assertThrows(ArchivalPlanException.class,
        () -> ArchivalPlanner.plan(file("rs:k=4,m=2", PlacementKind.UNILRC, t, f)));
    assertTrue(groupless.getMessage().contains("rs:k=4,m=2 has no local groups to place one per rack"),
        groupless.getMessage());
  }

  @Test
  void malformedRequestsAreRefusedNamingTheFileOrBlock() {
    Topology t = PlanFixtures.topology(3, 3, 3);
    Random rnd = new Random(10);
    SourceFile a = PlanFixtures.file(rnd, t, "/d/a", 11, 100, 2, 10, 10, null);
    SourceFile b = PlanFixtures.file(rnd, t, "/d/b", 12, 101, 2, 10, 10, null);
    Exception e = assertThrows(ArchivalPlanException.class, () -> ArchivalPlanner.plan(
        new ArchivalRequest("/d", ArchiveScope.FILE, List.of(a, b), "rs:k=4,m=2", PlacementKind.CL, t)));
    assertTrue(e.getMessage().contains("a file-level archive takes exactly one file, got 2"), e.getMessage());
    e = assertThrows(ArchivalPlanException.class, () -> ArchivalPlanner.plan(
        new ArchivalRequest("/d", ArchiveScope.DIRECTORY, List.of(a, b), "rs:k=4,m=2", PlacementKind.CL, t)));
    assertTrue(e.getMessage().contains("/d/b block 0 (id 101) is also /d/a block 1 (id 101)"), e.getMessage());
    e = assertThrows(ArchivalPlanException.class, () -> ArchivalPlanner.plan(
        new ArchivalRequest("/e", ArchiveScope.DIRECTORY, List.of(a), "rs:k=4,m=2", PlacementKind.CL, t)));
    assertEquals("/d/a is not under the archived directory /e", e.getMessage());
    SourceFile wrongRack = new SourceFile("/d/w", 13, 10, 10, List.of(new SourceFile.Block(500, 1001, 10,
        List.of(new Site("r0n0", "/r2")))));
    e = assertThrows(ArchivalPlanException.class, () -> ArchivalPlanner.plan(file("rs:k=4,m=2", PlacementKind.CL, t,
        wrongRack)));
    assertTrue(e.getMessage().contains("/d/w block 0 (id 500) has a replica on r0n0 in rack /r2, but the topology has"
        + " that node in rack /r0"), e.getMessage());
    e = assertThrows(ArchivalPlanException.class, () -> new SourceFile("/d/open", 14, 15, 10, List.of(
        new SourceFile.Block(600, 1001, 10, List.of()))));
    assertTrue(e.getMessage().contains("/d/open: its blocks hold 10 bytes, the file 15"), e.getMessage());
  }

  @Test
  void aRackWhoseLossTheCodeCannotDecodeIsRefusedNamingRackAndStripe() {
    LinearCode code = Codes.pinnedFromSpec("azure-lrc:k=4,l=2,g=1");
    List<PlannedUnit> units = new ArrayList<>();
    for (int u = 0; u < code.n(); u++) {
      String rack = u < 4 ? "/r0" : "/r" + u;
      units.add(new PlannedUnit(u, code.role(u), code.role(u) == UnitRole.DATA ? PlannedUnit.Action.KEEP
          : PlannedUnit.Action.WRITE, null, 1, "n" + u, rack, null, null));
    }
    ArchivalPlanException e = assertThrows(ArchivalPlanException.class,
        () -> ArchivalPlanner.requireRackLossDecodable(code, "stripe 5 of /d", units));
    assertEquals("stripe 5 of /d: losing rack /r0 (units [0, 1, 2, 3]) is more than azure-lrc:k=4,l=2,g=1 decodes;"
        + " refusing the plan", e.getMessage());
  }

  /** A file of 100-byte blocks whose replicas are on the given nodes. */
  static SourceFile fileWithReplicas(String path, List<List<String>> nodes, Topology t) {
    List<SourceFile.Block> blocks = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      blocks.add(new SourceFile.Block(1073741825L + i, 1001 + i, 100, nodes.get(i).stream()
          .map(n -> new Site(n, PlanFixtures.rackOf(t, n))).toList()));
    }
    return new SourceFile(path, 16386, 100L * nodes.size(), 100, blocks);
  }
}
