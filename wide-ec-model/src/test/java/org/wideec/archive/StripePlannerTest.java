package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.topology.Site;
import org.wideec.topology.Topology;

class StripePlannerTest {
  private static final Topology THREE_RACKS = Topology.uniform(3, 4);

  /** Six blocks of 100, 100, 100, 100, 100 and 40 bytes. */
  private static SourceFile sixBlocks() {
    List<SourceFile.Block> blocks = new ArrayList<>();
    for (int b = 0; b < 6; b++) {
      blocks.add(new SourceFile.Block(1000 + b, 7, b == 5 ? 40 : 100, List.of(new Site("rack0-node0", "/rack0"))));
    }
    return new SourceFile("/f", 16386, 540, 100, blocks);
  }

  @Test
  void aSealedFileIsCutIntoStripesOfKPiecesEachAtItsOffsetInTheFile() {
    StripeManifest m = SealedPlanner.plan(sixBlocks(), SealedManifestTest.RR, THREE_RACKS, id -> "/cw/" + id);
    assertEquals(2, m.stripes().size());
    ArchivedStripe first = m.stripes().get(0);
    ArchivedStripe last = m.stripes().get(1);
    assertEquals(List.of(0L, 100L, 200L, 300L), first.sources().stream().map(SourcePiece::offset).toList());
    assertEquals(List.of(400L, 500L), last.sources().stream().map(SourcePiece::offset).toList());
    assertEquals(List.of(1004L, 1005L), last.sources().stream().map(SourcePiece::blockId).toList());
    assertEquals(List.of(100L, 40L), last.sources().stream().map(SourcePiece::length).toList());
    assertEquals(100, last.unitLength(), "a short stripe's unit is its longest piece");
    assertEquals("/cw/1", last.parityFilePath());
    assertEquals(StripeState.PLANNED, last.state());
  }

  @Test
  void sealedCodewordsAreDealtAcrossRacksAndEachStripeStartsWhereTheLastEnded() {
    StripeManifest m = SealedPlanner.plan(sixBlocks(), SealedManifestTest.RR, THREE_RACKS, id -> "/cw/" + id);
    assertEquals(List.of("rack0-node0", "rack1-node0", "rack2-node0", "rack0-node1", "rack1-node1", "rack2-node1",
        "rack0-node2", "rack1-node2"), nodes(m.stripes().get(0)));
    assertEquals(List.of("rack2-node2", "rack0-node3", "rack1-node3", "rack2-node3", "rack0-node0", "rack1-node0",
        "rack2-node0", "rack0-node1"), nodes(m.stripes().get(1)));
    for (StripeMember w : m.stripes().get(1).members()) {
      assertEquals("/" + w.plannedNode().substring(0, 5), w.plannedRack());
    }
  }

  @Test
  void eachLayoutRefusesACodeOfTheOtherLayoutNamingThePath() {
    String rr = Codes.pinnedFromSpec(SealedManifestTest.RR).spec();
    String lrc = Codes.pinnedFromSpec(ManifestFixtures.LRC).spec();
    ArchivalPlanException systematic = assertThrows(ArchivalPlanException.class,
        () -> SealedPlanner.plan(sixBlocks(), ManifestFixtures.LRC, THREE_RACKS, id -> "/cw/" + id));
    assertEquals(lrc + " is systematic: archive /f in the ordinary layout, which keeps its blocks as they are",
        systematic.getMessage());
    ArchivalPlanException nonSystematic = assertThrows(ArchivalPlanException.class,
        () -> ArchivalPlanner.plan(new ArchivalRequest("/f", ArchiveScope.FILE, List.of(sixBlocks()),
            SealedManifestTest.RR, PlacementKind.FLAT, THREE_RACKS)));
    assertEquals("cannot archive /f with " + rr + ": it is not systematic, and archival keeps the data blocks as they"
        + " are (RapidRAID's pipelined archival rewrites them and is planned separately)", nonSystematic.getMessage());
  }

  @Test
  void aSpecThatIsNoPinnedCodeIsRefusedNamingThePathInEitherLayout() {
    for (StripeLayout layout : StripeLayout.values()) {
      ArchivalPlanException e = assertThrows(ArchivalPlanException.class,
          () -> StripePlanner.code(layout, "/f", "no-such-code:k=4"));
      assertEquals(true, e.getMessage().startsWith("cannot archive /f: "), e.getMessage());
    }
  }

  private static List<String> nodes(ArchivedStripe s) {
    return s.members().stream().map(StripeMember::plannedNode).toList();
  }
}
