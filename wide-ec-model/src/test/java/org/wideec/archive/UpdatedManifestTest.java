package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.wideec.archive.CorruptManifestException.Reason;

/**
 * Manifest format 3, the versioned manifest a parity update commits: pinned byte for byte, read beside formats 1 and
 * 2, and written only for a version above 0, so a manifest no update touched keeps its format 1 bytes.
 */
class UpdatedManifestTest {
  static final String SOURCE = "/.wideec/manifests/16386.wecm";
  static final String GOLDEN_RESOURCE = "/org/wideec/golden/stripe-manifest-3.bin";

  /** The golden manifest of format 1 at version 2 (two updates committed). */
  static StripeManifest golden() {
    StripeManifest one = ManifestFixtures.golden();
    return new StripeManifest(one.archivedPath(), one.scope(), one.stripes(), 2);
  }

  static byte[] goldenBytes() throws java.io.IOException {
    try (java.io.InputStream in = UpdatedManifestTest.class.getResourceAsStream(GOLDEN_RESOURCE)) {
      if (in == null) {
        throw new java.io.FileNotFoundException(GOLDEN_RESOURCE + " is missing from the test classpath");
      }
      return in.readAllBytes();
    }
  }

  @Test
  void goldenUpdatedManifestBytesNeverChange() throws Exception {
    byte[] golden = goldenBytes();
    assertArrayEquals(golden, golden().toBytes(), "format 3 wrote other bytes for the golden manifest");
    assertEquals(golden(), StripeManifest.parse(golden, SOURCE));
    assertEquals(StripeManifest.UPDATED_FORMAT_VERSION, ByteBuffer.wrap(golden, 4, 2).getShort());
  }

  @Test
  void formatThreeIsFormatOnesBodyAfterTheVersion() throws Exception {
    byte[] one = ManifestFixtures.goldenBytes();
    byte[] three = goldenBytes();
    assertEquals(2, ByteBuffer.wrap(three, ManifestFormat.HEADER, 8).getLong());
    int body = one.length - ManifestFormat.HEADER - ManifestFormat.TRAILER;
    assertArrayEquals(java.util.Arrays.copyOfRange(one, ManifestFormat.HEADER, ManifestFormat.HEADER + body),
        java.util.Arrays.copyOfRange(three, ManifestFormat.HEADER + 8, ManifestFormat.HEADER + 8 + body));
  }

  @Test
  void versionZeroStaysInFormatOne() throws Exception {
    StripeManifest zero = new StripeManifest(golden().archivedPath(), golden().scope(), golden().stripes(), 0);
    assertArrayEquals(ManifestFixtures.goldenBytes(), zero.toBytes());
    assertEquals(0, StripeManifest.parse(ManifestFixtures.goldenBytes(), SOURCE).version());
  }

  @Test
  void theNextVersionCountsUpAndKeepsItsVersionThroughARecordedStep() {
    StripeManifest next = golden().nextVersion(List.of(golden().stripes().get(0)));
    assertEquals(3, next.version());
    assertEquals(1, next.stripes().size());
    assertEquals(3, next.with(next.stripes().get(0)).version());
  }

  @Test
  void formatThreeAtVersionZeroIsRefusedAsMalformed() throws Exception {
    byte[] bytes = goldenBytes();
    ByteBuffer.wrap(bytes).putLong(ManifestFormat.HEADER, 0);
    reseal(bytes);
    CorruptManifestException e = assertThrows(CorruptManifestException.class, () -> StripeManifest.parse(bytes, SOURCE));
    assertEquals(Reason.MALFORMED, e.reason());
    assertTrue(e.getMessage().contains("format 3 with manifest version 0"), e.getMessage());
  }

  @Test
  void everyTruncationOfFormatThreeIsRefused() throws Exception {
    byte[] golden = goldenBytes();
    for (int cut = 0; cut < golden.length; cut++) {
      byte[] shorter = java.util.Arrays.copyOf(golden, cut);
      assertThrows(CorruptManifestException.class, () -> StripeManifest.parse(shorter, SOURCE), "cut at " + cut);
    }
  }

  @Test
  void aNegativeVersionIsRefused() {
    StripeManifest one = ManifestFixtures.golden();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new StripeManifest(one.archivedPath(), one.scope(), one.stripes(), -1));
    assertTrue(e.getMessage().contains("version -1 is negative"), e.getMessage());
  }

  private static void reseal(byte[] bytes) {
    CRC32C c = new CRC32C();
    c.update(bytes, 0, bytes.length - ManifestFormat.TRAILER);
    ByteBuffer.wrap(bytes).putInt(bytes.length - ManifestFormat.TRAILER, (int) c.getValue());
  }
}
