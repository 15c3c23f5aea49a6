package org.wideec.client;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ChainProgressTest {
  private static final long MS = 1_000_000L;
  private static final long HEDGE = 500 * MS;
  private final long t0 = -7_000 * MS; // nanoTime may be negative

  @Test
  void aChainDeliveringAtAPaceThatFinishesWithinTheHedgeDelayIsOnTrack() {
    ChainProgress p = new ChainProgress();
    p.asked(1 << 20);
    p.arrived(0, 256 << 10, t0);
    p.arrived(256 << 10, 256 << 10, t0 + 100 * MS);
    // 512 KiB in 100 ms since the first slice (counted from its arrival): the other 512 KiB in about 100 ms more.
    assertTrue(p.onTrack(t0 + 100 * MS, HEDGE));
  }

  @Test
  void aChainThatWouldNeedMoreThanTheHedgeDelayForTheRestIsNot() {
    ChainProgress p = new ChainProgress();
    p.asked(1 << 20);
    p.arrived(0, 64 << 10, t0);
    // 64 KiB in 600 ms: the other 960 KiB would take 9 s.
    assertFalse(p.onTrack(t0 + 600 * MS, HEDGE));
  }

  @Test
  void aChainThatDeliveredNothingSinceTheLastLookIsNotOnTrackHoweverFastItWas() {
    ChainProgress p = new ChainProgress();
    p.asked(1 << 20);
    p.arrived(0, 512 << 10, t0);
    p.arrived(512 << 10, 256 << 10, t0 + 10 * MS);
    assertTrue(p.onTrack(t0 + 20 * MS, HEDGE), "768 KiB in 20 ms");
    assertFalse(p.onTrack(t0 + 520 * MS, HEDGE), "then nothing for 500 ms: a helper stalled");
  }

  @Test
  void aChainNotYetAskedOrWithoutASliceIsNotOnTrack() {
    ChainProgress p = new ChainProgress();
    assertFalse(p.onTrack(t0, HEDGE), "still finding its helpers' slice ports");
    p.asked(1 << 20);
    assertFalse(p.onTrack(t0 + HEDGE, HEDGE), "asked, nothing arrived");
  }

  @Test
  void whetherTheHelpersWereAskedIsTakenWhenDirectDecodeStarts() {
    ChainProgress setUp = new ChainProgress();
    setUp.raced(); // the hedge fired while the chain was finding its helpers' slice ports
    setUp.asked(1 << 20); // it asked them later, before direct decode overtook it
    assertFalse(setUp.askedBeforeRace(), "held up before its helpers: no sign they are busy");

    ChainProgress queued = new ChainProgress();
    queued.asked(1 << 20);
    queued.raced();
    assertTrue(queued.askedBeforeRace(), "asked, and still overtaken: queued on its helpers");
  }

  @Test
  void aRestartedAttemptsFirstSliceStartsThePaceAgain() {
    ChainProgress p = new ChainProgress();
    p.asked(1 << 20);
    p.arrived(0, 64 << 10, t0);
    p.asked(1 << 20); // one restart without a helper to blame
    p.arrived(0, 512 << 10, t0 + 400 * MS);
    p.arrived(512 << 10, 256 << 10, t0 + 450 * MS);
    assertTrue(p.onTrack(t0 + 450 * MS, HEDGE), "768 KiB in the 50 ms since the new attempt's first slice");
  }
}
