package org.wideec.demo;

import static org.wideec.demo.DemoFiles.require;
import static org.wideec.demo.PlannedPlacementCheck.awaitLive;
import static org.wideec.demo.PlannedPlacementCheck.checkTolerance;
import static org.wideec.demo.PlannedPlacementCheck.locations;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.datanode.WideEcDataNodePlugin;

/** The worst single-rack loss for a stripe, the DataNodes' repair of it, and fsck afterwards. */
final class RackLossStage {
  private final DemoConsole console;
  private final ObjectMapper json = new ObjectMapper();

  RackLossStage(DemoConsole console) {
    this.console = console;
  }

  /** The rack lost, and the archived blocks whose only replica was there. */
  record LostRack(String rack, List<Long> blocks) {}

  /** Stops every DataNode of the rack holding the most units of {@code first}: the worst single-rack loss for it. */
  LostRack loseRack(MiniDFSCluster cluster, ArchivedStripe first, Map<Long, String> rackOfBlock)
      throws IOException {
    Map<String, Integer> perRack = new TreeMap<>();
    for (StripeMember m : first.members()) {
      if (!m.padding()) {
        perRack.merge(m.plannedRack(), 1, Integer::sum);
      }
    }
    String rack = perRack.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
    List<DataNode> lost = new ArrayList<>();
    for (DataNode d : cluster.getDataNodes()) {
      if (rack.equals(cluster.getNamesystem().getBlockManager().getDatanodeManager().getDatanode(d.getDatanodeId())
          .getNetworkLocation())) {
        lost.add(d);
      }
    }
    List<Long> lostBlocks = new ArrayList<>();
    rackOfBlock.forEach((blk, r) -> {
      if (r.equals(rack)) {
        lostBlocks.add(blk);
      }
    });
    for (DataNode d : lost) {
      cluster.stopDataNode(d.getDatanodeId().getXferAddr());
    }
    for (DataNode d : lost) {
      cluster.setDataNodeDead(d.getDatanodeId());
    }
    console.step("lost rack " + rack + ": stopped all " + lost.size() + " of its DataNodes; " + perRack.get(rack)
        + " units of stripe 0 and " + lostBlocks.size() + " archived blocks in all had their only replica there");
    return new LostRack(rack, lostBlocks);
  }

  /** Waits until the plugins have rebuilt every lost block; the bytes that crossed racks for it. */
  long repair(MiniDFSCluster cluster, List<StripeManifest> manifests, List<Long> lostBlocks) throws Exception {
    DistributedFileSystem fs = cluster.getFileSystem();
    console.step("repair: the NameNode plugin finds the missing archived blocks and DataNodes rebuild them under their"
        + " own block ids (local group first, partial sums within a rack)");
    long tr = System.nanoTime();
    awaitLive(fs, manifests, lostBlocks, 300_000);
    long crossRackRepair = 0;
    for (DataNode d : cluster.getDataNodes()) {
      WideEcDataNodePlugin plugin = WideEcDataNodePlugin.running(d.getXferPort());
      if (plugin != null && plugin.metrics() != null) {
        crossRackRepair += plugin.metrics().bytesSentCrossRack();
      }
    }
    console.step(String.format("  all %d lost blocks are live again under their own ids, in %.1f s; %,d bytes crossed"
        + " racks for it", lostBlocks.size(), (System.nanoTime() - tr) / 1e9, crossRackRepair));
    Map<Long, String> after = locations(fs, manifests);
    checkTolerance(manifests, after);
    console.step("placement after repair: every stripe still within what the code tolerates in any one rack");
    return crossRackRepair;
  }

  /** fsck after the repair: nothing missing or stale, only the rebuilt units off plan while their rack is down. */
  void fsckAfterRepair(MiniDFSCluster cluster, Path data, String rack) throws Exception {
    DemoConsole.Run fsck = console.tool(cluster, "fsck", data.toString());
    console.show(fsck, 8);
    JsonNode archivedFsck = json.readTree(console.tool(cluster, "fsck", data.toString(), "--json").out()).get("archived");
    java.util.Set<String> problems = new java.util.TreeSet<>();
    archivedFsck.get("findingsByProblem").fields().forEachRemaining(e -> {
      if (e.getValue().asInt() > 0) {
        problems.add(e.getKey());
      }
    });
    require(archivedFsck.get("stripesNotDecodable").asLong() == 0 && java.util.Set.of("off-plan").containsAll(problems),
        "wide-ec fsck " + data + " after the repair finds " + problems + ", more than the off-plan units of the lost rack");
    console.step("fsck: nothing missing, nothing stale, every stripe whole; the units rebuilt while " + rack + " is down are"
        + " off plan (their planned rack is gone), each on the rack of its stripe with the most room");
  }

}
