package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.wideec.archive.CorruptManifestException.Reason;
import org.wideec.code.UnitRole;

/** The manifest is a format: it round-trips exactly, never drifts, and refuses every byte it cannot vouch for. */
class StripeManifestTest {
  static final String SOURCE = "/.wideec/manifests/16386";

  @Test
  void goldenManifestBytesNeverChange() throws Exception {
    byte[] golden = ManifestFixtures.goldenBytes();
    assertArrayEquals(golden, ManifestFixtures.golden().toBytes(), "format 1 wrote other bytes for the golden manifest");
    assertEquals(ManifestFixtures.golden(), StripeManifest.parse(golden, SOURCE));
  }

  @Test
  void randomManifestsRoundTripToTheSameValueAndTheSameBytes() throws Exception {
    for (long seed = 0; seed < 300; seed++) {
      StripeManifest m = ManifestFixtures.random(seed);
      byte[] bytes = m.toBytes();
      StripeManifest back = StripeManifest.parse(bytes, SOURCE);
      assertEquals(m, back, "seed " + seed);
      assertArrayEquals(bytes, back.toBytes(), "seed " + seed);
    }
  }

  @Test
  void everyTruncationIsRefusedAsTruncated() throws Exception {
    byte[] golden = ManifestFixtures.goldenBytes();
    for (int cut = 0; cut < golden.length; cut++) {
      byte[] shorter = java.util.Arrays.copyOf(golden, cut);
      CorruptManifestException e = assertThrows(CorruptManifestException.class,
          () -> StripeManifest.parse(shorter, SOURCE), "cut at " + cut);
      assertEquals(Reason.TRUNCATED, e.reason(), "cut at " + cut);
      assertTrue(e.getMessage().startsWith(SOURCE + ": "), e.getMessage());
    }
  }

  @Test
  void everyFlippedByteIsRefused() throws Exception {
    byte[] golden = ManifestFixtures.goldenBytes();
    for (int i = 0; i < golden.length; i++) {
      for (int bit = 0; bit < 8; bit++) {
        byte[] bad = golden.clone();
        bad[i] ^= (byte) (1 << bit);
        CorruptManifestException e = assertThrows(CorruptManifestException.class, () -> StripeManifest.parse(bad, SOURCE),
            "byte " + i + " bit " + bit);
        // A flipped version that names another format this build reads (1 -> 3) is caught by the checksum instead.
        int version = ByteBuffer.wrap(bad, 4, 2).getShort() & 0xffff;
        boolean readable = version >= 1 && version <= StripeManifest.UPDATED_FORMAT_VERSION;
        Reason expected = i < 4 ? Reason.MALFORMED : i < 6 ? (readable ? Reason.CHECKSUM : Reason.VERSION)
            : i < 10 ? null : Reason.CHECKSUM;
        if (expected != null) {
          assertEquals(expected, e.reason(), "byte " + i + " bit " + bit + ": " + e.getMessage());
        }
      }
    }
  }

  @Test
  void trailingBytesAreRefused() throws Exception {
    byte[] golden = ManifestFixtures.goldenBytes();
    byte[] longer = java.util.Arrays.copyOf(golden, golden.length + 1);
    assertEquals(Reason.MALFORMED,
        assertThrows(CorruptManifestException.class, () -> StripeManifest.parse(longer, SOURCE)).reason());
  }

  /**
   * A flip behind a valid checksum (a buggy writer) is refused, or it parses to exactly what the bytes say: the
   * reader never normalises or guesses.
   */
  @Test
  void aResealedFlipIsRefusedOrReadBackExactly() throws Exception {
    byte[] golden = ManifestFixtures.goldenBytes();
    int refused = 0;
    for (int i = ManifestFormat.HEADER; i < golden.length - ManifestFormat.TRAILER; i++) {
      for (int bit = 0; bit < 8; bit++) {
        byte[] bad = golden.clone();
        bad[i] ^= (byte) (1 << bit);
        reseal(bad);
        try {
          assertArrayEquals(bad, StripeManifest.parse(bad, SOURCE).toBytes(), "byte " + i + " bit " + bit);
        } catch (CorruptManifestException e) {
          refused++;
        }
      }
    }
    assertTrue(refused > 1000, "structure-breaking flips are refused, " + refused);
  }

