package org.wideec.demo;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.engine.RepairEngine;
import org.wideec.minicluster.StripedGroups;
import org.wideec.placement.PlacementPlan;
import org.wideec.placement.StripedPlacement;
import org.wideec.repair.FullNodeRecoveryPlan;
import org.wideec.repair.FullNodeRecoveryPlanner;
import org.wideec.repair.RackLinkLoad;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.StripeRepair;
import org.wideec.transport.TrafficShaper;

/**
 * The repair benchmark's full-node recovery of our scheme against the physical bound: Azure-LRC 12+2+2 groups
 * placed by combined locality on racks like the real cluster's (6 of 4 DataNodes, rack gateways shaped), every unit
 * of the DataNode holding the most rebuilt at once by the DataNodes' workers (rack-aggregated chains) in the racks
 * the full-node recovery planner chooses, each chain visiting its racks in the order the plan chose, and again with
 * every unit sent back to its planned rack (today's NameNode placement before spreading). Each time is divided by
 * the bound: the bytes that must cross racks over the racks' aggregate gateway bandwidth (each byte crosses two
 * gateways, which carry both directions in the shaper).
 */
final class FullNodeSpreadBench {
  static final int RACKS = 6;
  static final int PER_RACK = 4;
  private final PrintStream out;
  private final BenchProgress progress;
  private final RepairBench.Settings s;

  FullNodeSpreadBench(PrintStream out, BenchProgress progress, RepairBench.Settings s) {
    this.out = out;
    this.progress = progress;
    this.s = s;
  }

  /** Measured steps: the spread recovery and the planned-rack one. */
  static int steps() {
    return 2;
  }

