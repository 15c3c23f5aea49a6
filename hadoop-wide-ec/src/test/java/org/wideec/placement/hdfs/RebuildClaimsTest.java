package org.wideec.placement.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RebuildClaimsTest {
  private static final long HOUR = 3_600_000;
  private static final Set<String> NODE = Set.of("10.0.0.1:9866");

  @AfterEach
  void stop() {
    RebuildClaims.stop();
  }

  @Test
  void nothingIsClaimedWhileNoDecommissionRuns() {
    RebuildClaims.claimGroups(Set.of(-1024L), NODE);
    RebuildClaims.claimArchived(Set.of(5L), NODE);
    assertFalse(RebuildClaims.claimsGroup(-1024, NODE));
    assertFalse(RebuildClaims.claimsArchivedBlock(5, NODE));
  }

  @Test
  void onlyTheGroupsAndArchivedBlocksTheLastPassPublishedAreClaimed() {
    RebuildClaims.start(() -> { }, HOUR, true, false);
    RebuildClaims.claimGroups(Set.of(-1024L), NODE);
    RebuildClaims.claimArchived(Set.of(3L, 5L), NODE);
    assertTrue(RebuildClaims.claimsGroup(-1024, NODE));
    assertFalse(RebuildClaims.claimsGroup(-2048, NODE), "a group no pass planned is HDFS's to copy");
    assertTrue(RebuildClaims.claimsArchivedBlock(5, NODE));
    assertFalse(RebuildClaims.claimsArchivedBlock(9, NODE), "an archived block nobody rebuilds is HDFS's to copy");
    RebuildClaims.claimGroups(Set.of(), NODE);
    RebuildClaims.claimArchived(Set.of(3L), NODE);
    assertFalse(RebuildClaims.claimsGroup(-1024, NODE), "the next pass no longer plans it");
    assertFalse(RebuildClaims.claimsArchivedBlock(5, NODE), "the next pass no longer rebuilds it");
  }

  @Test
  void claimsLapseWhenNoPassRenewedThemWithinTheirLease() {
    RebuildClaims.start(() -> { }, 0, true, false); // a lease of no time: as if the last pass ended long ago
    RebuildClaims.claimGroups(Set.of(-1024L), NODE);
    RebuildClaims.claimArchived(Set.of(5L), NODE);
    assertFalse(RebuildClaims.claimsGroup(-1024, NODE));
    assertFalse(RebuildClaims.claimsArchivedBlock(5, NODE));
  }

  @Test
  void claimsWakeTheMonitorAtMostOncePerInterval() {
    AtomicInteger woken = new AtomicInteger();
    RebuildClaims.start(woken::incrementAndGet, HOUR, true, false);
    RebuildClaims.claimGroups(Set.of(-1024L, -2048L), NODE);
    RebuildClaims.claimArchived(Set.of(5L), NODE);
    for (int cycle = 0; cycle < 100; cycle++) { // the RedundancyMonitor asking again every cycle
      assertTrue(RebuildClaims.claimsGroup(-1024, NODE));
      assertTrue(RebuildClaims.claimsGroup(-2048, NODE));
      assertTrue(RebuildClaims.claimsArchivedBlock(5, NODE));
    }
    assertEquals(1, woken.get());
  }

  @Test
  void aGroupGivenBackIsHdfssToCopyUntilItsTimeIsUpAndALaterShorterGiveBackDoesNotShortenIt() {
    RebuildClaims.start(() -> { }, HOUR, true, false);
    RebuildClaims.claimGroups(Set.of(-1024L, -2048L, -4096L), NODE);
    RebuildClaims.giveBack(-2048, HOUR);
    RebuildClaims.giveBack(-2048, 0);
    RebuildClaims.giveBack(-4096, 0);
    assertFalse(RebuildClaims.claimsGroup(-2048, NODE));
    assertTrue(RebuildClaims.claimsGroup(-1024, NODE), "other groups stay claimed");
    assertTrue(RebuildClaims.claimsGroup(-4096, NODE), "given back for no time: claimed again");
  }

  @Test
  void aNodeThatStartedLeavingAfterTheLastPassLookedHasItsUnitsClaimedUntilTheNextPassSeesIt() {
    int[] wakes = new int[1];
    RebuildClaims.start(() -> wakes[0]++, HOUR, true, false);
    // Before the first pass (it waits an interval for block reports), a node that starts leaving is claimed and
    // wakes the monitor; its lease lapses if no pass follows.
    assertTrue(RebuildClaims.claimsGroup(-1024, NODE), "no pass ran yet: the first pass plans it");
    assertEquals(1, wakes[0], "and runs now");
    RebuildClaims.claimGroups(Set.of(), Set.of());
    RebuildClaims.claimArchived(Set.of(), Set.of());
    assertTrue(RebuildClaims.claimsGroup(-1024, NODE), "the next pass plans it");
    assertTrue(RebuildClaims.claimsArchivedBlock(5, NODE), "the next pass rebuilds it");
    RebuildClaims.claimGroups(Set.of(), NODE);
    RebuildClaims.claimArchived(Set.of(), NODE);
    assertFalse(RebuildClaims.claimsGroup(-1024, NODE), "the pass saw the node and did not plan the group");
    assertFalse(RebuildClaims.claimsArchivedBlock(5, NODE), "the pass saw the node and rebuilds no such block");
  }

  @Test
  void aLostGroupIsClaimedWhenTheLastPassPlannedItOrHadNotSeenItAndOtherwiseIsHdfss() {
    int[] wakes = {0};
    RebuildClaims.start(() -> wakes[0]++, HOUR, false, true);
    assertTrue(RebuildClaims.claimsLostGroup(-1024), "no pass ran yet: the first pass plans it");
    assertEquals(1, wakes[0], "and the claim woke the monitor");
    RebuildClaims.claimLost(Set.of(-1024L), Set.of(-1024L, -2048L));
    assertTrue(RebuildClaims.claimsLostGroup(-1024), "planned");
    assertFalse(RebuildClaims.claimsLostGroup(-2048), "seen and not planned: HDFS reconstructs it");
    assertTrue(RebuildClaims.claimsLostGroup(-4096), "lost since the pass looked: the next pass decides");
    RebuildClaims.claimLost(Set.of(-1024L), null);
    assertTrue(RebuildClaims.claimsLostGroup(-1024), "planned");
    assertFalse(RebuildClaims.claimsLostGroup(-4096), "a pass that could not look at every group claims no unseen one");
    RebuildClaims.giveBack(-1024, HOUR);
    assertFalse(RebuildClaims.claimsLostGroup(-1024), "an order that failed hands its group back");
    assertFalse(RebuildClaims.claimsGroup(-8192, NODE), "no decommission runs: no leaving unit is claimed");
  }

  @Test
  void noLostGroupIsClaimedWhileTheRebuildOfLostUnitsIsOffOrItsLeaseLapsed() {
    RebuildClaims.start(() -> { }, HOUR, true, false);
    RebuildClaims.claimLost(Set.of(-1024L), Set.of());
    assertFalse(RebuildClaims.claimsLostGroup(-1024));
    RebuildClaims.stop();
    RebuildClaims.start(() -> { }, 0, false, true);
    RebuildClaims.claimLost(Set.of(-1024L), Set.of());
    assertFalse(RebuildClaims.claimsLostGroup(-1024));
  }
}
