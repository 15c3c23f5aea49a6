package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.wideec.topology.Site;
import org.wideec.topology.Topology;

/**
 * Stripes grouped around core racks (EAR): with every member's replica in one rack the chain computes the parity
 * there, so only the parities' deliveries cross racks, and none that the plan puts in the core rack itself; auto keeps
 * file order where it costs as little.
 */
class CoreRackGroupingTest {
  private static final long L = PlanFixtures.MIB;
  private static final String RS = "rs:k=4,m=2";
  /** Six racks of three nodes: rs:k=4,m=2 flat puts one unit in each. */
  private final Topology t = PlanFixtures.topology(3, 3, 3, 3, 3, 3);

  /**
   * A block as HDFS's default policy leaves it for a writer outside the racks: one replica on {@code first} in rack
   * {@code a}, two in rack {@code b}.
   */
  private static SourceFile.Block block(long id, int a, int first, int b) {
    return new SourceFile.Block(id, 1000 + id, L, List.of(new Site("r" + a + "n" + first, "/r" + a),
        new Site("r" + b + "n0", "/r" + b), new Site("r" + b + "n1", "/r" + b)));
  }

  private static SourceFile file(String path, long inode, List<SourceFile.Block> blocks) {
    return new SourceFile(path, inode, L * blocks.size(), L, blocks);
  }

  /** x1..x4 have a replica in rack 0, y1..y4 in rack 5; each one's other two replicas in racks 1..4. */
  private static List<SourceFile.Block> xs() {
    List<SourceFile.Block> out = new ArrayList<>();
    for (int i = 1; i <= 4; i++) {
      out.add(block(100 + i, 0, (i - 1) % 3, i));
    }
    return out;
  }

  private static List<SourceFile.Block> ys() {
    List<SourceFile.Block> out = new ArrayList<>();
    for (int i = 1; i <= 4; i++) {
      out.add(block(200 + i, 5, (i - 1) % 3, i));
    }
    return out;
  }

  private ArchivalRequest dir(List<SourceFile> files, ArchiveGrouping g) {
    return new ArchivalRequest("/d", ArchiveScope.DIRECTORY, files, RS, PlacementKind.FLAT, t, 0, g);
  }

  /** Files that interleave the two core racks: /d/a = x1 y1 x2 y2, /d/b = x3 y3 x4 y4. */
  private List<SourceFile> interleaved() {
    List<SourceFile.Block> x = xs();
    List<SourceFile.Block> y = ys();
    return List.of(file("/d/a", 16386, List.of(x.get(0), y.get(0), x.get(1), y.get(1))),
        file("/d/b", 16387, List.of(x.get(2), y.get(2), x.get(3), y.get(3))));
  }

  private static List<List<Long>> blockIds(ArchivalPlan p) {
    return p.stripes().stream().map(s -> s.units().stream().filter(PlannedUnit::isStoredData)
        .map(u -> u.block().blockId()).toList()).toList();
  }

