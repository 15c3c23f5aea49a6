package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.wideec.code.UnitRole;

/** The summary status and archive print, and the rollback a resumed archival records. */
class ArchiveSummaryTest {
  @Test
  void theGoldenManifestCountsItsStatesDataAndParity() {
    ArchiveSummary s = ArchiveSummary.of(ManifestFixtures.golden());
    assertEquals(2, s.stripes());
    assertEquals(1, s.count(StripeState.VERIFIED));
    assertEquals(1, s.count(StripeState.PLANNED));
    assertEquals(0, s.count(StripeState.COMMITTED));
    assertEquals(3 * 4096 + 1000 + 512, s.logicalBytes(), "stripe 7: 3 x 4096 + 1000; stripe 8: 512");
    assertEquals(3 * 4096 + 2 * 512, s.parityBytes(), "stripe 8's second local parity is virtual");
    assertEquals(3 * 4096, s.parityBytesWritten(), "only stripe 7's parity exists");
    assertEquals((double) (13800 + 13312) / 13800, s.redundancyAfterTrim(), 1e-12);
    assertEquals(List.of("planned", "encoding", "parity_written", "verified", "committed", "trimmed", "stale"),
        List.copyOf(s.toJson().keySet()));
  }

  @Test
  void aRollbackForgetsParityBlocksAndDataCrcsButKeepsThePlanAndParityPath() {
    ArchivedStripe verified = ManifestFixtures.golden().stripe(7);
    IllegalStateException e = assertThrows(IllegalStateException.class, verified::rolledBack);
    assertTrue(e.getMessage().contains("stripe 7: VERIFIED -> PLANNED is not a transition"), e.getMessage());

    ArchivedStripe written = new ArchivedStripe(7, verified.codeSpec(), 1, StripeState.PARITY_WRITTEN,
        verified.parityFilePath(), verified.parityFileInode(), verified.members());
    ArchivedStripe back = written.rolledBack();
    assertEquals(StripeState.PLANNED, back.state());
    assertEquals("/.wideec/parity/16386-7", back.parityFilePath());
    assertEquals(0, back.parityFileInode());
    for (int u = 0; u < back.members().size(); u++) {
      StripeMember was = written.member(u);
      StripeMember now = back.member(u);
      assertEquals(was.plannedNode(), now.plannedNode());
      assertEquals(was.length(), now.length());
      assertEquals(false, now.hasCrc(), "unit " + u);
      assertEquals(was.role() == UnitRole.DATA ? was.blockId() : 0, now.blockId(), "unit " + u);
    }
  }

  @Test
  void aParityMayNotSitInAFileThatHoldsDataOfTheStripe() {
    ArchivedStripe s = ManifestFixtures.golden().stripe(7);
    List<StripeMember> members = new java.util.ArrayList<>(s.members());
    StripeMember g = members.get(4);
    members.set(4, new StripeMember(g.role(), false, 16386, g.blockId(), g.generationStamp(), g.length(), g.crc32c(),
        g.plannedNode(), g.plannedRack()));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.withMembers(members));
    assertTrue(e.getMessage().contains("unit 4 (GLOBAL_PARITY, block 1073741900): parity block of inode 16386, which"
        + " holds data of the stripe"), e.getMessage());
  }
}
