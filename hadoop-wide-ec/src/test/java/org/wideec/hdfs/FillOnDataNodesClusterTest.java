package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.wideec.datanode.RepairMetrics;

/**
 * Every test of {@link FillClusterTest} again with our DataNode plugin and block tokens on, so that the DataNodes
 * compute the fill's new parity ({@code wide-ec.update.executor=datanode}, the default): a virtual slot's role reads
 * only its new block (its old content is zeros held in no block), and a parity the fill brings on is written from its
 * delta alone. Besides: for each scheme the rows the DataNodes deliver across racks are exactly the plan's cross-rack
 * chunks times the unit length.
 */
class FillOnDataNodesClusterTest extends FillClusterTest {
  @Override
  Configuration baseConf() {
    return ParityUpdateOnDataNodesClusterTest.onDataNodes();
  }

  // Not run again here: each ends before any executor is chosen (a refusal, or a dry run's plan), so the DataNodes take
  // no part and FillClusterTest's run is the proof. Overridden without @Test, JUnit does not run them.

  @Override
  void dryRunPrintsTheStripeUpdateAndThePlanAndChangesNothing() {}

  @Override
  void aFileOpenForWriteAnotherBlockSizeASingleFilesASealedAndNoArchiveAreRefused() {}

  @Test
  void aFillRunsOnTheDataNodesForEachSchemeCrossingRacksExactlyItsPlansChunks() throws Exception {
    for (String scheme : List.of("baseline", "cau", "rackcu")) {
      String dir = "/dn-fill-" + scheme;
      archiveDirOnPlan(dir);
      checks.write(dir + "/g0", BLOCK / 2 + 123); // slot 3 of stripe 1; its group's local parity 9 comes on
      fillOnDataNodes(dir, scheme, 3); // the two globals and local parity 9, coming on
      archivedIntoItsSlots(dir, dir + "/g0", List.of("1:3"));
      everythingChecksOut(manifestOf(dir));
    }
  }

  @Test
  void aFillThatLengthensItsStripeRunsOnTheDataNodesCarryingTheUntouchedLocalParityOver() throws Exception {
    String dir = "/dn-longer";
    archiveDirOnPlan(dir);
    assertEquals(60_000, manifestOf(dir).stripe(1).unitLength());
    checks.write(dir + "/g0", BLOCK + 10); // slots 3 and 4: the unit length grows to a whole block
    // The globals and parity 9 (coming on) take deltas; local parity 8 of untouched units 0-2 is carried over.
    JsonNode dry = fillOnDataNodes(dir, "rackcu", 4);
    assertEquals("[6,7,8,9]", dry.get("archives").get(0).get("stripes").get(0).get("rewrittenParities").toString());
    assertEquals(BLOCK, manifestOf(dir).stripe(1).unitLength());
    archivedIntoItsSlots(dir, dir + "/g0", List.of("1:3", "1:4"));
    everythingChecksOut(manifestOf(dir));
  }

  /** As {@link #archiveDir}, by the chain encoder, which first moves every data block onto its planned node. */
  void archiveDirOnPlan(String dir) throws Exception {
    for (int i = 0; i < SIZES.length; i++) {
      checks.write(dir + "/f" + i, SIZES[i]);
    }
    ToolRun archived = tool("archive", dir, "--code", CODE, "--no-trim", "--encoder", "chain");
    assertEquals(0, archived.exit(), archived.out() + archived.err());
  }

  /**
   * {@code archive --fill} of the directory under the scheme, after its dry run (returned): it runs on the DataNodes,
   * writes {@code parities} blocks, and the DataNodes deliver across racks exactly the dry run's chunks times the unit
   * length.
   */
  JsonNode fillOnDataNodes(String dir, String scheme, int parities) throws Exception {
    ToolRun dry = fill("--fill", dir, "--dry-run", "--json", "--scheme", scheme);
    assertEquals(0, dry.exit(), dry.out() + dry.err());
    long expected = ParityUpdateOnDataNodesClusterTest.plannedCrossRackBytes(dry.json(), scheme);
    assertTrue(expected > 0, dry.out());
    long before = sumOverDataNodes(RepairMetrics::updateRowBytesSentCrossRack);
    ToolRun r = fill("--fill", dir, "--json", "--no-trim", "--scheme", scheme);
    assertEquals(0, r.exit(), r.out() + r.err());
    assertEquals("datanode", r.json().get("executor").asText(), scheme + ": " + r.out());
    assertEquals(parities, r.json().get("parityBlocksWritten").asInt(), r.out());
    assertEquals(expected, sumOverDataNodes(RepairMetrics::updateRowBytesSentCrossRack) - before,
        scheme + ": rows delivered across racks against the plan: " + dry.out());
    return dry.json();
  }
}
