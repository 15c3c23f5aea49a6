package org.wideec.time;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ByteRateTest {
  @Test
  void bytesBeyondTheFirstSecondsCreditWaitForTheirShareOfTime() throws InterruptedException {
    ByteRate rate = new ByteRate(1 << 20);
    long start = System.nanoTime();
    rate.acquire(1 << 20); // the first second's worth starts at once
    rate.acquire(1 << 19); // the next half second's waits for the first to have had its second
    long elapsedMs = (System.nanoTime() - start) / 1_000_000;
    // A lower bound only: sleeping never ends early, however loaded the machine.
    assertTrue(elapsedMs >= 900, elapsedMs + " ms");
  }

  @Test
  void zeroMeansNoLimit() throws InterruptedException {
    ByteRate off = new ByteRate(0);
    for (int i = 0; i < 1000; i++) {
      off.acquire(Long.MAX_VALUE / 2);
    }
  }
}
