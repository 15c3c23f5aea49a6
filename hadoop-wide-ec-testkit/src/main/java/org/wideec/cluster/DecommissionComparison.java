package org.wideec.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.wideec.minicluster.StripedGroups;

/**
 * Decommission of one DataNode on the real cluster, the operator's way: its address written into the file
 * dfs.hosts.exclude names, {@code hdfs dfsadmin -refreshNodes} (the same call through the client API), and the time
 * until the NameNode reports it DECOMMISSIONED, with the kernel's uplink bytes and the bytes the leaving node's link
 * sent. Done for the busiest DataNode of a stock RS directory, where HDFS copies every unit from the leaving node (at
 * most dfs.namenode.replication.max-streams at a time, its NIC the bottleneck: HDFS-16613), and of a directory of our
 * Azure-LRC, where the NameNode plugin rebuilds each unit elsewhere from its local group (its counters, the ones
 * {@code wide-ec decommission NODE} follows, beside). Reconstruction from k units (HDFS-17550's way) cannot be
 * forced through HDFS or our configuration, so it is measured where HDFS does it: its reconstructor rebuilding the RS
 * directory's units of its busiest DataNode after that node is stopped, timed from the NameNode dropping them
 * (detection left out). The two directories put different numbers of units on their busiest node, so the ratios
 * compare time per byte the node held. After each, the node is recommissioned (or started) and the groups left whole,
 * so later phases see the cluster as before; every file is compared byte for byte.
 */
final class DecommissionComparison {
  /** The data written to each directory, and the stock and our policy. */
  record Settings(long dataBytes, long fileBytes, String stockPolicy, String oursPolicy) {}

  private static final String[] PLUGIN = {"DecommissionUnitsRebuilt", "DecommissionBytesRebuilt",
      "DecommissionUnitsCopied", "DecommissionBytesCopied", "DecommissionUnitsFromLeavingNode",
      "DecommissionRebuildFailures"};

  private final ClusterBed bed;
  private final Settings s;
  private final java.nio.file.Path exclude;

  DecommissionComparison(ClusterBed bed, Settings s) throws IOException {
    this.bed = bed;
    this.s = s;
    String file = bed.conf.getTrimmed(DFSConfigKeys.DFS_HOSTS_EXCLUDE, "");
    if (file.isEmpty()) {
      throw new IOException(DFSConfigKeys.DFS_HOSTS_EXCLUDE + " is not set in the cluster's hdfs-site.xml: the"
          + " decommission needs a cluster made by a dev-support/cluster.sh that writes it");
    }
    this.exclude = java.nio.file.Path.of(file);
  }

  Map<String, Object> run() throws Exception {
    Map<String, Object> r = new LinkedHashMap<>();
    ErasureCodingPolicy stockPolicy = bed.policy(s.stockPolicy());
    ErasureCodingPolicy oursPolicy = bed.policy(s.oursPolicy());
    if (!ClusterBed.isStock(stockPolicy) || ClusterBed.isStock(oursPolicy)) {
      throw new IOException("decommission compares a stock RS policy with one of ours, got " + s.stockPolicy() + " and "
          + s.oursPolicy());
    }
    List<String> mismatches = new ArrayList<>();
    long lost = 0;
    Directory stock = new Directory(stockPolicy, 11_000);
    stock.write();
    r.put("stock", decommission(stock));
    r.put("global", stockReconstruction(stock));
    lost += stock.compare(mismatches);
    stock.delete();

    Directory ours = new Directory(oursPolicy, 12_000);
    ours.write();
    r.put("ours", decommission(ours));
    lost += ours.compare(mismatches);
    ours.delete();
    ratios(r);
    r.put("bytesCompared", 2 * files() * s.fileBytes());
    r.put("bytesLost", lost);
    r.put("mismatches", mismatches);
    return r;
  }

  /**
   * The target ratios, by time per byte of units the node held: decommissionStockOverOurs (stock decommission over
   * ours), decommissionGlobalOverLocal (reconstruction from k units over ours).
   */
  @SuppressWarnings("unchecked")
  static void ratios(Map<String, Object> r) {
    Double ours = secondsPerByte((Map<String, Object>) r.get("ours"));
    Double stock = secondsPerByte((Map<String, Object>) r.get("stock"));
    Double global = secondsPerByte((Map<String, Object>) r.get("global"));
    r.put("decommissionStockOverOurs", ours == null || stock == null ? null : Phase.round(stock / ours));
    r.put("decommissionGlobalOverLocal", ours == null || global == null ? null : Phase.round(global / ours));
  }

