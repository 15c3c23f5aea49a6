package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.junit.jupiter.api.Test;
import org.wideec.datanode.RepairMetrics;
import org.wideec.minicluster.MiniClusters;

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
    Configuration c = MiniClusters.withWideEcRepair(new Configuration());
    c.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    c.setLong("wide-ec.transport.stall.timeout.ms", 10_000);
    return c;
  }

  @Test
  void aFillRunsOnTheDataNodesForEachSchemeCrossingRacksExactlyItsPlansChunks() throws Exception {
    for (String scheme : List.of("baseline", "cau", "rackcu")) {
      String dir = "/dn-fill-" + scheme;
      for (int i = 0; i < SIZES.length; i++) {
        checks.write(dir + "/f" + i, SIZES[i]);
      }
      // The chain encoder first moves every data block onto its planned node, so the holders are the plan's.
      ToolRun archived = tool("archive", dir, "--code", CODE, "--no-trim", "--encoder", "chain");
      assertEquals(0, archived.exit(), archived.out() + archived.err());
      checks.write(dir + "/g0", BLOCK / 2 + 123); // slot 3 of stripe 1; its group's local parity 9 comes on

      ToolRun dry = fill("--fill", dir, "--dry-run", "--json", "--scheme", scheme);
      assertEquals(0, dry.exit(), dry.out() + dry.err());
      long expected = ParityUpdateOnDataNodesClusterTest.plannedCrossRackBytes(dry.json(), scheme);
      assertTrue(expected > 0, dry.out());
      long before = sumOverDataNodes(RepairMetrics::updateRowBytesSentCrossRack);
      ToolRun r = fill("--fill", dir, "--json", "--no-trim", "--scheme", scheme);
      assertEquals(0, r.exit(), r.out() + r.err());
      assertEquals("datanode", r.json().get("executor").asText(), scheme + ": " + r.out());
      assertEquals(3, r.json().get("parityBlocksWritten").asInt(), "the two globals and local parity 9, coming on");
      assertEquals(expected, sumOverDataNodes(RepairMetrics::updateRowBytesSentCrossRack) - before,
          scheme + ": rows delivered across racks against the plan: " + dry.out());
      archivedIntoItsSlots(dir, dir + "/g0", List.of("1:3"));
      everythingChecksOut(manifestOf(dir));
    }
  }
}
