package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivalPlan;
import org.wideec.archive.ArchivalPlanner;
import org.wideec.archive.ArchiveGrouping;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.PlacementKind;
import org.wideec.archive.PlannedStripe;
import org.wideec.archive.PlannedUnit;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.archive.hdfs.ArchivalSource;
import org.wideec.archive.hdfs.Archiver;
import org.wideec.archive.hdfs.ChainEncoder;
import org.wideec.archive.hdfs.TrimProtocol;
import org.wideec.code.UnitRole;
import org.wideec.datanode.RepairMetrics;
import org.wideec.minicluster.MiniClusters;

/**
 * Chain archival with stripes grouped around core racks (EAR) on a racked cluster (6 racks x 3 DataNodes, 64 KiB
 * blocks, replicated files written by a client so their replicas lie where HDFS's default placement puts them): the
 * chain reads every unit it can in its stripe's core rack without moving a block first, the parity equals an
 * independent encode, random k-subsets decode, every byte reads back after the trim keeps each block's planned
 * replica, and the DataNodes' cross-rack slice bytes are exactly the dry run's streams plus the replies to the
 * archiver.
 */
class CoreRackArchivalClusterTest extends ArchiveTestBed {

  @Override
  Configuration baseConf() {
    Configuration base = MiniClusters.withWideEcRepair(MiniClusters.withWideEcArchiveTrim(
        MiniClusters.withQuickDataNodeHeartbeats(new Configuration()), 300));
    base.setLong(TrimProtocol.WAIT_KEY, 30_000);
    base.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    return base;
  }

  @Test
  void chainArchivalGroupedByRacksReadsInCoreRacksAndTheDataNodesCountExactlyThePlannedStreams() throws Exception {
    String dir = "/corerack";
    for (int i = 0; i < 4; i++) {
      checks.write(dir + "/f" + i, 6 * BLOCK + (i == 3 ? 1000 : 0));
    }
    Path path = new Path(dir);
    ArchivalPlan dryRun = ArchivalPlanner.plan(new ArchivalSource(fs, ArchiveGrouping.RACKS).request(path, CODE,
        PlacementKind.CL));
    System.out.println(dryRun.describe());
    ArchivalPlan fileOrder = ArchivalPlanner.plan(new ArchivalSource(fs, ArchiveGrouping.FILES).request(path, CODE,
        PlacementKind.CL));
    System.out.println(fileOrder.describe());
    assertEquals(ArchiveGrouping.RACKS, dryRun.grouping());
    assertEquals(5, dryRun.stripes().size(), "25 blocks in stripes of 6");
    assertTrue(dryRun.coreRackStripes() > 0, "some stripe reads in a core rack");
    ToolRun cli = tool("archive", dir, "--code", CODE, "--encoder", "chain", "--grouping", "racks", "--dry-run",
        "--json");
    assertEquals(0, cli.exit(), cli.err());
    JsonNode j = cli.json();
    assertEquals("racks", j.get("grouping").asText());
    assertEquals(dryRun.crossRackBytesPlanned(), j.get("crossRackBytesPlanned").asLong());

    long crossBefore = sumOverDataNodes(RepairMetrics::bytesSentCrossRack);
    long composedBefore = sumOverDataNodes(RepairMetrics::digestsComposed);
    List<EncodePlan> plans;
    StripeManifest m;
    try (ChainEncoder encoder = ChainEncoder.from(fs)) {
      Archiver.Result r = new Archiver(fs, store, encoder, Archiver.Hook.NONE, Archiver.Listener.NONE,
          ArchiveGrouping.RACKS).archive(path, CODE, PlacementKind.CL);
      m = r.manifest();
      plans = encoder.plans();
      long coreStripes = dryRun.stripes().stream().filter(s -> s.chain().coreRack() != null).count();
      long movedBeforeEncode = dryRun.stripes().stream().filter(s -> s.chain().coreRack() == null)
          .flatMap(s -> s.units().stream()).filter(u -> u.action() == PlannedUnit.Action.MOVE).count();
      assertEquals(movedBeforeEncode, r.moved().size(), "only stripes read on their planned nodes move first ("
          + coreStripes + " read in a core rack)");
    }
    long counted = sumOverDataNodes(RepairMetrics::bytesSentCrossRack) - crossBefore;
    assertEquals(dryRun.stripes().size(), plans.size());
    // The data are CRC32C: each data unit's CRC is composed by its holder from the checksums the trees just verified
    // (checked against the bytes below, by the independent encode), never read a second time.
    assertEquals(m.stripes().stream().mapToLong(s -> memberBlockIds(s).size()).sum(),
        sumOverDataNodes(RepairMetrics::digestsComposed) - composedBefore, "data CRCs composed from checksums");
    checks.everyStripeMatchesIndependentEncode(m);
    long expected = 0;
    for (int i = 0; i < plans.size(); i++) {
      PlannedStripe planned = dryRun.stripes().get(i);
      ArchivedStripe s = m.stripes().get(i);
      EncodePlan p = plans.get(i);
      assertEquals(StripeState.COMMITTED, s.state());
      assertEquals(dataBlockIds(planned), memberBlockIds(s), "stripe " + i + " holds the dry run's blocks");
      assertEquals(planned.chain().crossRackStreamBytes(), p.crossRackStreamBytes(), "stripe " + i + " streams");
      assertEquals(planned.chain().crossRackDeliveryBytes(), p.crossRackDeliveryBytes(), "stripe " + i + " deliveries");
      expected += p.crossRackStreamBytes() + ChainEncoderClusterTest.repliesToArchiver(p, s);
    }
    assertEquals(expected, counted, "cross-rack bytes the DataNodes' slice ports sent: the dry run's streams and the"
        + " replies to the archiver");

    awaitTrimmerLease();
    ToolRun trim = tool("archive", dir, "--code", CODE, "--encoder", "chain", "--grouping", "racks", "--json");
    assertEquals(0, trim.exit(), trim.err());
    StripeManifest trimmed = manifestOf(dir);
    for (ArchivedStripe s : trimmed.stripes()) {
      assertEquals(StripeState.TRIMMED, s.state(), "stripe " + s.stripeId());
      for (int u = 0; u < s.code().k(); u++) {
        StripeMember d = s.member(u);
        if (!d.padding()) {
          LocatedBlock lb = located(d);
          assertEquals(1, lb.getLocations().length, "stripe " + s.stripeId() + " unit " + u + " keeps one replica");
          assertEquals(d.plannedNode(), lb.getLocations()[0].getXferAddr(), "stripe " + s.stripeId() + " unit " + u);
        }
      }
    }
    new UpdatedStripeChecks(fs, checks).everythingChecksOut(trimmed);
  }

  private static List<Long> dataBlockIds(PlannedStripe s) {
    return s.units().stream().filter(PlannedUnit::isStoredData).map(u -> u.block().blockId()).toList();
  }

  private static List<Long> memberBlockIds(ArchivedStripe s) {
    List<Long> out = new ArrayList<>();
    for (StripeMember d : s.members()) {
      if (d.role() == UnitRole.DATA && !d.padding()) {
        out.add(d.blockId());
      }
    }
    return out;
  }
}
