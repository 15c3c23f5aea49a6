package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeState;

/**
 * A trim's deletions are handed to the DataNodes by the NameNode plugin's trimmer as it makes them (and a move's
 * source's as it finds it), not left to HDFS's invalidation rounds: here the NameNode's redundancy monitor, which hands
 * out deletions, runs once in ten minutes, and a trim still ends within its wait (a minute) with every data block on its
 * planned node alone (without the hand-out no replica would be deleted and the wait would run out).
 */
class TrimDeletionsClusterTest extends ArchiveTestBed {
  @Override
  Configuration baseConf() {
    Configuration base = trimmingConf(60_000);
    base.set(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, "600");
    return base;
  }

  @BeforeAll
  void awaitLease() {
    awaitTrimmerLease();
  }

  @Test
  void aTrimEndsWithoutWaitingForTheNameNodesInvalidationRounds() throws Exception {
    checks.write("/d/a", 9 * BLOCK + 1000); // a full stripe and a short one
    checks.write("/d/b", 3 * BLOCK);
    ToolRun r = tool("archive", "/d", "--code", CODE, "--json");
    assertEquals(0, r.exit(), r.out() + r.err());
    JsonNode j = r.json();
    assertEquals(0, j.get("notTrimmed").size(), r.out());
    assertEquals(0, j.get("dataOffPlan").size(), r.out());
    StripeManifest m = manifestOf("/d");
    assertTrue(m.stripes().size() >= 2, m.toString());
    m.stripes().forEach(s -> assertEquals(StripeState.TRIMMED, s.state(), "stripe " + s.stripeId()));
    everyDataBlockOnItsPlannedNodeOnly(m);
    checks.everyByteReadsBack();
  }
}
