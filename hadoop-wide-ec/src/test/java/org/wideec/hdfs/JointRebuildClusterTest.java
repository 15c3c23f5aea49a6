package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeDescriptor;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.ArchivedStripeRepair;
import org.wideec.archive.RebuildJobs;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.datanode.WideEcDataNodePlugin;
import org.wideec.minicluster.Eventually;
import org.wideec.minicluster.MiniClusters;
import org.wideec.placement.hdfs.WideEcNameNodeMetrics;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;
import org.wideec.repair.RepairScheme;
import org.wideec.topology.Site;

/**
 * A whole rack that held several units of one local group is lost (rack-loss repair traffic): the NameNode
 * orders one joint rebuild of them, whose helpers are read once, instead of one global decode per unit. On the racked
 * test bed (6 racks x 3 DataNodes, 64 KiB blocks) with azure-lrc:k=8,l=2,g=2 under combined locality (data 0-7,
 * global parities 8-9, local parities 10-11; group 0 in a rack of three and a rack of two, group 1 likewise, the
 * global parities in a fifth rack, a sixth rack spare), the rack of three of group 0's units goes: every unit comes back under its own block id with the manifest's CRC, and the
 * DataNodes count exactly the cross-rack slice bytes the joint plan predicts, fewer than rebuilding one by one would.
 * A cluster of its own, so no other test's repairs add to the DataNodes' byte counts.
 */
class JointRebuildClusterTest extends ArchiveTestBed {
  private static final String WIDE = "azure-lrc:k=8,l=2,g=2";

  @Override
  Configuration baseConf() {
    Configuration base = repairConf(300);
    base.setLong("wide-ec.archive.repair.backoff.ms", 500);
    // No second decode of a sample: the DataNodes' byte counts are then the plan's alone.
    base.setBoolean("dfs.datanode.ec.reconstruction.validation", false);
    return base;
  }

  @BeforeAll
  void awaitLease() throws Exception {
    awaitTrimmerLease();
  }

  private static WideEcNameNodeMetrics metrics() {
    return WideEcNameNodePlugin.metrics();
  }

  private long crossRackBytesSent() {
    long sum = 0;
    for (DataNode dn : cluster.getDataNodes()) {
      WideEcDataNodePlugin p = WideEcDataNodePlugin.running(dn.getXferPort());
      if (p != null && p.metrics() != null) {
        sum += p.metrics().bytesSentCrossRack();
      }
    }
    return sum;
  }

