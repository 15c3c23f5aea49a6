package org.wideec.cluster;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.wideec.code.LinearCode;
import org.wideec.minicluster.StripedGroups;

/**
 * One striped policy on the real cluster: its files written and read in the foreground, then the same sequence of
 * losses for every policy. A DataNode killed with SIGKILL and the time until every group it held is whole again
 * (kernel uplink bytes, HDFS's and our DataNode counters), twice: {@code nodeLossCold}, then {@code nodeLoss}, the one
 * the ratios compare. The first loss is every daemon's first repair (cold JVMs, no pooled connections, classes not yet
 * compiled), and the stock reconstructor and our worker warm up differently (the run at 3f1f68a: stock 25.7 s cold,
 * 23.1 s warm; ours 15.9 s and 6.65 s), while a production cluster's DataNodes are long-running daemons that have
 * repaired before: so both go through the same warm-up and are compared warm, the cold figures reported beside. Then a
 * DataNode again with reads: lost ranges read through the stock client and through WideEcFileSystem beside healthy
 * ranges, first while the node is down and still listed ({@code readsWhileNodeDown}), then while its units are
 * rebuilt, with foreground reads ({@link WorkloadReads}); then a rack lost when the groups' placement survives it,
 * which samples lost ranges during its rebuild too. Each node loss strikes a victim chosen the same way for every
 * policy ({@link VictimChoice}). Every file is compared byte for byte at the end.
 *
 * <p>Stock policies (codec "rs") are HDFS's own end to end: our placement policy leaves groups of codecs that are not
 * ours to HDFS's rack-fault-tolerant policy, our worker takes over only tasks of our codecs, and the cluster's
 * configuration names no coder for "rs" (io.erasurecode.codec.rs.rawcoders unset, so Hadoop's own coders). The run
 * checks it: a stock recovery that our worker touched fails the bench.
 */
final class StripedWorkload {
  /** Sizes and counts of one workload; a node loss strikes the node whose repairs read what victimUnits units read. */
  record Settings(long dataBytes, long fileBytes, int readSamples, double foregroundSeconds, int victimUnits) {}

  private final ClusterBed bed;
  private final ErasureCodingPolicy policy;
  private final Settings s;
  private final boolean stockPolicy;
  private final List<Path> files = new ArrayList<>();
  private final LinearCode code;
  /** The helpers the code's repair plan of each unit reads, by unit index. */
  private final int[] repairReads;
  private final WorkloadReads reads;

  StripedWorkload(ClusterBed bed, ErasureCodingPolicy policy, Settings s) {
    this.bed = bed;
    this.policy = policy;
    this.s = s;
    this.stockPolicy = ClusterBed.isStock(policy);
    this.code = ClusterBed.codeOf(policy);
    this.repairReads = VictimChoice.repairReads(code);
    this.reads = new WorkloadReads(bed, policy, files, s.readSamples());
  }

  Map<String, Object> run() throws IOException, InterruptedException {
    String name = policy.getName();
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("policy", name);
    r.put("stock", stockPolicy);
    Path dir = new Path("/bench-cluster/" + name);
    bed.stock.delete(dir, true);
    bed.stock.mkdirs(dir);
    bed.stock.setErasureCodingPolicy(dir, name);
    int count = (int) Math.max(1, (s.dataBytes() + s.fileBytes() - 1) / s.fileBytes());
    for (int f = 0; f < count; f++) {
      files.add(new Path(dir, "f" + f));
    }
    Phase write = bed.setup(name + " write");
    for (int f = 0; f < count; f++) {
      FileContent.write(bed.stock, files.get(f), seed(policy, f), s.fileBytes());
    }
    bed.awaitWhole(files, policy);
    r.put("write", write.end());
    r.put("dataBytes", count * s.fileBytes());

    Phase read = bed.phase(name + " foreground read");
    long[] fg = reads.readFor(s.foregroundSeconds(), new AtomicBoolean());
    Map<String, Object> readPhase = read.end();
    readPhase.put("bytesPerSecond", fg[0] * 1e9 / fg[1]);
    r.put("foregroundRead", readPhase);

    r.put("nodeLossCold", nodeLoss("node loss, cold", victim(), null));
    DatanodeInfo victim = victim();
    r.put("nodeLoss", nodeLoss("node loss", victim, null));

    // Lost ranges of one DataNode read before and while its units are rebuilt: the common case, where a lost unit's
    // local group survives. Before the rack loss: a client whose chains a rack's recovery overtook decodes directly
    // for a while (ChainOutlook), which is right during that recovery but is not the common case this samples.
    Map<String, Object> window = new LinkedHashMap<>();
    r.put("readsWhileNodeDown", window);
    r.put("readsDuringNodeRecovery", nodeLoss("reads during node recovery", victim(), window));

    int rack = ClusterScript.rackOf(victim);
    List<DatanodeInfo> rackNodes = bed.rack(rack);
    int width = policy.getNumDataUnits() + policy.getNumParityUnits();
    String rackVerdict = bed.liveDataNodes() - rackNodes.size() < width
        ? "rack" + rack + " holds " + rackNodes.size() + " DataNodes: too few would be left to rebuild " + width
            + "-unit groups on distinct nodes"
        : rackLossSurvivable(rackNodes);
    r.put("rackLossTolerated", rackVerdict == null);
    if (rackVerdict == null) {
      r.put("rackLoss", rackLoss(rack, rackNodes));
    } else {
      r.put("rackLossSkipped", rackVerdict);
    }

    compareAll(r, count);
    bed.stock.delete(dir, true);
    return r;
  }

