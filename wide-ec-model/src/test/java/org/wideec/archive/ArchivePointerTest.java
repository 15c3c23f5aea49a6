package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.wideec.archive.CorruptManifestException.Reason;

/** The xattr that points an archived file to its manifest stays small and refuses what it cannot vouch for. */
class ArchivePointerTest {
  static final ArchivePointer POINTER = new ArchivePointer("/.wideec/manifests/user/alice/logs-16386",
      new long[] {7, 8, 9, 12});

  @Test
  void aFileInAFewStripesTakesFarLessThanAKibibyte() throws Exception {
    byte[] bytes = POINTER.toBytes();
    assertTrue(bytes.length < 64, bytes.length + " bytes");
    assertEquals(POINTER, ArchivePointer.parse(bytes, "/user/alice/logs/a"));
    long[] many = new long[64];
    for (int i = 0; i < many.length; i++) {
      many[i] = 1_000_000_000L + 3L * i;
    }
    ArchivePointer wide = new ArchivePointer("/.wideec/manifests/" + "d/".repeat(100) + "big", many);
    assertTrue(wide.toBytes().length < 1024, wide.toBytes().length + " bytes for 64 stripes under a 319-byte path");
    assertEquals(wide, ArchivePointer.parse(wide.toBytes(), "/big"));
  }

  @Test
  void everyTruncationAndFlipIsRefused() {
    byte[] bytes = POINTER.toBytes();
    for (int cut = 0; cut < bytes.length; cut++) {
      byte[] shorter = Arrays.copyOf(bytes, cut);
      assertThrows(CorruptManifestException.class, () -> ArchivePointer.parse(shorter, "/f"), "cut at " + cut);
    }
    for (int i = 0; i < bytes.length; i++) {
      for (int bit = 0; bit < 8; bit++) {
        byte[] bad = bytes.clone();
        bad[i] ^= (byte) (1 << bit);
        CorruptManifestException e = assertThrows(CorruptManifestException.class, () -> ArchivePointer.parse(bad, "/f"),
            "byte " + i + " bit " + bit);
        assertEquals(Reason.CHECKSUM, e.reason(), e.getMessage());
        assertTrue(e.getMessage().startsWith("/f: archive pointer xattr"), e.getMessage());
      }
    }
  }

  @Test
  void aNewerPointerVersionIsRefusedAsSuch() {
    byte[] bytes = POINTER.toBytes();
    bytes[0] = 2;
    StripeManifestTest.reseal(bytes);
    assertEquals(Reason.VERSION, assertThrows(CorruptManifestException.class,
        () -> ArchivePointer.parse(bytes, "/f")).reason());
  }

  @Test
  void stripeIdsAreDistinctAndAscending() {
    assertThrows(IllegalArgumentException.class, () -> new ArchivePointer("/m", new long[] {3, 3}));
    assertThrows(IllegalArgumentException.class, () -> new ArchivePointer("/m", new long[] {4, 3}));
    assertThrows(IllegalArgumentException.class, () -> new ArchivePointer("/m", new long[] {}));
    assertThrows(IllegalArgumentException.class, () -> new ArchivePointer("relative", new long[] {1}));
    ArchivePointer big = new ArchivePointer("/m", new long[] {0, Long.MAX_VALUE});
    assertEquals(big, roundTrip(big), "the largest id survives its varint");
  }

  private static ArchivePointer roundTrip(ArchivePointer p) {
    try {
      return ArchivePointer.parse(p.toBytes(), "/f");
    } catch (CorruptManifestException e) {
      throw new AssertionError(e);
    }
  }
}