  @Test
  void aNewerFormatIsRefusedAsSuch() throws Exception {
    byte[] bytes = ManifestFixtures.goldenBytes();
    bytes[5] = 4; // format 2 is the sealed format (SealedManifestTest), 3 the updated one (UpdatedManifestTest); 4 no build has written yet
    reseal(bytes);
    CorruptManifestException e = assertThrows(CorruptManifestException.class, () -> StripeManifest.parse(bytes, SOURCE));
    assertEquals(Reason.VERSION, e.reason());
    assertTrue(e.getMessage().contains("manifest format 4; this build reads formats 1 to 3"), e.getMessage());
  }

  @Test
  void aStripeOfAnotherCodeFormatIsRefusedAsSuch() throws Exception {
    byte[] bytes = ManifestFixtures.goldenBytes();
    int spec = indexOf(bytes, ManifestFixtures.LRC.getBytes(StandardCharsets.UTF_8), 0);
    bytes[spec + ManifestFixtures.LRC.length() + 1] = 2; // low byte of the u16 code format after the spec
    reseal(bytes);
    CorruptManifestException e = assertThrows(CorruptManifestException.class, () -> StripeManifest.parse(bytes, SOURCE));
    assertEquals(Reason.VERSION, e.reason());
    assertTrue(e.getMessage().contains("stripe 7 (azure-lrc:k=4,l=2,g=1) was written under code format 2"), e.getMessage());
  }

  @Test
  void aMemberCountOtherThanTheCodesNIsRefused() throws Exception {
    // g=1 -> g=2: the same 7 members now claim a code of n = 8.
    byte[] bytes = replaceFirst(ManifestFixtures.goldenBytes(), ManifestFixtures.LRC, "azure-lrc:k=4,l=2,g=2");
    assertInconsistent(bytes, "stripe 7 (azure-lrc:k=4,l=2,g=2): 7 members, the code has n = 8");
  }

  @Test
  void anUnpinnedCodeIsRefusedNamingTheSpec() throws Exception {
    byte[] bytes = replaceFirst(ManifestFixtures.goldenBytes(), ManifestFixtures.LRC, "azure-lrc:k=9,l=2,g=9");
    assertInconsistent(bytes, "azure-lrc:k=9,l=2,g=9 is not a code of on-disk format 1");
    Exception e = assertThrows(IllegalArgumentException.class, () -> new ArchivedStripe(1, "rs:k=40,m=3", 1,
        StripeState.PLANNED, "", 0, List.of()));
    assertTrue(e.getMessage().contains("rs:k=40,m=3 is not a code of on-disk format 1"), e.getMessage());
  }

  @Test
  void aRoleThatDoesNotMatchTheCodeIsRefused() throws Exception {
    byte[] bytes = ManifestFixtures.goldenBytes();
    int global = indexOf(bytes, longBytes(1073741900L), 0) - 8 - 2; // role byte before flags and inode
    assertEquals(2, bytes[global]);
    bytes[global] = 3;
    reseal(bytes);
    assertInconsistent(bytes, "stripe 7 (azure-lrc:k=4,l=2,g=1), unit 4: recorded as LOCAL_PARITY, the code makes it"
        + " GLOBAL_PARITY");
  }

  @Test
  void aBlockInTwoPlacesIsRefused() throws Exception {
    byte[] within = replaceFirst(ManifestFixtures.goldenBytes(), longBytes(1073741826L), longBytes(1073741825L));
    assertInconsistent(within, "unit 1 (DATA, block 1073741825): block id appears twice in the stripe");
    byte[] across = replaceFirst(ManifestFixtures.goldenBytes(), longBytes(1073741829L), longBytes(1073741825L));
    assertInconsistent(across, "block 1073741825 is both stripe 7 unit 0 and stripe 8 unit 0");
  }

  @Test
  void twoUnitsOfAStripeOnOneNodeAreRefused() throws Exception {
    byte[] bytes = replaceFirst(ManifestFixtures.goldenBytes(), "dn1:9866", "dn0:9866");
    assertInconsistent(bytes, "unit 1 (DATA, block 1073741826): node dn0:9866 already holds another unit");
  }