  /** The next node loss's victim, as for every policy ({@link VictimChoice}). */
  private DatanodeInfo victim() throws IOException {
    return VictimChoice.of(bed.stock, policy, files, s.victimUnits());
  }

  /** Every file read back through our FileSystem against what was written: bytes compared, lost, and each mismatch. */
  private void compareAll(Map<String, Object> r, int count) throws IOException {
    long lost = 0;
    List<String> mismatches = new ArrayList<>();
    for (int f = 0; f < count; f++) {
      String m = FileContent.mismatch(bed.ours, files.get(f), seed(policy, f), s.fileBytes());
      if (m != null) {
        mismatches.add(m);
        lost += s.fileBytes();
      }
    }
    r.put("bytesCompared", count * s.fileBytes());
    r.put("bytesLost", lost);
    r.put("mismatches", mismatches);
  }

  /** The content seed of a workload's file: the files of every policy differ. */
  static long seed(ErasureCodingPolicy policy, int file) {
    return policy.getName().hashCode() * 31L + file;
  }

  /**
   * Kills {@code victim} with SIGKILL and waits until every group is whole. With {@code window}, lost ranges are read
   * while the NameNode still lists the node (into {@code window}) and again, with foreground reads, while the rebuild
   * runs (their traffic then mixes with the recovery's).
   */
  private Map<String, Object> nodeLoss(String what, DatanodeInfo victim, Map<String, Object> window)
      throws IOException, InterruptedException {
    String node = ClusterScript.nodeName(victim);
    List<Integer> lostUnits = unitIndicesOn(Set.of(victim.getXferAddr()));
    Set<String> leftOut = Set.of(victim.getXferAddr());
    Map<String, Long> before = bed.counters.sum(leftOut);
    Phase p = bed.phase(policy.getName() + " " + what + " (" + node + ")");
    long killedAt = System.nanoTime();
    bed.cluster.kill(node);
    if (window != null) {
      window.putAll(reads.whileNodeDown(victim, killedAt));
    }
    bed.awaitDropped(List.of(victim), files);
    double dropped = p.seconds();
    Map<String, Object> during = window != null ? reads.whileRecovering() : Map.of();
    bed.awaitWhole(files, policy);
    double whole = p.seconds();
    Map<String, Object> m = p.end();
    Map<String, Long> counters = DataNodeCounters.delta(before, bed.counters.sum(leftOut));
    m.put("node", node);
    m.put("unitsLost", lostUnits.size());
    m.put("lostUnitRepairWidths", repairWidths(lostUnits));
    m.put("killToDroppedSeconds", Phase.round(dropped));
    m.put("repairSeconds", Phase.round(whole - dropped));
    m.putAll(during);
    m.put("counters", counters);
    checkReconstructor(counters);
    int nodes = bed.liveDataNodes() + 1;
    bed.startDataNode(node);
    bed.awaitLive(nodes);
    bed.awaitWhole(files, policy); // its old replicas come back as excess, and the NameNode deletes them
    return m;
  }