  @Test
  void groupingByRacksGathersEachStripeInACoreRackAndCutsTheChainFrom14To2Units() {
    ArchivalPlan files = ArchivalPlanner.plan(dir(interleaved(), ArchiveGrouping.FILES));
    ArchivalPlan racks = ArchivalPlanner.plan(dir(interleaved(), ArchiveGrouping.RACKS));
    assertEquals(List.of(List.of(101L, 201L, 102L, 202L), List.of(103L, 203L, 104L, 204L)), blockIds(files));
    assertEquals(List.of(List.of(101L, 102L, 103L, 104L), List.of(201L, 202L, 203L, 204L)), blockIds(racks),
        "a stripe per core rack, members in file order");
    assertEquals(List.of("/r0", "/r5"), racks.stripes().stream().map(s -> s.chain().coreRack()).toList());
    assertEquals(0, racks.bytesMoved(), "each block keeps a replica on the plan");
    // File order: each stripe's data in 4 racks, parities in 2 others: 7 units across racks per stripe. A parity in
    // its core rack (the rack of most members' replicas) would cost a block moved across racks and send 6: never a
    // move more for a delivery less (the move waits for the trim, so the chain reads the block where it is).
    assertEquals(0, files.bytesMoved());
    assertEquals(14 * L, files.crossRackBytesPlanned());
    assertEquals(List.of(7 * L, 7 * L), files.stripes().stream()
        .map(PlannedStripe::crossRackBytesWithFewestMoves).toList());
    // Racks: each stripe has one parity in its core rack, where the rows are finished, and delivers the other: 1 unit
    // (m/k of the data would cross with both parities outside the core rack).
    assertEquals(List.of(L, L), racks.stripes().stream().map(PlannedStripe::crossRackBytesPlanned).toList());
    assertEquals(List.of("/r0", "/r5"), racks.stripes().stream().map(s -> s.units().stream()
        .filter(u -> u.action() == PlannedUnit.Action.WRITE && u.rack().equals(s.chain().coreRack()))
        .map(PlannedUnit::rack).findFirst().orElse("none")).toList(), "a parity in each core rack");
    assertEquals(2 * L, racks.crossRackBytesPlanned());
    ArchivalPlan auto = ArchivalPlanner.plan(dir(interleaved(), ArchiveGrouping.AUTO));
    assertEquals(ArchiveGrouping.RACKS, auto.grouping());
    assertEquals("auto: chain archival across racks 2.00 MiB (2097152 B) grouped by racks, 14.00 MiB (14680064 B) in"
        + " file order", auto.groupingReason());
    assertEquals(blockIds(racks), blockIds(auto));
    assertTrue(auto.describe().contains("stripes grouped by racks: auto: "), auto.describe());
    assertEquals("racks", auto.toJson().get("grouping"));
  }