  private static Double secondsPerByte(Map<String, Object> m) {
    if (m == null || !(m.get("seconds") instanceof Number t) || !(m.get("unitBytes") instanceof Number b)
        || b.longValue() == 0) {
      return null;
    }
    return t.doubleValue() / b.doubleValue();
  }

  /** Decommissions the directory's busiest DataNode, and recommissions it once the NameNode calls it DECOMMISSIONED. */
  private Map<String, Object> decommission(Directory d) throws Exception {
    DatanodeInfo victim = d.busiest();
    String node = ClusterScript.nodeName(victim);
    Map<String, Object> held = d.heldBy(victim);
    Map<String, Long> before = bed.counters.sum(Set.of());
    Map<String, Long> pluginBefore = pluginDecommission();
    long[] nodeBefore = nodeBytes(node);
    Phase p = bed.phase(d.policy.getName() + " decommission (" + node + ", " + held.get("units") + " units)");
    Files.writeString(exclude, victim.getIpAddr() + "\n", StandardCharsets.UTF_8);
    bed.stock.refreshNodes(); // what hdfs dfsadmin -refreshNodes calls
    Map<String, Object> m;
    try {
      Await.until(node + " DECOMMISSIONED", bed.timeoutMs, () -> state(victim).isDecommissioned());
      m = p.end();
    } catch (IOException e) {
      Files.writeString(exclude, "", StandardCharsets.UTF_8);
      bed.stock.refreshNodes(); // back in service, so nothing after this sees the node leaving
      throw e;
    }
    Files.writeString(exclude, "", StandardCharsets.UTF_8); // recommission() refreshes
    long[] nodeAfter = nodeBytes(node);
    m.put("node", node);
    m.putAll(held);
    m.put("leavingNodeBytesSent", nodeAfter[0] - nodeBefore[0]);
    m.put("leavingNodeBytesReceived", nodeAfter[1] - nodeBefore[1]);
    m.put("counters", DataNodeCounters.delta(before, bed.counters.sum(Set.of())));
    m.put("plugin", DataNodeCounters.delta(pluginBefore, pluginDecommission()));
    recommission(victim, d);
    return m;
  }

  /** Back in service: off the exclude list (emptied already), refreshed, NORMAL, and the excess units deleted. */
  private void recommission(DatanodeInfo victim, Directory d) throws IOException {
    bed.stock.refreshNodes();
    Await.until(ClusterScript.nodeName(victim) + " back in service", bed.timeoutMs,
        () -> state(victim).isInService() && !state(victim).isDecommissioned());
    bed.awaitWhole(d.files, d.policy);
  }

  /**
   * HDFS's reconstructor rebuilding, each from k other units, the RS directory's units of its busiest node once that
   * node is stopped: the work HDFS-17550 does during a decommission instead of copying.
   */
  private Map<String, Object> stockReconstruction(Directory d) throws IOException {
    DatanodeInfo victim = d.busiest();
    String node = ClusterScript.nodeName(victim);
    Map<String, Object> held = d.heldBy(victim);
    Set<String> leftOut = Set.of(victim.getXferAddr());
    Map<String, Long> before = bed.counters.sum(leftOut);
    int live = bed.liveDataNodes();
    bed.cluster.kill(node);
    bed.awaitDropped(List.of(victim), d.files);
    Phase p = bed.phase(d.policy.getName() + " reconstruction from k units (" + node + " stopped, " + held.get("units")
        + " units)");
    bed.awaitWhole(d.files, d.policy);
    Map<String, Object> m = p.end();
    m.put("node", node);
    m.putAll(held);
    m.put("counters", DataNodeCounters.delta(before, bed.counters.sum(leftOut)));
    bed.startDataNode(node);
    bed.awaitLive(live);
    bed.awaitWhole(d.files, d.policy); // its old replicas come back as excess, and the NameNode deletes them
    return m;
  }

  private DatanodeInfo state(DatanodeInfo node) throws IOException {
    for (DatanodeInfo d : bed.stock.getDataNodeStats(DatanodeReportType.ALL)) {
      if (d.getXferAddr().equals(node.getXferAddr())) {
        return d;
      }
    }
    throw new IOException("the NameNode no longer lists " + node.getXferAddr());
  }

