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
  private static final Set<String> NODE = Set.of("10.0.0.1:9866");

  @AfterEach
  void stop() {
    DecommissionClaims.stop();
  }

  @Test
  void nothingIsClaimedWhileNoDecommissionRuns() {
    DecommissionClaims.claimGroups(Set.of(-1024L), NODE);
    DecommissionClaims.claimArchived(Set.of(5L), NODE);
    assertFalse(DecommissionClaims.claimsGroup(-1024, NODE));
    assertFalse(DecommissionClaims.claimsArchivedBlock(5, NODE));
  }

  @Test
  void onlyTheGroupsAndArchivedBlocksTheLastPassPublishedAreClaimed() {
    DecommissionClaims.start(() -> { }, HOUR);
    DecommissionClaims.claimGroups(Set.of(-1024L), NODE);
    DecommissionClaims.claimArchived(Set.of(3L, 5L), NODE);
    assertTrue(DecommissionClaims.claimsGroup(-1024, NODE));
    assertFalse(DecommissionClaims.claimsGroup(-2048, NODE), "a group no pass planned is HDFS's to copy");
    assertTrue(DecommissionClaims.claimsArchivedBlock(5, NODE));
    assertFalse(DecommissionClaims.claimsArchivedBlock(9, NODE), "an archived block nobody rebuilds is HDFS's to copy");
    DecommissionClaims.claimGroups(Set.of(), NODE);
    DecommissionClaims.claimArchived(Set.of(3L), NODE);
    assertFalse(DecommissionClaims.claimsGroup(-1024, NODE), "the next pass no longer plans it");
    assertFalse(DecommissionClaims.claimsArchivedBlock(5, NODE), "the next pass no longer rebuilds it");
  }

  @Test
  void claimsLapseWhenNoPassRenewedThemWithinTheirLease() {
    DecommissionClaims.start(() -> { }, 0); // a lease of no time: as if the last pass ended long ago
    DecommissionClaims.claimGroups(Set.of(-1024L), NODE);
    DecommissionClaims.claimArchived(Set.of(5L), NODE);
    assertFalse(DecommissionClaims.claimsGroup(-1024, NODE));
    assertFalse(DecommissionClaims.claimsArchivedBlock(5, NODE));
  }

  @Test
  void claimsWakeTheMonitorAtMostOncePerInterval() {
    AtomicInteger woken = new AtomicInteger();
    DecommissionClaims.start(woken::incrementAndGet, HOUR);
    DecommissionClaims.claimGroups(Set.of(-1024L, -2048L), NODE);
    DecommissionClaims.claimArchived(Set.of(5L), NODE);
    for (int cycle = 0; cycle < 100; cycle++) { // the RedundancyMonitor asking again every cycle
      assertTrue(DecommissionClaims.claimsGroup(-1024, NODE));
      assertTrue(DecommissionClaims.claimsGroup(-2048, NODE));
      assertTrue(DecommissionClaims.claimsArchivedBlock(5, NODE));
    }
    assertEquals(1, woken.get());
  }

  @Test
  void aGroupGivenBackIsHdfssToCopyUntilItsTimeIsUpAndALaterShorterGiveBackDoesNotShortenIt() {
    DecommissionClaims.start(() -> { }, HOUR);
    DecommissionClaims.claimGroups(Set.of(-1024L, -2048L, -4096L), NODE);
    DecommissionClaims.giveBack(-2048, HOUR);
    DecommissionClaims.giveBack(-2048, 0);
    DecommissionClaims.giveBack(-4096, 0);
    assertFalse(DecommissionClaims.claimsGroup(-2048, NODE));
    assertTrue(DecommissionClaims.claimsGroup(-1024, NODE), "other groups stay claimed");
    assertTrue(DecommissionClaims.claimsGroup(-4096, NODE), "given back for no time: claimed again");
  }

  @Test
  void aNodeThatStartedLeavingAfterTheLastPassLookedHasItsUnitsClaimedUntilTheNextPassSeesIt() {
    int[] wakes = new int[1];
    DecommissionClaims.start(() -> wakes[0]++, HOUR);
    // Before the first pass (it waits an interval for block reports), a node that starts leaving is claimed and
    // wakes the monitor; its lease lapses if no pass follows.
    assertTrue(DecommissionClaims.claimsGroup(-1024, NODE), "no pass ran yet: the first pass plans it");
    assertEquals(1, wakes[0], "and runs now");
    DecommissionClaims.claimGroups(Set.of(), Set.of());
    DecommissionClaims.claimArchived(Set.of(), Set.of());
    assertTrue(DecommissionClaims.claimsGroup(-1024, NODE), "the next pass plans it");
    assertTrue(DecommissionClaims.claimsArchivedBlock(5, NODE), "the next pass rebuilds it");
    DecommissionClaims.claimGroups(Set.of(), NODE);
    DecommissionClaims.claimArchived(Set.of(), NODE);
    assertFalse(DecommissionClaims.claimsGroup(-1024, NODE), "the pass saw the node and did not plan the group");
    assertFalse(DecommissionClaims.claimsArchivedBlock(5, NODE), "the pass saw the node and rebuilds no such block");
  }
}
