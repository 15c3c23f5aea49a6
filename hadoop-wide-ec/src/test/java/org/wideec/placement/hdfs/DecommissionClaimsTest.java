package org.wideec.placement.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DecommissionClaimsTest {
  private static final long HOUR = 3_600_000;

  @AfterEach
  void stop() {
    DecommissionClaims.stop();
  }

  @Test
  void nothingIsClaimedWhileNoDecommissionRuns() {
    DecommissionClaims.claimGroups(Set.of(-1024L));
    DecommissionClaims.claimArchived(Set.of(5L));
    assertFalse(DecommissionClaims.claimsGroup(-1024));
    assertFalse(DecommissionClaims.claimsArchivedBlock(5));
  }

  @Test
  void onlyTheGroupsAndArchivedBlocksTheLastPassPublishedAreClaimed() {
    DecommissionClaims.start(() -> { }, HOUR);
    DecommissionClaims.claimGroups(Set.of(-1024L));
    DecommissionClaims.claimArchived(Set.of(3L, 5L));
    assertTrue(DecommissionClaims.claimsGroup(-1024));
    assertFalse(DecommissionClaims.claimsGroup(-2048), "a group no pass planned is HDFS's to copy");
    assertTrue(DecommissionClaims.claimsArchivedBlock(5));
    assertFalse(DecommissionClaims.claimsArchivedBlock(9), "an archived block nobody rebuilds is HDFS's to copy");
    DecommissionClaims.claimGroups(Set.of());
    DecommissionClaims.claimArchived(Set.of(3L));
    assertFalse(DecommissionClaims.claimsGroup(-1024), "the next pass no longer plans it");
    assertFalse(DecommissionClaims.claimsArchivedBlock(5), "the next pass no longer rebuilds it");
  }

  @Test
  void claimsLapseWhenNoPassRenewedThemWithinTheirLease() {
    DecommissionClaims.start(() -> { }, 0); // a lease of no time: as if the last pass ended long ago
    DecommissionClaims.claimGroups(Set.of(-1024L));
    DecommissionClaims.claimArchived(Set.of(5L));
    assertFalse(DecommissionClaims.claimsGroup(-1024));
    assertFalse(DecommissionClaims.claimsArchivedBlock(5));
  }

  @Test
  void claimsWakeTheMonitorAtMostOncePerInterval() {
    AtomicInteger woken = new AtomicInteger();
    DecommissionClaims.start(woken::incrementAndGet, HOUR);
    DecommissionClaims.claimGroups(Set.of(-1024L, -2048L));
    DecommissionClaims.claimArchived(Set.of(5L));
    for (int cycle = 0; cycle < 100; cycle++) { // the RedundancyMonitor asking again every cycle
      assertTrue(DecommissionClaims.claimsGroup(-1024));
      assertTrue(DecommissionClaims.claimsGroup(-2048));
      assertTrue(DecommissionClaims.claimsArchivedBlock(5));
    }
    assertEquals(1, woken.get());
  }

  @Test
  void aGroupGivenBackIsHdfssToCopyUntilItsTimeIsUpAndALaterShorterGiveBackDoesNotShortenIt() {
    DecommissionClaims.start(() -> { }, HOUR);
    DecommissionClaims.claimGroups(Set.of(-1024L, -2048L, -4096L));
    DecommissionClaims.giveBack(-2048, HOUR);
    DecommissionClaims.giveBack(-2048, 0);
    DecommissionClaims.giveBack(-4096, 0);
    assertFalse(DecommissionClaims.claimsGroup(-2048));
    assertTrue(DecommissionClaims.claimsGroup(-1024), "other groups stay claimed");
    assertTrue(DecommissionClaims.claimsGroup(-4096), "given back for no time: claimed again");
  }
}
