package org.wideec.placement.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The keeper's pin ledger: entries live only while passes find them on plan; each pass pins at most its cap. */
class PinLedgerTest {
  /** One keeper pass over the replicas found on plan ({node, block}); every pin sent is confirmed. Returns them. */
  private static List<Long> pass(PinLedger ledger, String node, long... blocks) {
    ledger.beginPass();
    List<Long> sent = new ArrayList<>();
    for (long b : blocks) {
      if (ledger.offer(node, b)) {
        sent.add(b);
      }
    }
    sent.forEach(b -> ledger.confirm(node, b));
    ledger.endPass();
    return sent;
  }

  @Test
  void aConfirmedPinIsNotSentAgainWhileThePassesFindIt() {
    PinLedger ledger = new PinLedger(100);
    assertEquals(List.of(3L, 1L, 2L), pass(ledger, "dn1", 3, 1, 2));
    assertEquals(List.of(), pass(ledger, "dn1", 1, 2, 3));
    assertEquals(3, ledger.size());
  }

  @Test
  void replicasAPassNoLongerFindsAreForgotten() {
    PinLedger ledger = new PinLedger(100);
    pass(ledger, "dn1", 1, 2, 3, 4);
    pass(ledger, "dn1", 2, 4); // 1 and 3 were deleted, unarchived or moved off dn1
    assertEquals(2, ledger.size());
    assertFalse(ledger.isConfirmed("dn1", 1));
    assertTrue(ledger.isConfirmed("dn1", 4));
    pass(ledger, "dn2"); // a pass that finds nothing on dn1 leaves nothing of it
    assertEquals(0, ledger.size());
    assertEquals(List.of(1L), pass(ledger, "dn1", 1), "a replica found again is pinned again");
  }

  @Test
  void aPassPinsAtMostItsCapAndLaterPassesPinTheRest() {
    PinLedger ledger = new PinLedger(4);
    long[] all = {10, 11, 12, 13, 14, 15, 16, 17, 18, 19};
    assertEquals(List.of(10L, 11L, 12L, 13L), pass(ledger, "dn1", all));
    assertEquals(6, ledger.deferred());
    assertEquals(List.of(14L, 15L, 16L, 17L), pass(ledger, "dn1", all));
    assertEquals(List.of(18L, 19L), pass(ledger, "dn1", all));
    assertEquals(0, ledger.deferred());
    assertEquals(List.of(), pass(ledger, "dn1", all));
    assertEquals(10, ledger.size());
  }

  @Test
  void aPinNotConfirmedIsOfferedAgainNextPass() {
    PinLedger ledger = new PinLedger(10);
    ledger.beginPass();
    assertTrue(ledger.offer("dn1", 7)); // the DataNode answered NOT_HELD, or could not be reached
    ledger.endPass();
    assertEquals(0, ledger.size());
    assertEquals(List.of(7L), pass(ledger, "dn1", 7));
  }

  @Test
  void theSameBlockOnTwoNodesIsTwoEntries() {
    PinLedger ledger = new PinLedger(10);
    ledger.beginPass();
    assertTrue(ledger.offer("dn1", 5));
    assertTrue(ledger.offer("dn2", 5));
    ledger.confirm("dn1", 5);
    ledger.confirm("dn2", 5);
    ledger.endPass();
    assertTrue(ledger.isConfirmed("dn1", 5) && ledger.isConfirmed("dn2", 5));
    ledger.beginPass();
    assertFalse(ledger.offer("dn2", 5));
    ledger.endPass();
    assertFalse(ledger.isConfirmed("dn1", 5));
    assertTrue(ledger.isConfirmed("dn2", 5));
  }

  @Test
  void aCapBelowOneIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new PinLedger(0));
  }
}