  @Test
  void aStoredParityOverVirtualDataOnlyIsRefused() throws Exception {
    byte[] bytes = ManifestFixtures.goldenBytes();
    // Stripe 8's unit 6 (second local group, all virtual): clear its padding flag.
    int last = bytes.length - ManifestFormat.TRAILER - (1 + 1 + 8 * 4 + 4 + 4 + 4);
    assertEquals(3, bytes[last]);
    assertEquals(1, bytes[last + 1]);
    bytes[last + 1] = 0;
    reseal(bytes);
    CorruptManifestException e = assertThrows(CorruptManifestException.class, () -> StripeManifest.parse(bytes, SOURCE));
    assertEquals(Reason.INCONSISTENT, e.reason(), e.getMessage());
  }

  @Test
  void aCrcValueWithoutItsFlagIsMalformed() throws Exception {
    byte[] bytes = ManifestFixtures.goldenBytes();
    int last = bytes.length - ManifestFormat.TRAILER - (1 + 1 + 8 * 4 + 4 + 4 + 4);
    bytes[last + 2 + 8 * 4 + 3] = 1;
    reseal(bytes);
    assertEquals(Reason.MALFORMED,
        assertThrows(CorruptManifestException.class, () -> StripeManifest.parse(bytes, SOURCE)).reason());
  }

  @Test
  void theStateDecidesWhatMustBeKnown() {
    StripeManifest golden = ManifestFixtures.golden();
    ArchivedStripe verified = golden.stripe(7);
    List<StripeMember> noCrc = new ArrayList<>(verified.members());
    StripeMember d0 = noCrc.get(0);
    noCrc.set(0, new StripeMember(d0.role(), false, d0.inodeId(), d0.blockId(), d0.generationStamp(), d0.length(),
        StripeMember.NO_CRC, d0.plannedNode(), d0.plannedRack()));
    Exception e = assertThrows(IllegalArgumentException.class, () -> verified.withMembers(noCrc));
    assertTrue(e.getMessage().contains("state VERIFIED needs the CRC32C of every data block"), e.getMessage());

    ArchivedStripe planned = golden.stripe(8);
    e = assertThrows(IllegalArgumentException.class, () -> planned.withState(StripeState.ENCODING));
    assertTrue(e.getMessage().contains("state ENCODING needs the parity file's path"), e.getMessage());
    ArchivedStripe encoding = planned.withParityFile("/.wideec/parity/8", 0).withState(StripeState.ENCODING);
    e = assertThrows(IllegalArgumentException.class, () -> encoding.withState(StripeState.PARITY_WRITTEN));
    assertTrue(e.getMessage().contains("state PARITY_WRITTEN needs the parity file's inode id"), e.getMessage());
    ArchivedStripe withInode = encoding.withParityFile("/.wideec/parity/8", 17000);
    e = assertThrows(IllegalArgumentException.class, () -> withInode.withState(StripeState.PARITY_WRITTEN));
    assertTrue(e.getMessage().contains("needs the parity block's id, generation stamp and CRC32C"), e.getMessage());
    List<StripeMember> written = new ArrayList<>(withInode.members());
    written.set(4, written.get(4).written(17000, 1073750000L, 1200, 0x1234));
    written.set(5, written.get(5).written(17000, 1073750001L, 1200, 0x5678));
    ArchivedStripe parity = withInode.withMembers(written).withState(StripeState.PARITY_WRITTEN);
    assertEquals(StripeState.PARITY_WRITTEN, parity.state());
    e = assertThrows(IllegalArgumentException.class, () -> parity.withState(StripeState.PLANNED));
    assertTrue(e.getMessage().contains("a PLANNED stripe has no parity blocks yet"), e.getMessage());
  }

