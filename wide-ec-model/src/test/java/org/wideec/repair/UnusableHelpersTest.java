package org.wideec.repair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;

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

  @Test
  void aNodeLeftOutWhereItListenedIsAskedAgainOnceItNamesAnotherEndpoint() {
    UnusableHelpers u = new UnusableHelpers(300_000, nanos::get);
    Site site = new Site("dn1:9866", "/r1");
    Endpoint old = new Endpoint("10.0.0.1", 40001, site);
    AtomicReference<Endpoint> advertised = new AtomicReference<>(old);
    AtomicInteger lookups = new AtomicInteger();
    EndpointResolver now = loc -> {
      lookups.incrementAndGet();
      return advertised.get();
    };
    u.avoid(site, "connection refused", old);
    u.avoid("dn2:9866", "refused this node's handshake");
    assertEquals(Set.of(), u.liftMoved(Set.of("dn1:9866", "dn2:9866"), now), "still names the endpoint that failed");
    assertEquals(1, lookups.get(), "a node a new endpoint would not help is not looked up");
    assertEquals(Set.of(), u.liftMoved(Set.of("dn1:9866"), now));
    assertEquals(1, lookups.get(), "looked up at most once a second");
    advertised.set(new Endpoint("10.0.0.1", 40002, site)); // restarted on a new slice port
    nanos.addAndGet(UnusableHelpers.RECHECK_NANOS);
    assertEquals(Set.of("dn1:9866"), u.liftMoved(Set.of("dn1:9866", "dn2:9866"), now));
    assertEquals(Set.of("dn2:9866"), u.now(), "asked again long before its 300 s ran out");
  }

  @Test
  void aNodeWhoseEndpointCouldNotBeFoundIsAskedAgainOnceItNamesOne() {
    UnusableHelpers u = new UnusableHelpers(300_000, nanos::get);
    Site site = new Site("dn1:9866", "/r1");
    AtomicReference<Endpoint> advertised = new AtomicReference<>();
    EndpointResolver now = loc -> {
      if (advertised.get() == null) {
        throw new IOException("cannot discover the slice port of DataNode dn1:9866: connection refused");
      }
      return advertised.get();
    };
    u.avoid(site, "cannot discover the slice port", null);
    assertEquals(Set.of(), u.liftMoved(Set.of("dn1:9866"), now));
    advertised.set(new Endpoint("10.0.0.1", 40002, site)); // its DataNode is up again
    nanos.addAndGet(UnusableHelpers.RECHECK_NANOS);
    assertEquals(Set.of("dn1:9866"), u.liftMoved(Set.of("dn1:9866"), now));
    assertEquals(Set.of(), u.now());
  }
}
