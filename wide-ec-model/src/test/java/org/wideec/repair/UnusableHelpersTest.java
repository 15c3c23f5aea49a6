package org.wideec.repair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class UnusableHelpersTest {
  private final AtomicLong nanos = new AtomicLong(1_000);

  @Test
  void anAvoidedNodeIsAvoidedForTheConfiguredTimeAndThenAskedAgain() {
    UnusableHelpers u = new UnusableHelpers(1_000, nanos::get);
    assertTrue(u.avoid("dn1:9866", "worker off"));
    assertFalse(u.avoid("dn1:9866", "worker off"), "already avoided: not reported again");
    assertEquals(Set.of("dn1:9866"), u.now());
    assertEquals(Set.of("dn1:9866"), u.among(Set.of("dn1:9866", "dn2:9866")));
    assertEquals("worker off", u.why("dn1:9866"));
    nanos.addAndGet(1_000_000_001L);
    assertEquals(Set.of(), u.now());
    assertNull(u.why("dn1:9866"));
    assertTrue(u.avoid("dn1:9866", "refused"), "avoided again after its time ran out: reported again");
  }

  @Test
  void zeroRemembersNothingBeyondTheRepairThatFoundIt() {
    UnusableHelpers u = new UnusableHelpers(0, nanos::get);
    assertTrue(u.avoid("dn1:9866", "worker off"));
    assertEquals(Set.of(), u.now());
  }

  @Test
  void aNegativeTimeIsRefusedNamingTheKey() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new UnusableHelpers(-1));
    assertTrue(e.getMessage().contains(UnusableHelpers.AVOID_KEY), e.getMessage());
  }
}
