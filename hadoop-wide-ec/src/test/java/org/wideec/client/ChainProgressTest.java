package org.wideec.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** When the hedge fires for a chain, at exact times of a fake clock. */
class ChainProgressTest {
  private static final long MS = 1_000_000L;
  private static final long GRACE = 500 * MS;
  private static final long MIB = 1 << 20;
  /** The clock: nanoTime may be negative. */
  private long now = -7_000 * MS;
  private final long t0 = now;

  private ChainProgress start() {
    return new ChainProgress(() -> now, GRACE);
  }

  @Test
  void aChainStillFindingItsHelpersIsRacedWhenTheGraceFromTheReadsStartEnds() {
    ChainProgress p = start();
    now = t0 + 499 * MS;
    assertFalse(p.helpersAsked(), "still finding its helpers' slice ports");
    assertEquals(t0 + GRACE, p.hedgeAt());
  }

  @Test
  void theGraceRunsFromWhenTheHelpersWereAskedNotFromTheFirstSlice() {
    ChainProgress p = start();
    now = t0 + 300 * MS; // set-up took 300 ms
    p.asked(MIB, 1_000 * MS);
    assertEquals(t0 + 800 * MS, p.hedgeAt(), "nothing arrived: raced when the grace ends, 500 ms after the asking");
    now = t0 + 790 * MS;
    p.arrived(0, MIB / 4); // the first slice came late, after queueing behind the repair
    // A quarter of the range buys a quarter of the 1 s the path needs for it: raced at 800 + 250 ms unless more comes.
    assertEquals(t0 + 1_050 * MS, p.hedgeAt());
    now = t0 + 1_050 * MS;
    assertFalse(p.keptPastGrace(now), "fell behind the path's pace: the hedge fires now");
  }

  @Test
  void aChainKeepingThePathsPaceIsNeverRacedAndOneThatStallsIsRacedWhenItFallsBehind() {
    ChainProgress p = start();
    p.asked(MIB, 2_000 * MS); // the link model: 1 MiB takes 2 s over the helpers' path, shared with the repair
    long asked = now;
    // Queued behind the repair for 410 ms, then half the range by 900 ms: at the path's pace half needs 1 s.
    now = asked + 410 * MS;
    p.arrived(0, 64 << 10);
    now = asked + 900 * MS;
    p.arrived(64 << 10, MIB / 2 - (64 << 10));
    assertEquals(asked + 1_500 * MS, p.hedgeAt(), "grace 500 ms + 1 s for the half that arrived");
    assertFalse(p.keptPastGrace(asked + 499 * MS), "within its grace: nothing withheld yet");
    assertTrue(p.keptPastGrace(asked + 600 * MS), "past its grace, ahead of the pace: the hedge is withheld");
    // Then it stalls: nothing more arrives, and at 1.5 s it has fallen behind.
    assertFalse(p.keptPastGrace(asked + 1_500 * MS));
    // Or it keeps going: all but one slice by 1.4 s moves the hedge to 500 ms + 2 s x 15/16.
    now = asked + 1_400 * MS;
    p.arrived(MIB / 2, MIB / 2 - (64 << 10));
    assertEquals(asked + 2_375 * MS, p.hedgeAt());
    p.arrived(MIB - (64 << 10), 64 << 10);
    assertEquals(Long.MAX_VALUE, p.hedgeAt(), "every byte is in: the chain is answering");
  }

  @Test
  void withoutAKnownPaceTheHedgeFiresWhenTheGraceEndsHoweverFastTheChainDelivers() {
    ChainProgress p = start();
    p.asked(MIB, 0);
    long asked = now;
    now = asked + 10 * MS;
    p.arrived(0, MIB - 1);
    assertEquals(asked + GRACE, p.hedgeAt());
    p.arrived(MIB - 1, 1);
    assertEquals(Long.MAX_VALUE, p.hedgeAt());
  }

  @Test
  void aRestartedAttemptKeepsTheTimeOfTheFirstAskingAndCountsItsBytesAfresh() {
    ChainProgress p = start();
    p.asked(MIB, 1_000 * MS);
    long asked = now;
    now = asked + 100 * MS;
    p.arrived(0, MIB / 2);
    assertEquals(asked + 1_000 * MS, p.hedgeAt());
    now = asked + 200 * MS;
    p.arrived(0, MIB / 4); // one restart without a helper to blame: its first slice starts the count again
    assertEquals(asked + 750 * MS, p.hedgeAt(), "a quarter of the range, timed from the first asking");
  }
}
