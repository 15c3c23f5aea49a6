package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.wideec.code.UnitRole;

/** Manifest format 2: sealed (non-systematic, RapidRAID) stripes with their source pieces. */
class SealedManifestTest {
  static final String RR = "rapidraid:n=8,k=4";
  static final String SOURCE = "/.wideec/manifests/16500.wecm";

  /** File /cold/f: stripe 0 of four 4096-byte pieces (VERIFIED), stripe 1 of one 1000-byte piece (PLANNED). */
  static StripeManifest sealed() {
    List<SourcePiece> full = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      full.add(new SourcePiece(16500, 1073741825L + t, 1001 + t, 4096, 0x1000L + t, 4096L * t));
    }
    ArchivedStripe zero = new ArchivedStripe(0, RR, 1, StripeState.VERIFIED, "/.wideec/codewords/16500/0", 16600,
        codewords(4096, true), full);
    ArchivedStripe one = new ArchivedStripe(1, RR, 1, StripeState.PLANNED, "/.wideec/codewords/16500/1", 0,
        codewords(1000, false), List.of(new SourcePiece(16500, 1073741829L, 1005, 1000, StripeMember.NO_CRC, 16384)));
    return new StripeManifest("/cold/f", ArchiveScope.FILE, List.of(zero, one));
  }

  static List<StripeMember> codewords(long length, boolean written) {
    List<StripeMember> out = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      StripeMember m = StripeMember.plannedParity(UnitRole.CODED, length, "dn" + i + ":9866", "/rack" + i / 2);
      out.add(written ? m.written(16601 + i, 1073742000L + 10 * length + i, 1200, 0xABC0L + i) : m);
    }
    return out;
  }

  @Test
  void roundTripsInFormatTwo() throws Exception {
    StripeManifest m = sealed();
    byte[] bytes = m.toBytes();
    assertEquals(StripeManifest.SEALED_FORMAT_VERSION, ByteBuffer.wrap(bytes, 4, 2).getShort());
    StripeManifest back = StripeManifest.parse(bytes, SOURCE);
    assertEquals(m, back);
    assertArrayEquals(bytes, back.toBytes());
    assertEquals(4, back.stripe(0).sources().size());
    assertEquals(1073741828L, back.stripe(0).sources().get(3).blockId());
    assertEquals(0x1003L, back.stripe(0).sources().get(3).crc32c());
    assertFalse(back.stripe(1).sources().get(0).hasCrc());
    assertArrayEquals(new long[] {0, 1}, back.stripesOf(16500));
    assertEquals(1000, back.stripe(1).unitLength());
  }

  @Test
  void systematicManifestsStayInFormatOne() throws Exception {
    byte[] golden = ManifestFixtures.goldenBytes();
    assertEquals(StripeManifest.FORMAT_VERSION, ByteBuffer.wrap(golden, 4, 2).getShort());
    assertArrayEquals(golden, ManifestFixtures.golden().toBytes());
    assertFalse(ManifestFixtures.golden().sealed());
  }

  @Test
  void everyTruncationIsAClearError() {
    byte[] bytes = sealed().toBytes();
    for (int cut = 0; cut < bytes.length; cut++) {
      byte[] shorter = java.util.Arrays.copyOf(bytes, cut);
      CorruptManifestException e = assertThrows(CorruptManifestException.class,
          () -> StripeManifest.parse(shorter, SOURCE), "cut at " + cut);
      assertTrue(e.getMessage().startsWith(SOURCE + ": "), e.getMessage());
    }
  }

  @Test
  void everyFlippedByteIsAClearError() {
    byte[] bytes = sealed().toBytes();
    for (int i = 0; i < bytes.length; i++) {
      byte[] bad = bytes.clone();
      bad[i] ^= 0x5a;
      CorruptManifestException e = assertThrows(CorruptManifestException.class,
          () -> StripeManifest.parse(bad, SOURCE), "byte " + i);
      assertTrue(e.getMessage().startsWith(SOURCE + ": "), e.getMessage());
    }
  }

  @Test
  void aNewerFormatIsNamedAsSuch() {
    byte[] bytes = sealed().toBytes();
    ByteBuffer.wrap(bytes).putShort(4, (short) 4); // 3 is the updated format (UpdatedManifestTest)
    CorruptManifestException e = assertThrows(CorruptManifestException.class, () -> StripeManifest.parse(bytes, SOURCE));
    assertEquals(CorruptManifestException.Reason.VERSION, e.reason());
    assertTrue(e.getMessage().contains("manifest format 4") && e.getMessage().contains("newer wide-ec"), e.getMessage());
  }

  @Test
  void sealedStripeRulesAreChecked() {
    List<SourcePiece> gap = List.of(new SourcePiece(16500, 1, 1, 100, StripeMember.NO_CRC, 0),
        new SourcePiece(16500, 2, 1, 100, StripeMember.NO_CRC, 150));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ArchivedStripe(0, RR, 1,
        StripeState.PLANNED, "/c/0", 0, codewords(100, false), gap));
    assertTrue(e.getMessage().contains("source piece 1") && e.getMessage().contains("contiguous"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> new ArchivedStripe(0, RR, 1, StripeState.PLANNED, "/c/0", 0,
        codewords(100, false)));
    assertTrue(e.getMessage().contains("source pieces"), e.getMessage());
    List<SourcePiece> noCrc = List.of(new SourcePiece(16500, 1, 1, 100, StripeMember.NO_CRC, 0));
    e = assertThrows(IllegalArgumentException.class, () -> new ArchivedStripe(0, RR, 1, StripeState.PARITY_WRITTEN,
        "/c/0", 9, codewords(100, true), noCrc));
    assertTrue(e.getMessage().contains("CRC32C of every source piece"), e.getMessage());
    List<SourcePiece> otherFile = List.of(new SourcePiece(16500, 1, 1, 100, StripeMember.NO_CRC, 0),
        new SourcePiece(16501, 2, 1, 100, StripeMember.NO_CRC, 100));
    e = assertThrows(IllegalArgumentException.class, () -> new ArchivedStripe(0, RR, 1, StripeState.PLANNED, "/c/0", 0,
        codewords(100, false), otherFile));
    assertTrue(e.getMessage().contains("one file"), e.getMessage());
  }

  @Test
  void rollbackForgetsCodewordsAndPieceCrcs() {
    ArchivedStripe s = sealed().stripe(0);
    ArchivedStripe w = new ArchivedStripe(0, RR, 1, StripeState.PARITY_WRITTEN, s.parityFilePath(), 16600,
        s.members(), s.sources());
    ArchivedStripe back = w.rolledBack();
    assertEquals(StripeState.PLANNED, back.state());
    assertTrue(back.members().stream().allMatch(m -> m.blockId() == 0 && !m.hasCrc()));
    assertTrue(back.sources().stream().noneMatch(SourcePiece::hasCrc));
  }
}