  /**
   * wide-ec.archive.chain.reads=planned: the same stripes, grouped around their core racks, read every block on its
   * planned node instead (no core rack), and the dry run costs that chain, never less than the cheaper reading's.
   */
  @Test
  void readingThePlannedNodesCostsTheChainThatReadsEveryBlockOnItsPlannedNode() {
    ArchivalPlan racks = ArchivalPlanner.plan(dir(interleaved(), ArchiveGrouping.RACKS));
    ArchivalPlan cheaper = racks.withChainShape(org.wideec.archive.encode.EncodePlan.Shape.CHAIN,
        org.wideec.archive.encode.ChainReads.CHEAPER);
    ArchivalPlan planned = racks.withChainShape(org.wideec.archive.encode.EncodePlan.Shape.CHAIN,
        org.wideec.archive.encode.ChainReads.PLANNED);
    assertEquals(List.of("/r0", "/r5"), cheaper.stripes().stream().map(s -> s.chain().coreRack()).toList());
    for (int i = 0; i < planned.stripes().size(); i++) {
      PlannedStripe s = planned.stripes().get(i);
      assertEquals(null, s.chain().coreRack(), "stripe " + i);
      Map<Integer, String> onPlan = new java.util.TreeMap<>();
      s.units().stream().filter(PlannedUnit::isStoredData).forEach(u -> onPlan.put(u.unit(), u.node()));
      assertEquals(onPlan, new java.util.TreeMap<>(s.chain().sources()), "stripe " + i);
      assertTrue(s.chain().crossRackBytes() >= cheaper.stripes().get(i).chain().crossRackBytes(), "stripe " + i);
    }
    assertEquals(org.wideec.archive.encode.ChainReads.PLANNED,
        org.wideec.archive.encode.ChainReads.of(" Planned "));
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> org.wideec.archive.encode.ChainReads.of("core"));
    assertEquals("wide-ec.archive.chain.reads must be cheaper or planned, got 'core'", e.getMessage());
  }

  /**
   * azure-lrc:k=4,l=2,g=1 flat over 7 racks: each stripe's core rack keeps one of its blocks (x4 and x1 share their
   * other rack), so its three parities go to three other racks and each of its three trees (the global row, a local
   * row per group) sends one finished row across: exactly m/k of the data.
   */
  @Test
  void aCoreRackStripeWhoseParitiesAllLieElsewhereSendsExactlyMOverKOfTheDataAcrossRacks() {
    Topology seven = PlanFixtures.topology(3, 3, 3, 3, 3, 3, 3);
    List<SourceFile.Block> x = List.of(block(101, 0, 0, 1), block(102, 0, 1, 2), block(103, 0, 2, 3),
        new SourceFile.Block(104, 1104, L, List.of(new Site("r1n2", "/r1"), new Site("r0n0", "/r0"),
            new Site("r0n1", "/r0"))));
    List<SourceFile.Block> y = List.of(block(201, 6, 0, 1), block(202, 6, 1, 2), block(203, 6, 2, 3),
        new SourceFile.Block(204, 1204, L, List.of(new Site("r1n2", "/r1"), new Site("r6n0", "/r6"),
            new Site("r6n1", "/r6"))));
    List<SourceFile> files = List.of(file("/d/a", 16386, List.of(x.get(0), y.get(0), x.get(1), y.get(1))),
        file("/d/b", 16387, List.of(x.get(2), y.get(2), x.get(3), y.get(3))));
    ArchivalPlan racks = ArchivalPlanner.plan(new ArchivalRequest("/d", ArchiveScope.DIRECTORY, files,
        "azure-lrc:k=4,l=2,g=1", PlacementKind.FLAT, seven, 0, ArchiveGrouping.AUTO));
    assertEquals(ArchiveGrouping.RACKS, racks.grouping(), racks.groupingReason());
    assertEquals(List.of("/r0", "/r6"), racks.stripes().stream().map(s -> s.chain().coreRack()).toList());
    assertEquals(0, racks.bytesMoved());
    for (PlannedStripe s : racks.stripes()) {
      assertEquals(1, s.unitsPerRack().get(s.chain().coreRack()), "stripe " + s.stripeId() + " keeps a block there");
      assertEquals(3 * L, s.crossRackBytesPlanned(), "stripe " + s.stripeId());
    }
    long data = 8 * L;
    assertEquals(data * 3 / 4, racks.crossRackBytesPlanned(), "m/k = 3/4 of the data");
  }

  @Test
  void whereFileOrderAlreadyGathersEachStripeInARackAutoKeepsFileOrder() {
    List<SourceFile> files = List.of(file("/d/a", 16386, xs()), file("/d/b", 16387, ys()));
    ArchivalPlan racks = ArchivalPlanner.plan(dir(files, ArchiveGrouping.RACKS));
    ArchivalPlan auto = ArchivalPlanner.plan(dir(files, ArchiveGrouping.AUTO));
    assertEquals(ArchiveGrouping.FILES, auto.grouping());
    assertEquals(blockIds(racks), blockIds(auto), "the same stripes either way");
    assertEquals(racks.crossRackBytesPlanned(), auto.crossRackBytesPlanned());
    assertEquals(2 * L, auto.crossRackBytesPlanned());
    assertEquals("auto: chain archival across racks 2.00 MiB (2097152 B) grouped by racks, 2.00 MiB (2097152 B) in"
        + " file order; a tie keeps file order", auto.groupingReason());
    assertEquals(List.of("/r0", "/r5"), auto.stripes().stream().map(s -> s.chain().coreRack()).toList(),
        "file-ordered stripes read in their core racks too");
  }

  @Test
  void groupingByRacksOnRandomHdfsLayoutsHoldsEveryRuleAndAutoNeverCostsMoreThanFileOrder() {
    for (long seed = 0; seed < 40; seed++) {
      Random rnd = new Random(seed);
      Topology topo = PlanFixtures.randomTopology(rnd, 6 + rnd.nextInt(3), 4, 6);
      List<SourceFile> files = new ArrayList<>();
      long block = 1073741825L;
      for (int i = 0; i < 1 + rnd.nextInt(4); i++) {
        int blocks = 1 + rnd.nextInt(30);
        files.add(PlanFixtures.file(rnd, topo, "/data/f" + i, 16386 + i, block, blocks, 4 * L, 1 + rnd.nextInt(4) * L,
            null));
        block += blocks;
      }
      String spec = rnd.nextBoolean() ? "azure-lrc:k=8,l=2,g=2" : "rs:k=6,m=3";
      ArchivalRequest req = new ArchivalRequest("/data", ArchiveScope.DIRECTORY, files, spec, PlacementKind.CL, topo,
          0, ArchiveGrouping.RACKS);
      ArchivalPlan racks = ArchivalPlanner.plan(req);
      PlanChecks.assertHolds(req, racks);
      long blocks = files.stream().mapToLong(f -> f.blocks().size()).sum();
      assertEquals(blocks, racks.dataBlocks(), "seed " + seed + ": every block in one stripe");
      assertEquals(blocks, racks.stripes().stream().flatMap(s -> s.units().stream()).filter(PlannedUnit::isStoredData)
          .map(u -> u.block().blockId()).distinct().count());
      for (int i = 0; i + 1 < racks.stripes().size(); i++) {
        assertEquals(0, racks.stripes().get(i).paddingUnits(), "seed " + seed + ": only the last stripe is short");
      }
      long files0 = ArchivalPlanner.plan(req.withGrouping(ArchiveGrouping.FILES)).crossRackBytesPlanned();
      ArchivalPlan auto = ArchivalPlanner.plan(req.withGrouping(ArchiveGrouping.AUTO));
      assertEquals(Math.min(files0, racks.crossRackBytesPlanned()), auto.crossRackBytesPlanned(), "seed " + seed);
    }
  }

  /**
   * The NameNode lists a block's replicas nearest the client first and shuffles those at one distance, so two dry runs
   * of one directory see its replicas in different orders: the plan must not depend on it, or the archive runs a plan
   * its dry run did not show.
   */
  @Test
  void theOrderTheNameNodeListsReplicasInChangesNothingInThePlan() {
    for (long seed = 0; seed < 24; seed++) {
      Random rnd = new Random(seed);
      Topology topo = PlanFixtures.randomTopology(rnd, 6, 3, 4);
      List<SourceFile> files = new ArrayList<>();
      List<SourceFile> shuffled = new ArrayList<>();
      long block = 1073741825L;
      for (int i = 0; i < 1 + rnd.nextInt(4); i++) {
        int blocks = 1 + rnd.nextInt(12);
        SourceFile f = PlanFixtures.file(rnd, topo, "/data/f" + i, 16386 + i, block, blocks, 4 * L, L, null);
        files.add(f);
        List<SourceFile.Block> reordered = new ArrayList<>();
        for (SourceFile.Block b : f.blocks()) {
          List<Site> replicas = new ArrayList<>(b.replicas());
          java.util.Collections.shuffle(replicas, rnd);
          reordered.add(new SourceFile.Block(b.blockId(), b.generationStamp(), b.length(), replicas));
        }
        shuffled.add(new SourceFile(f.path(), f.inodeId(), f.length(), f.blockSize(), reordered));
        block += blocks;
      }
      String spec = rnd.nextBoolean() ? "azure-lrc:k=4,l=2,g=1" : "rs:k=6,m=3";
      for (ArchiveGrouping g : List.of(ArchiveGrouping.RACKS, ArchiveGrouping.FILES, ArchiveGrouping.AUTO)) {
        ArchivalPlan one = ArchivalPlanner.plan(new ArchivalRequest("/data", ArchiveScope.DIRECTORY, files, spec,
            PlacementKind.CL, topo, 0, g));
        ArchivalPlan other = ArchivalPlanner.plan(new ArchivalRequest("/data", ArchiveScope.DIRECTORY, shuffled, spec,
            PlacementKind.CL, topo, 0, g));
        assertEquals(one.describe(), other.describe(), "seed " + seed + ", " + g);
        for (int s = 0; s < one.stripes().size(); s++) {
          assertEquals(one.describeUnits(s), other.describeUnits(s), "seed " + seed + ", " + g + ", stripe " + s);
        }
      }
    }
  }

  /**
   * Azure-LRC 12+2+2 with combined locality over six racks of four: the plan puts three data units of one local group
   * in each of four racks, both global parities and one local parity in a fifth, the other local parity in a sixth.
   * Every block has a replica in /r0 and two in one of /r1../r5, in file order one rack after another. Around /r0,
   * the grouping takes whole triples from one other rack at a time, so four triples fill the four data racks (one at a
   * time it took 3, 3, 2, 2, 2 and moved blocks); the planner gives each local group two triples, wherever they are in
   * file order, and realises the three-parity rack in /r0, where the chain computes every parity: nothing moves and
   * one local parity crosses racks, 1/12 of the data.
   */
  @Test
  void aWideStripeAroundItsCoreRackMovesNothingAndSendsOneParityAcross() {
    Topology six = PlanFixtures.topology(4, 4, 4, 4, 4, 4);
    List<SourceFile.Block> blocks = new ArrayList<>();
    for (int j = 0; j < 24; j++) {
      int other = 1 + j % 5;
      int q = j / 5;
      blocks.add(new SourceFile.Block(300 + j, 2000 + j, L, List.of(new Site("r0n" + j % 4, "/r0"),
          new Site("r" + other + "n" + q % 4, "/r" + other), new Site("r" + other + "n" + (q + 1) % 4, "/r" + other))));
    }
    ArchivalRequest req = new ArchivalRequest("/d", ArchiveScope.DIRECTORY, List.of(file("/d/a", 16390, blocks)),
        "azure-lrc:k=12,l=2,g=2", PlacementKind.CL, six, 0, ArchiveGrouping.RACKS);
    ArchivalPlan racks = ArchivalPlanner.plan(req);
    PlanChecks.assertHolds(req, racks);
    PlannedStripe first = racks.stripes().get(0);
    assertEquals("/r0", first.chain().coreRack());
    assertEquals(0, first.bytesMoved(), racks.describeUnits(0));
    assertEquals(L, first.crossRackBytesPlanned(), racks.describeUnits(0));
    assertEquals(3, first.units().stream().filter(u -> u.action() == PlannedUnit.Action.WRITE && u.rack().equals("/r0"))
        .count(), "three parities written in the core rack");
    // Four racks of one triple each (by their second replicas), two triples a local group.
    Map<String, List<Integer>> unitsByRack = new java.util.TreeMap<>();
    first.units().stream().filter(PlannedUnit::isStoredData)
        .forEach(u -> unitsByRack.computeIfAbsent(u.rack(), r -> new ArrayList<>()).add(u.unit()));
    assertEquals(4, unitsByRack.size(), unitsByRack.toString());
    for (List<Integer> units : unitsByRack.values()) {
      assertEquals(3, units.size(), unitsByRack.toString());
      assertEquals(1, units.stream().map(u -> u < 6).distinct().count(), "one local group a rack " + unitsByRack);
    }
    List<Long> members = first.units().stream().filter(PlannedUnit::isStoredData).map(u -> u.block().blockId())
        .toList();
    assertTrue(!members.equals(members.stream().sorted().toList()), "the members are not in file order: " + members);
    // The stripe kept with the fewest moves (the same triples) wrote its parities outside the core rack.
    assertTrue(first.crossRackBytesWithFewestMoves() > L, Long.toString(first.crossRackBytesWithFewestMoves()));
  }
}
