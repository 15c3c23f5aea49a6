package org.wideec.archive.hdfs;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The trimmer's lease holds only while fresh by the NameNode's own clock, and never without one. */
class TrimLeaseTest {
  @Test
  void aLeaseHoldsForItsLengthAndNotWithoutANameNodeTime() {
    byte[] lease = TrimProtocol.lease(1_000_000, 60_000);
    assertTrue(TrimProtocol.holds(lease, 1_000_000));
    assertTrue(TrimProtocol.holds(lease, 1_060_000));
    assertFalse(TrimProtocol.holds(lease, 1_060_001), "expired");
    assertTrue(TrimProtocol.holds(lease, 999_000), "a heartbeat older than the lease's write");
    assertFalse(TrimProtocol.holds(lease, 0), "no live DataNode: no NameNode time, no lease");
    assertFalse(TrimProtocol.holds(lease, 900_000), "from a clock far behind the one that wrote it");
    assertFalse(TrimProtocol.holds(null, 1_000_000));
    assertFalse(TrimProtocol.holds("v2 1 2".getBytes(java.nio.charset.StandardCharsets.UTF_8), 1));
    assertFalse(TrimProtocol.holds(TrimProtocol.lease(1_000_000, 0), 1_000_000), "a zero-length lease");
  }
}
