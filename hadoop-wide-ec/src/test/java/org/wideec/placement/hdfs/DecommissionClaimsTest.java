package org.wideec.placement.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DecommissionClaimsTest {
  @AfterEach
  void stop() {
    DecommissionClaims.stop();
  }

  @Test
  void nothingIsClaimedWhileNoDecommissionRuns() {
    DecommissionClaims.archivedBlocks(new long[] {5});
    assertFalse(DecommissionClaims.claimsGroup(-1024));
    assertFalse(DecommissionClaims.claimsArchivedBlock(5));
  }

  @Test
  void aRunningDecommissionClaimsGroupsAndOnlyTheArchivedBlocksItKnowsAndIsWokenByEachClaim() {
    AtomicInteger woken = new AtomicInteger();
    DecommissionClaims.start(woken::incrementAndGet);
    DecommissionClaims.archivedBlocks(new long[] {3, 5, 9});
    assertTrue(DecommissionClaims.claimsGroup(-1024));
    assertTrue(DecommissionClaims.claimsArchivedBlock(5));
    assertFalse(DecommissionClaims.claimsArchivedBlock(4), "a block of no archived stripe is HDFS's to copy");
    assertEquals(2, woken.get());
  }

  @Test
  void aGroupGivenBackIsHdfssToCopyUntilItsTimeIsUp() {
    DecommissionClaims.start(() -> { });
    DecommissionClaims.giveBack(-2048, 3_600_000);
    DecommissionClaims.giveBack(-4096, 0);
    assertFalse(DecommissionClaims.claimsGroup(-2048));
    assertTrue(DecommissionClaims.claimsGroup(-1024), "other groups stay claimed");
    assertTrue(DecommissionClaims.claimsGroup(-4096), "given back for no time: claimed again");
  }
}