  Map<String, Object> run(MiniDFSCluster cluster, DistributedFileSystem fs, int slice) throws Exception {
    ErasureCodingPolicy policy = WideEcPolicies.addAndEnable(fs, WideEcPolicies.policy(RepairBench.LRC, 12, 4,
        RepairBench.CELL));
    PlacementPlan plan = StripedPlacement.planFor(RepairBench.LRC, 12, 4, StripedPlacement.AUTO);
    Path dir = new Path("/bench/fullnode-racks");
    fs.mkdirs(dir);
    fs.setErasureCodingPolicy(dir, policy.getName());
    List<Path> files = new ArrayList<>();
    for (int i = 0; i < s.fullNodeStripes(); i++) {
      Path f = new Path(dir, "s" + i);
      EmbeddedGroups.writeFile(fs, f, 12 * s.fullNodeBlockBytes(), s.fullNodeBlockBytes());
      files.add(f);
    }
    StripedGroups.awaitSettled(cluster, fs, policy, files, 300_000);
    Map<String, LocatedStripedBlock> groups = new LinkedHashMap<>();
    Map<String, Integer> unitsOn = new HashMap<>();
    for (Path f : files) {
      for (LocatedStripedBlock g : StripedGroups.groups(fs, f)) {
        groups.put(g.getBlock().getBlockName(), g);
        for (DatanodeInfo d : g.getLocations()) {
          unitsOn.merge(d.getXferAddr(), 1, Integer::sum);
        }
      }
    }
    String victim = unitsOn.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
    List<FullNodeRecoveryPlanner.GroupLoss> losses = new ArrayList<>();
    Map<String, Integer> lostUnit = new HashMap<>();
    for (LocatedStripedBlock g : groups.values()) {
      FullNodeRecoveryPlanner.GroupLoss loss = lossOf(cluster, plan, policy, g, victim);
      if (loss != null) {
        losses.add(loss);
        lostUnit.put(loss.id(), loss.lost()[0]);
      }
    }
    long rackRate = s.nodeRate() / s.oversubscription();
    // The bench runs each rebuild along the chain the plan names, so the plan may order every chain's racks.
    FullNodeRecoveryPlan recovery = new FullNodeRecoveryPlanner(RepairScheme.RACK_AGGREGATED,
        RackLinkLoad.Links.SHARED_GATEWAY, true).plan(losses, new RackLinkLoad(RackLinkLoad.Links.SHARED_GATEWAY));
    out.printf("full-node recovery over the racks: %s%n", recovery);
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("lostUnits", losses.size());
    result.put("unitBytes", losses.isEmpty() ? 0 : losses.get(0).unitBytes());
    result.put("racksOfRebuiltUnits", recovery.rebuilds().stream().map(FullNodeRecoveryPlan.Rebuild::rack).distinct()
        .count());
    result.put("mustCrossRackBytes", recovery.mustCrossBytes());
    double bound = recovery.uplinkBoundSeconds(rackRate);
    result.put("uplinkBoundSeconds", bound);
    result.put("predictedSeconds", recovery.predictedSeconds(rackRate));
    result.put("predictedSecondsPlannedRacks", recovery.baselinePredictedSeconds(rackRate));
    result.put("predictedOverUplinkBound", recovery.predictedSeconds(rackRate) / bound);
    result.put("linkFloorSeconds", recovery.linkFloorSeconds(rackRate));
    result.put("plannedRackLinkBytes", recovery.load().bytes());
    TrafficShaper.emulate(new long[] {s.nodeRate(), rackRate});
    try {
      // The replicas' CRC32Cs are asked for before the count starts: a digest from the victim to a requestor in
      // another rack crosses a gateway too, and it is no part of the plan's chains.
      List<Callable<Void>> spreadRebuilds = rebuilds(cluster, policy, groups, lostUnit, recovery, false, slice);
      RackLinkLoad before = sentByRackLink(cluster);
      double spread = FullNodeBench.allAtOnce(spreadRebuilds);
      RackLinkLoad sent = sentByRackLink(cluster);
      sent.add(before, -1);
      result.put("measuredRackLinkBytes", sent.bytes());
      progress.step("full-node recovery over the racks, spread");
      double planned = FullNodeBench.allAtOnce(rebuilds(cluster, policy, groups, lostUnit, recovery, true, slice));
      progress.step("full-node recovery over the racks, planned racks");
      result.put("recoverySeconds", spread);
      result.put("recoverySecondsPlannedRacks", planned);
      result.put("fullNodeOverUplinkBound", spread / bound);
      result.put("plannedRacksOverUplinkBound", planned / bound);
      out.printf("  %d units of %s rebuilt in %d racks: %.2f s (predicted %.2f s); all in their planned racks %.2f s"
          + " (predicted %.2f s); uplink bound %.2f s: fullNodeOverUplinkBound %.2f (target <= 1.25)%n", losses.size(),
          victim, (Long) result.get("racksOfRebuiltUnits"), spread, recovery.predictedSeconds(rackRate), planned,
          recovery.baselinePredictedSeconds(rackRate), bound, spread / bound);
    } finally {
      TrafficShaper.emulate(null);
    }
    return result;
  }

  /** What the NameNode would know of a group that had a unit on the victim, or null when it had none there. */
  private static FullNodeRecoveryPlanner.GroupLoss lossOf(MiniDFSCluster cluster, PlacementPlan plan,
      ErasureCodingPolicy policy, LocatedStripedBlock g, String victim) {
    Map<Integer, String> live = new HashMap<>();
    int lost = -1;
    Set<String> holders = new HashSet<>();
    for (int i = 0; i < g.getLocations().length; i++) {
      DatanodeInfo d = g.getLocations()[i];
      holders.add(d.getXferAddr());
      if (d.getXferAddr().equals(victim)) {
        lost = g.getBlockIndices()[i];
      } else {
        live.put((int) g.getBlockIndices()[i], d.getNetworkLocation());
      }
    }
    if (lost < 0) {
      return null;
    }
    Map<String, Integer> free = new HashMap<>();
    for (DataNode dn : cluster.getDataNodes()) {
      if (!holders.contains(dn.getDatanodeId().getXferAddr())) {
        free.merge(EmbeddedGroups.rackOf(cluster, dn), 1, Integer::sum);
      }
    }
    return new FullNodeRecoveryPlanner.GroupLoss(g.getBlock().getBlockName(), plan, live, new int[] {lost}, Set.of(),
        free, EmbeddedGroups.unitLength(policy, g, lost));
  }

