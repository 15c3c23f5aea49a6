package org.wideec.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TokenBucketTest {
  private long now;

  private TokenBucket bucket(long rate, long burst) {
    return new TokenBucket(rate, burst, () -> now);
  }

  @Test
  void aFullBucketGivesOneBurstThenTheRate() {
    TokenBucket b = bucket(1000, 500);
    assertEquals(0, b.tryTake(500));
    long wait = b.tryTake(100);
    assertEquals(100_000_000L, wait, "100 bytes at 1000 B/s: 100 ms");
    now += wait;
    assertEquals(0, b.tryTake(100));
    assertEquals(600, b.takenBytes());
    assertEquals(600, b.earnedBytes());
  }

  @Test
  void overAnyRunTheBytesTakenStayWithinRateTimesTimePlusOneBurst() {
    TokenBucket b = bucket(10_000, 2_000);
    long start = now;
    long taken = 0;
    for (int i = 0; i < 1000; i++) {
      long wait = b.tryTake(700);
      if (wait == 0) {
        taken += 700;
      } else {
        now += Math.max(1, wait / 3); // callers come back early, late, at random: the bucket decides
      }
      assertTrue(taken <= 2_000 + 10_000 * (now - start) / 1_000_000_000.0 + 1e-6, "taken " + taken + " at " + now);
    }
    assertEquals(taken, b.takenBytes());
    assertTrue(b.takenBytes() <= b.earnedBytes());
  }

  @Test
  void idleTimeEarnsAtMostOneBurst() {
    TokenBucket b = bucket(1000, 500);
    assertEquals(0, b.tryTake(500));
    now += 60_000_000_000L; // a minute idle
    assertEquals(0, b.tryTake(500));
    assertTrue(b.tryTake(1) > 0, "a minute idle left one burst, not 60 000 bytes");
    assertEquals(1000, b.earnedBytes());
  }

  @Test
  void aTakeLargerThanTheBurstPassesOnceTheBucketIsFullAndLeavesDebt() {
    TokenBucket b = bucket(1000, 500);
    assertEquals(0, b.tryTake(800));
    assertEquals(300_000_000L + 500_000_000L, b.tryTake(500), "300 bytes of debt and 500 more: 0.8 s");
    assertTrue(b.takenBytes() <= b.earnedBytes() + 800, "at most one oversized take beyond what was earned");
  }

  @Test
  void aNewRateTakesEffectOnTheNextTake() {
    TokenBucket b = bucket(1000, 100);
    assertEquals(0, b.tryTake(100));
    assertEquals(100_000_000L, b.tryTake(100));
    b.setRate(10_000, 100);
    assertEquals(10_000_000L, b.tryTake(100), "the next take waits at the new rate");
    now += 10_000_000L;
    assertEquals(0, b.tryTake(100));
    b.setRate(100, 100);
    now += 500_000_000L;
    assertEquals(500_000_000L, b.tryTake(100), "half a second at 100 B/s earned 50 bytes; 50 more take 0.5 s");
    assertEquals(250, b.earnedBytes());
  }

  @Test
  void rateZeroIsNoLimit() {
    TokenBucket b = bucket(0, 1);
    assertEquals(0, b.tryTake(1L << 40));
    assertEquals(1L << 40, b.takenBytes());
    assertEquals(1 + (1L << 40), b.earnedBytes(), "what was taken without a limit was allowed");
  }

  @Test
  void aLimitSetAfterUnlimitedTakesKeepsTheAccountExact() {
    TokenBucket b = bucket(0, 100);
    assertEquals(0, b.tryTake(5000));
    b.setRate(1000, 100);
    assertEquals(0, b.tryTake(100), "the bucket starts the limit full");
    assertTrue(b.tryTake(100) > 0);
    assertTrue(b.takenBytes() <= b.earnedBytes());
  }

  @Test
  void aBucketNeedsABurst() {
    assertThrows(IllegalArgumentException.class, () -> bucket(1000, 0));
  }
}