  @Test
  void aLostRackOfOneGroupsUnitsIsOneJointRebuildThatCrossesRacksAsPlanned() throws Exception {
    checks.write("/jr/f", 8 * BLOCK);
    ToolRun r = tool("archive", "/jr/f", "--code", WIDE);
    assertEquals(0, r.exit(), r.out() + r.err());
    StripeManifest m = manifestOf("/jr/f");
    assertEquals(1, m.stripes().size());
    ArchivedStripe s = m.stripes().get(0);
    assertEquals(StripeState.TRIMMED, s.state());
    // The rack of three of group 0's data units (which three, and which rack, is the planner's choice).
    Map<String, List<Integer>> byRack = new HashMap<>();
    for (int u : s.storedUnits()) {
      byRack.computeIfAbsent(s.member(u).plannedRack(), x -> new ArrayList<>()).add(u);
    }
    String rack = byRack.entrySet().stream().filter(e -> e.getValue().size() == 3 && e.getValue().get(0) < 4)
        .map(Map.Entry::getKey).findFirst().orElseThrow(() -> new AssertionError("no rack of group 0: " + byRack));
    List<Integer> lost = byRack.get(rack);
    // Combined locality puts three of group 0's data units (0-3) in one rack; which three is the planner's choice.
    assertEquals(3, lost.size(), lost.toString());
    assertTrue(lost.stream().allMatch(u -> u < 4), lost.toString());
    int[] lostUnits = lost.stream().mapToInt(Integer::intValue).toArray();

    long orders = metrics().archiveRebuildOrders();
    long joint = metrics().archiveJointRebuilds();
    long repaired = metrics().archivedBlocksRepaired();
    long planned = metrics().archiveRebuildCrossRackBytesPlanned();
    long sent = crossRackBytesSent();
    // Stop every DataNode of the rack, then have the NameNode declare them all dead at once, so the monitor sees the
    // three units lost in the same pass.
    List<DatanodeDescriptor> dead = new ArrayList<>();
    for (DataNode dn : new ArrayList<>(cluster.getDataNodes())) {
      DatanodeDescriptor d = cluster.getNamesystem().getBlockManager().getDatanodeManager()
          .getDatanode(dn.getDatanodeId());
      if (d.getNetworkLocation().equals(rack)) {
        dead.add(d);
        cluster.stopDataNode(dn.getDatanodeId().getXferAddr());
      }
    }
    assertEquals(3, dead.size());
    // At once, so that no pass of the monitor sees one or two of the three removed.
    MiniClusters.declareDeadAtOnce(cluster, dead);

    for (int u : lost) {
      Eventually.await("unit " + u + " live again", Duration.ofSeconds(60),
          () -> located(s.member(u)).getLocations().length > 0);
    }
    // Counted once the monitor sees each live.
    Eventually.await("three rebuilds counted", Duration.ofSeconds(60),
        () -> metrics().archivedBlocksRepaired() - repaired, n -> n >= 3);
    assertEquals(1, metrics().archiveRebuildOrders() - orders, "one order for the three units");
    assertEquals(1, metrics().archiveJointRebuilds() - joint);
    assertEquals(repaired + 3, metrics().archivedBlocksRepaired());

    Map<Integer, String> targetRack = new HashMap<>();
    Map<String, Integer> perRack = new HashMap<>();
    for (int u : s.storedUnits()) {
      StripeMember mem = s.member(u);
      LocatedBlock lb = located(mem);
      String what = "unit " + u + " blk_" + mem.blockId();
      assertEquals(mem.blockId(), lb.getBlock().getBlockId(), what);
      assertEquals(mem.generationStamp(), lb.getBlock().getGenerationStamp(), what);
      assertEquals(mem.length(), lb.getBlockSize(), what);
      assertEquals(1, lb.getLocations().length, what);
      String at = lb.getLocations()[0].getNetworkLocation();
      perRack.merge(at, 1, Integer::sum);
      if (lost.contains(u)) {
        byte[] b = new byte[(int) lb.getBlockSize()];
        try (FSDataInputStream in = fs.open(ArchiveLayout.inodePath(mem.inodeId()))) {
          in.readFully(lb.getStartOffset(), b);
        }
        assertEquals(mem.crc32c(), ArchiveChecks.crc(b), what);
        targetRack.put(u, at);
      }
    }
    perRack.forEach((rk, n) -> assertTrue(n <= s.code().guaranteedTolerance(), rk + " holds " + n + " units"));

    // The plan as the monitor made it: the same lost units and helpers, the targets it chose.
    Map<Integer, ArchivedStripeRepair.BlockNow> now = new HashMap<>();
    for (int u : s.storedUnits()) {
      StripeMember mem = s.member(u);
      now.put(u, new ArchivedStripeRepair.BlockNow(mem.generationStamp(), mem.length(), lost.contains(u) ? List.of()
          : List.of(new Site(mem.plannedNode(), mem.plannedRack()))));
    }
    ArchivedStripeRepair p = ArchivedStripeRepair.of(s, now);
    List<RebuildJobs.Job> jobs = RebuildJobs.plan(p, lostUnits, targetRack, RepairScheme.RACK_AGGREGATED,
        Comparator.naturalOrder());
    assertEquals(1, jobs.size());
    RebuildJobs.Job job = jobs.get(0);
    assertArrayEquals(lostUnits, job.units());
    assertEquals(job.sliceBytes(), crossRackBytesSent() - sent, "the DataNodes count what the joint plan predicts");
    assertEquals(job.crossRackBytes(), metrics().archiveRebuildCrossRackBytesPlanned() - planned);
    // One by one, each unit is a global decode over the other eight units but L11 (group 0's fourth data unit and
    // L10, group 1's data, the global parities), in four racks, aggregated rack by rack: one crossing per helper rack
    // other than the target's.
    java.util.Set<String> helperRacks = new java.util.HashSet<>();
    for (int u = 0; u <= 10; u++) {
      if (!lost.contains(u)) {
        helperRacks.add(s.member(u).plannedRack());
      }
    }
    assertEquals(4, helperRacks.size());
    long perUnit = 0;
    for (int u : lost) {
      perUnit += (4 - (helperRacks.contains(targetRack.get(u)) ? 1 : 0)) * BLOCK;
    }
    assertEquals(perUnit, job.perUnitBytes());
    assertTrue(job.crossRackBytes() < job.perUnitBytes(), job.crossRackBytes() + " >= " + job.perUnitBytes());
    assertEquals(0, fs.getClient().getMissingBlocksCount());
    checks.everyByteReadsBack();
  }
}
