package org.wideec.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackoffTest {
  @Test
  void theNameNodePollDoublesFromItsFirstPauseToASecond() throws Exception {
    Backoff poll = Backoff.pollingNameNode(200);
    List<Long> pauses = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      pauses.add(poll.nextPauseMs());
      poll.pause();
    }
    assertEquals(List.of(200L, 400L, 800L, 1000L, 1000L), pauses);
  }

  @Test
  void equalFirstAndMaxPausesGiveAFixedPause() throws Exception {
    Backoff fixed = Backoff.doubling(1, 1, 60_000);
    fixed.pause();
    fixed.pause();
    assertEquals(1, fixed.nextPauseMs());
  }

  @Test
  void aWaitWithNoBoundNeverExpiresAndABoundOfZeroExpiresAfterAPause() throws Exception {
    Backoff unbounded = Backoff.pollingNameNode(1);
    Backoff zero = Backoff.doubling(1, 1, 0);
    unbounded.pause();
    zero.pause();
    assertFalse(unbounded.expired());
    assertTrue(zero.expired());
  }

  @Test
  void anInterruptedPauseIsAnInterruptedIoExceptionWithTheCallersWordsAndTheFlagSet() {
    Backoff poll = Backoff.pollingNameNode(10_000);
    Thread.currentThread().interrupt();
    InterruptedIOException e = assertThrows(InterruptedIOException.class,
        () -> poll.pause("interrupted completing /p"));
    assertEquals("interrupted completing /p", e.getMessage());
    assertTrue(Thread.interrupted());
  }

  @Test
  void pausesOutOfOrderAreRefusedAtTheDoor() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Backoff.doubling(100, 50, 1000));
    assertTrue(e.getMessage().contains("100, 50 ms"), e.getMessage());
  }

  @Test
  void aNegativeBoundIsNoTimeLeftNotAnError() {
    // Wait settings read from the configuration may be -1: the caller looks once, then reports.
    assertTrue(Backoff.pollingNameNode(50, -1).expired());
    assertTrue(Backoff.doubling(10, 10, -5).expired());
  }

  @Test
  void eachFailureDoublesAThingsWaitToTheCapAndASuccessForgetsIt() {
    FailureBackoff<Long> b = new FailureBackoff<>(30_000, 100_000);
    assertFalse(b.waiting(7L));
    assertEquals(List.of(30_000L, 60_000L, 100_000L, 100_000L),
        List.of(b.failed(7L), b.failed(7L), b.failed(7L), b.failed(7L)));
    assertTrue(b.waiting(7L));
    assertFalse(b.waiting(8L), "another block is not held back");
    b.succeeded(7L);
    assertFalse(b.waiting(7L));
    assertEquals(30_000L, b.failed(7L), "after a success the next failure starts from the first wait again");
  }

  @Test
  void aCapBelowTheFirstWaitCapsOnlyTheWaitsAfterIt() {
    FailureBackoff<String> b = new FailureBackoff<>(7_200_000, 3_600_000);
    assertEquals(List.of(7_200_000L, 3_600_000L, 3_600_000L), List.of(b.failed("x"), b.failed("x"), b.failed("x")));
  }
}
