package org.wideec.placement.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The repair monitor's report-once memory holds only what the last pass found. */
class ReportedOnceTest {
  @Test
  void aConditionIsReportedOnceWhileItLastsAndForgottenOnceAPassNoLongerFindsIt() {
    ReportedOnce<String> r = new ReportedOnce<>();
    r.beginPass();
    assertTrue(r.first("unrecoverable 1"));
    assertTrue(r.first("stale m 0"));
    r.endPass();
    r.beginPass();
    assertFalse(r.first("unrecoverable 1"));
    r.endPass(); // "stale m 0" not found: repaired, re-archived or deleted
    assertEquals(1, r.size());
    r.beginPass();
    r.endPass();
    assertEquals(0, r.size());
    r.beginPass();
    assertTrue(r.first("unrecoverable 1"), "a condition that comes back is reported again");
    r.endPass();
  }

  @Test
  void aFailedHandlingIsRetriedNextPass() {
    ReportedOnce<Long> r = new ReportedOnce<>();
    r.beginPass();
    assertTrue(r.first(42L));
    r.retry(42L);
    r.endPass();
    r.beginPass();
    assertTrue(r.first(42L));
    r.endPass();
    r.beginPass();
    assertFalse(r.first(42L));
    r.endPass();
  }
}