  private Map<String, Object> rackLoss(int rack, List<DatanodeInfo> nodes) throws IOException, InterruptedException {
    Set<String> leftOut = new HashSet<>();
    nodes.forEach(d -> leftOut.add(d.getXferAddr()));
    int units = unitsOn(leftOut);
    Map<String, Long> before = bed.counters.sum(leftOut);
    int live = bed.liveDataNodes();
    Phase p = bed.phase(policy.getName() + " rack loss (rack" + rack + ", " + nodes.size() + " DataNodes)");
    bed.cluster.rack(rack, false);
    Map<String, Object> m;
    try {
      bed.awaitDropped(nodes, files);
      double dropped = p.seconds();
      Map<String, Object> during = reads.whileRecovering();
      bed.awaitWhole(files, policy);
      double whole = p.seconds();
      m = p.end();
      m.put("rack", rack);
      m.put("unitsLost", units);
      m.put("killToDroppedSeconds", Phase.round(dropped));
      m.put("repairSeconds", Phase.round(whole - dropped));
      m.putAll(during);
      Map<String, Long> counters = DataNodeCounters.delta(before, bed.counters.sum(leftOut));
      m.put("counters", counters);
      checkReconstructor(counters);
    } finally {
      bed.cluster.rack(rack, true);
    }
    bed.awaitLive(live);
    bed.awaitWhole(files, policy);
    return m;
  }

  /** Stock recoveries must be HDFS's alone, ours our worker's: say so loudly when not. */
  private void checkReconstructor(Map<String, Long> c) throws IOException {
    long ourTasks = c.get("wideEcTasksCompleted") + c.get("wideEcTasksHandedToStock");
    if (stockPolicy && ourTasks != 0) {
      throw new IOException(policy.getName() + ": our worker touched " + ourTasks + " tasks of a stock policy");
    }
    if (!stockPolicy && c.get("wideEcTasksHandedToStock") != 0) {
      throw new IOException(policy.getName() + ": our worker handed " + c.get("wideEcTasksHandedToStock")
          + " tasks to HDFS's reconstructor");
    }
  }

  private int unitsOn(Set<String> addrs) throws IOException {
    return unitIndicesOn(addrs).size();
  }

  /** The index in its group of every unit the nodes hold, over every group of the workload's files. */
  private List<Integer> unitIndicesOn(Set<String> addrs) throws IOException {
    List<Integer> units = new ArrayList<>();
    for (Path f : files) {
      for (LocatedStripedBlock g : StripedGroups.groups(bed.stock, f)) {
        for (int i = 0; i < g.getLocations().length; i++) {
          if (addrs.contains(g.getLocations()[i].getXferAddr())) {
            units.add((int) g.getBlockIndices()[i]);
          }
        }
      }
    }
    return units;
  }

  /**
   * How many helpers the code's repair plan of each unit reads, lowest first: what a node's loss costs depends on
   * which units it held (an LRC's global parity reads every data unit, its other units their local group), and a
   * node of a few units holds them in other proportions than the code has.
   */
  private List<Integer> repairWidths(List<Integer> units) {
    return units.stream().map(u -> repairReads[u]).sorted().toList();
  }

  /** Null when every group's units in those nodes form a pattern the code decodes; else why not. */
  private String rackLossSurvivable(List<DatanodeInfo> nodes) throws IOException {
    Set<String> addrs = new HashSet<>();
    nodes.forEach(d -> addrs.add(d.getXferAddr()));
    for (Path f : files) {
      for (LocatedStripedBlock g : StripedGroups.groups(bed.stock, f)) {
        List<Integer> lost = new ArrayList<>();
        for (int i = 0; i < g.getLocations().length; i++) {
          if (addrs.contains(g.getLocations()[i].getXferAddr())) {
            lost.add((int) g.getBlockIndices()[i]);
          }
        }
        if (!code.isDecodable(lost.stream().mapToInt(Integer::intValue).toArray())) {
          return "group " + g.getBlock().getBlockName() + " keeps units " + lost + " in that rack, which "
              + policy.getName() + " cannot decode without";
        }
      }
    }
    return null;
  }
}
