package org.wideec.client;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ChainOutlookTest {
  private final AtomicLong now = new AtomicLong(-5_000_000_000L); // nanoTime may be negative

  @Test
  void readsSkipChainsForTheConfiguredTimeAfterOneWasOvertakenThenTryOneAgain() {
    ChainOutlook o = new ChainOutlook(30_000, now::get);
    assertTrue(o.chainFirst(), "no chain was overtaken yet");
    o.overtaken();
    assertTrue(o.chainFirst(), "the FileSystem's first chain, overtaken, says nothing of its helpers");
    o.overtaken();
    assertFalse(o.chainFirst(), "right after an overtaken chain");
    now.addAndGet(29_999_999_999L);
    assertFalse(o.chainFirst(), "a nanosecond before the time is up");
    now.addAndGet(1);
    assertTrue(o.chainFirst(), "once the time is up");
    assertTrue(o.chainFirst(), "and after");
  }

  @Test
  void aChainThatServesEndsTheSkipAndZeroNeverSkips() {
    ChainOutlook o = new ChainOutlook(30_000, now::get);
    o.served(); // the first chain answered in time
    o.overtaken();
    assertFalse(o.chainFirst(), "a chain after the first, overtaken");
    o.served(); // a chain started before the skip answered in time
    assertTrue(o.chainFirst());
    ChainOutlook never = new ChainOutlook(0, now::get);
    never.overtaken();
    never.overtaken();
    assertTrue(never.chainFirst(), "0 always asks a chain first");
    assertThrows(IllegalArgumentException.class, () -> new ChainOutlook(-1, now::get));
  }
}
