package org.wideec.archive.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The xattr names a seal or an unseal stopped half way leaves on a directory, and the one a restored file carries,
 * as the build before the one stripe lifecycle wrote them: a rerun by this build must find them.
 */
class SwapMarkerNamesTest {
  @Test
  void sealAndUnsealMarkersKeepTheirNames() {
    assertEquals("trusted.wideec.sealing.", SealSwap.SWAP_XATTR_PREFIX);
    assertEquals("trusted.wideec.unsealing.", RestoreSwap.SWAP_XATTR_PREFIX);
    assertEquals("trusted.wideec.restored", NonSystematicRestore.RESTORED_XATTR);
    assertEquals("trusted.wideec.archive", ArchivalSource.POINTER_XATTR);
  }
}