  /** {sent, received} by the node's link so far (cluster.sh node-bytes). */
  private long[] nodeBytes(String node) throws IOException {
    String[] f = bed.cluster.run("node-bytes", node).trim().split("\\s+");
    return new long[] {Long.parseLong(f[f.length - 2]), Long.parseLong(f[f.length - 1])};
  }

  /**
   * The NameNode plugin's decommission counters (its WideEc bean: units rebuilt elsewhere and their bytes, units left
   * to HDFS's copy from the leaving node, failed rebuilds), what {@code wide-ec decommission NODE} and {@code wide-ec
   * status} show; read here rather than by running the command, whose JVM would share the measured phase's CPU.
   */
  private Map<String, Long> pluginDecommission() throws IOException {
    JsonNode b = bed.nameNodeBean("WideEc");
    Map<String, Long> m = new LinkedHashMap<>();
    for (String k : PLUGIN) {
      m.put(Character.toLowerCase(k.charAt(0)) + k.substring(1), b == null ? 0 : b.path(k).asLong(0));
    }
    return m;
  }

  private int files() {
    return (int) Math.max(1, (s.dataBytes() + s.fileBytes() - 1) / s.fileBytes());
  }

  /** One policy's directory of bench files. */
  private final class Directory {
    final ErasureCodingPolicy policy;
    final List<Path> files = new ArrayList<>();
    private final long seedBase;
    private final Path dir;

    Directory(ErasureCodingPolicy policy, long seedBase) {
      this.policy = policy;
      this.seedBase = seedBase;
      this.dir = new Path("/bench-decommission/" + policy.getName());
      for (int f = 0; f < files(); f++) {
        files.add(new Path(dir, "f" + f));
      }
    }

    void write() throws IOException {
      bed.stock.delete(dir, true);
      bed.stock.mkdirs(dir);
      bed.stock.setErasureCodingPolicy(dir, policy.getName());
      Phase w = bed.setup(policy.getName() + " write for decommission");
      for (int f = 0; f < files.size(); f++) {
        FileContent.write(bed.stock, files.get(f), seedBase + f, s.fileBytes());
      }
      bed.awaitWhole(files, policy);
      w.end();
    }

    /** The in-service DataNode holding the most units of the directory's groups. */
    DatanodeInfo busiest() throws IOException {
      Map<String, Integer> load = new HashMap<>();
      Map<String, DatanodeInfo> byAddr = new HashMap<>();
      for (Path f : files) {
        for (LocatedStripedBlock g : StripedGroups.groups(bed.stock, f)) {
          for (DatanodeInfo at : g.getLocations()) {
            load.merge(at.getXferAddr(), 1, Integer::sum);
            byAddr.put(at.getXferAddr(), at);
          }
        }
      }
      return byAddr.get(load.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow(
          () -> new IOException(dir + " has no block groups")).getKey());
    }

    /** units, unitBytes and groups of the directory held on the node. */
    Map<String, Object> heldBy(DatanodeInfo node) throws IOException {
      int units = 0;
      long bytes = 0;
      int groups = 0;
      for (Path f : files) {
        for (LocatedStripedBlock g : StripedGroups.groups(bed.stock, f)) {
          boolean on = false;
          for (int i = 0; i < g.getLocations().length; i++) {
            if (g.getLocations()[i].getXferAddr().equals(node.getXferAddr())) {
              units++;
              bytes += StripedBlockUtil.getInternalBlockLength(g.getBlockSize(), policy, g.getBlockIndices()[i]);
              on = true;
            }
          }
          groups += on ? 1 : 0;
        }
      }
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("policy", policy.getName());
      m.put("units", units);
      m.put("unitBytes", bytes);
      m.put("groupsOnNode", groups);
      return m;
    }

    long compare(List<String> mismatches) throws IOException {
      long lost = 0;
      for (int f = 0; f < files.size(); f++) {
        String m = FileContent.mismatch(bed.ours, files.get(f), seedBase + f, s.fileBytes());
        if (m != null) {
          mismatches.add(m);
          lost += s.fileBytes();
        }
      }
      return lost;
    }

    void delete() throws IOException {
      bed.stock.delete(dir, true);
    }
  }
}