  /**
   * The rebuild of every lost unit, to be run at once, each by a DataNode in its rack (planned or spread) that holds no
   * unit of its group, requestors taken in turn so no node rebuilds two while another rebuilds none; each is checked
   * against the replica's CRC32C, which is fetched here.
   */
  private static List<Callable<Void>> rebuilds(MiniDFSCluster cluster, ErasureCodingPolicy policy,
      Map<String, LocatedStripedBlock> groups, Map<String, Integer> lostUnit, FullNodeRecoveryPlan recovery,
      boolean plannedRacks, int slice) throws Exception {
    Map<String, Integer> chosen = new HashMap<>();
    List<Callable<Void>> repairs = new ArrayList<>();
    for (FullNodeRecoveryPlan.Rebuild r : recovery.rebuilds()) {
      LocatedStripedBlock g = groups.get(r.group());
      String rack = plannedRacks ? r.plannedRack() : r.rack();
      DataNode req = requestor(cluster, g, rack, chosen);
      StripeRepair repair = EmbeddedGroups.repairOf(policy, g, lostUnit.get(r.group()), RepairScheme.RACK_AGGREGATED)
          .withRackChain(plannedRacks ? List.of() : r.chain());
      long crc = EmbeddedGroups.crcOf(cluster, policy, g, lostUnit.get(r.group()), req);
      // Background work, as the worker runs the NameNode's rebuild orders for a dead node's units.
      RepairEngine e = new RepairEngine(EmbeddedGroups.plugin(req).transport(), EmbeddedGroups.resolver(cluster, req),
          EmbeddedGroups.plugin(req).metrics(), 1).asBackground();
      org.wideec.repair.UnitLocation at = EmbeddedGroups.where(cluster, req);
      repairs.add(() -> {
        e.repair(repair, at, (u, len) -> new CrcSink(crc), slice);
        return null;
      });
    }
    return repairs;
  }

  /** Slice bytes the DataNodes' transports have sent across racks so far, by rack gateway. */
  private static RackLinkLoad sentByRackLink(MiniDFSCluster cluster) {
    RackLinkLoad out = new RackLinkLoad(RackLinkLoad.Links.SHARED_GATEWAY);
    for (DataNode dn : cluster.getDataNodes()) {
      String rack = EmbeddedGroups.rackOf(cluster, dn);
      EmbeddedGroups.plugin(dn).metrics().crossRackBytesByDestination()
          .forEach((to, bytes) -> out.addTransfer(rack, to, bytes));
    }
    return out;
  }

  /** The DataNode of the rack holding no unit of the group that was chosen least often so far. */
  private static DataNode requestor(MiniDFSCluster cluster, LocatedStripedBlock g, String rack,
      Map<String, Integer> chosen) throws java.io.IOException {
    Set<String> holders = new HashSet<>();
    for (DatanodeInfo d : g.getLocations()) {
      holders.add(d.getXferAddr());
    }
    DataNode best = null;
    for (DataNode dn : cluster.getDataNodes()) {
      String addr = dn.getDatanodeId().getXferAddr();
      if (!holders.contains(addr) && EmbeddedGroups.rackOf(cluster, dn).equals(rack)
          && (best == null || chosen.getOrDefault(addr, 0) < chosen.getOrDefault(best.getDatanodeId().getXferAddr(), 0))) {
        best = dn;
      }
    }
    if (best == null) {
      throw new java.io.IOException("no DataNode in " + rack + " holds no unit of " + g.getBlock());
    }
    chosen.merge(best.getDatanodeId().getXferAddr(), 1, Integer::sum);
    return best;
  }
}