  @Test
  void fileLevelManifestsHoldOneInodesBlocks() {
    StripeManifest golden = ManifestFixtures.golden();
    Exception e = assertThrows(IllegalArgumentException.class,
        () -> new StripeManifest("/data/big", ArchiveScope.FILE, golden.stripes()));
    assertTrue(e.getMessage().contains("stripe 7 unit 2 is a block of inode 16387, earlier data blocks belong to inode"
        + " 16386"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new StripeManifest("/data/logs", ArchiveScope.DIRECTORY,
        List.of(golden.stripe(8), golden.stripe(7))), "stripe ids ascend");
    assertArrayEquals(new long[] {7}, golden.stripesOf(16387));
    assertArrayEquals(new long[] {8}, golden.stripesOf(16388));
  }

  @Test
  void transitionsFollowTheArchivalStateMachine() {
    Set<String> allowed = Set.of("PLANNED>ENCODING", "ENCODING>PARITY_WRITTEN", "PARITY_WRITTEN>VERIFIED",
        "VERIFIED>COMMITTED", "COMMITTED>TRIMMED", "ENCODING>PLANNED", "PARITY_WRITTEN>PLANNED");
    for (StripeState from : StripeState.values()) {
      for (StripeState to : StripeState.values()) {
        boolean expected = from == to || to == StripeState.STALE || allowed.contains(from + ">" + to);
        assertEquals(expected, from.canBecome(to), from + " -> " + to);
      }
    }
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> StripeState.VERIFIED.checkTransition(4, StripeState.PLANNED));
    assertEquals("stripe 4: VERIFIED -> PLANNED is not a transition of the archival state machine (after VERIFIED:"
        + " VERIFIED, COMMITTED, STALE)", e.getMessage());
    assertEquals(EnumSet.of(StripeState.VERIFIED, StripeState.COMMITTED, StripeState.TRIMMED),
        EnumSet.copyOf(java.util.Arrays.stream(StripeState.values()).filter(StripeState::parityVerified).toList()));
    assertFalse(StripeState.STALE.canBecome(StripeState.PLANNED), "a stale stripe is freed, not re-run");
  }

  @Test
  void stateCodesAreFixed() {
    int code = 1;
    for (StripeState s : List.of(StripeState.PLANNED, StripeState.ENCODING, StripeState.PARITY_WRITTEN,
        StripeState.VERIFIED, StripeState.COMMITTED, StripeState.TRIMMED, StripeState.STALE)) {
      assertEquals(code++, s.code(), s.name());
    }
    assertEquals(1, ManifestFormat.roleCode(UnitRole.DATA));
    assertEquals(2, ManifestFormat.roleCode(UnitRole.GLOBAL_PARITY));
    assertEquals(3, ManifestFormat.roleCode(UnitRole.LOCAL_PARITY));
    assertEquals(1, ArchiveScope.FILE.code());
    assertEquals(2, ArchiveScope.DIRECTORY.code());
  }

  static void assertInconsistent(byte[] bytes, String expected) {
    CorruptManifestException e = assertThrows(CorruptManifestException.class, () -> StripeManifest.parse(bytes, SOURCE));
    assertEquals(Reason.INCONSISTENT, e.reason(), e.getMessage());
    assertTrue(e.getMessage().startsWith(SOURCE + ": "), e.getMessage());
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }

  static void reseal(byte[] bytes) {
    CRC32C c = new CRC32C();
    c.update(bytes, 0, bytes.length - 4);
    ByteBuffer.wrap(bytes).putInt(bytes.length - 4, (int) c.getValue());
  }

  static byte[] longBytes(long v) {
    return ByteBuffer.allocate(8).putLong(v).array();
  }

  static byte[] replaceFirst(byte[] bytes, String from, String to) {
    return replaceFirst(bytes, from.getBytes(StandardCharsets.UTF_8), to.getBytes(StandardCharsets.UTF_8));
  }

  /** Replaces the first occurrence of an equally long byte string and reseals the checksum. */
  static byte[] replaceFirst(byte[] bytes, byte[] from, byte[] to) {
    assertEquals(from.length, to.length);
    byte[] out = bytes.clone();
    int at = indexOf(out, from, 0);
    assertTrue(at >= 0, "pattern not found");
    System.arraycopy(to, 0, out, at, to.length);
    reseal(out);
    return out;
  }

  static int indexOf(byte[] bytes, byte[] pattern, int from) {
    outer:
    for (int i = from; i + pattern.length <= bytes.length; i++) {
      for (int j = 0; j < pattern.length; j++) {
        if (bytes[i + j] != pattern[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
