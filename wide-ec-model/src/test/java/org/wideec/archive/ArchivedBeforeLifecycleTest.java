package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;
import org.wideec.archive.StripeLifecycle.Step;

/**
 * Bytes an archived and a sealed file left in HDFS before the one stripe lifecycle (written by the build at
 * b4c9b3a, resources under golden/before-lifecycle): the manifests and pointer xattrs still parse to the same
 * stripes, write back to the same bytes, and the lifecycle resumes them as that build would have.
 */
class ArchivedBeforeLifecycleTest {
  private static final String DIR = "/org/wideec/golden/before-lifecycle/";

  @Test
  void anArchivedDirectoryResumesItsEncodingAndKeepsItsTrimmedStripe() throws Exception {
    byte[] bytes = resource("archived.wecm");
    StripeManifest m = StripeManifest.parse(bytes, "archived.wecm");
    assertArrayEquals(bytes, m.toBytes());
    assertEquals("/data/logs", m.archivedPath());
    assertEquals(StripeState.TRIMMED, m.stripe(7).state());
    assertEquals(StripeState.ENCODING, m.stripe(8).state());
    assertEquals(StripeLayout.SYSTEMATIC, StripeLayout.of(m.stripe(7)));
    assertEquals(Step.TAKE_EFFECT, StripeLifecycle.resume(m.stripe(7).state()));
    assertEquals(Step.ROLL_BACK, StripeLifecycle.resume(m.stripe(8).state()));
    assertTrue(StripeLifecycle.mayTakeEffect(m, 16386));
    assertEquals(StripeState.PLANNED, StripeLifecycle.record(m, m.stripe(8).rolledBack()).stripe(8).state());

    ArchivePointer p = ArchivePointer.parse(resource("archived-pointer.bin"), "archived-pointer.bin");
    assertEquals("/.wideec/manifests/16386.wecm", p.manifestPath());
    assertArrayEquals(new long[] {7}, p.stripeIds());
    assertArrayEquals(resource("archived-pointer.bin"), p.toBytes());
  }

  @Test
  void aSealedFileIsTrustedAndFinishesItsTrim() throws Exception {
    byte[] bytes = resource("sealed.wecm");
    StripeManifest m = StripeManifest.parse(bytes, "sealed.wecm");
    assertArrayEquals(bytes, m.toBytes());
    assertEquals(StripeManifest.SEALED_FORMAT_VERSION, java.nio.ByteBuffer.wrap(bytes, 4, 2).getShort());
    assertEquals(StripeLayout.NON_SYSTEMATIC, StripeLayout.of(m.stripe(0)));
    assertNull(StripeLifecycle.onlyCopyUnverified(m, "/cold/f", "/.wideec/manifests/16500.wecm"));
    assertTrue(StripeLifecycle.allCommitted(m));
    assertEquals(StripeState.TRIMMED, StripeLifecycle.record(m, m.stripe(1).withState(StripeState.TRIMMED))
        .stripe(1).state());
    assertEquals(16384 + 1000, m.stripes().stream().flatMap(s -> s.sources().stream())
        .mapToLong(sp -> sp.offset() + sp.length()).max().orElseThrow());

    ArchivePointer p = ArchivePointer.parse(resource("sealed-pointer.bin"), "sealed-pointer.bin");
    assertEquals("/.wideec/manifests/16500.wecm", p.manifestPath());
    assertArrayEquals(new long[] {0, 1}, p.stripeIds());
  }

  private static byte[] resource(String name) throws IOException {
    try (InputStream in = ArchivedBeforeLifecycleTest.class.getResourceAsStream(DIR + name)) {
      if (in == null) {
        throw new FileNotFoundException(DIR + name + " is missing from the test classpath");
      }
      return in.readAllBytes();
    }
  }
}
