package org.wideec.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo.AdminStates;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeMember;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.ManifestStore;
import org.wideec.coder.StripedCodec;
import org.wideec.datanode.RepairWorkerConf;
import org.wideec.placement.PlacementConf;
import org.wideec.placement.StripedPlacement;
import org.wideec.placement.hdfs.LeavingStripes;
import org.wideec.repair.DecommissionPlan;
import org.wideec.repair.DecommissionPlanner;
import org.wideec.repair.RepairScheme;
import org.wideec.topology.Site;
import org.wideec.topology.hdfs.DataNodeSites;

/**
 * {@code wide-ec decommission NODE}: follows a DataNode's decommission (or entry into maintenance) that HDFS started
 * the standard way (the node in the file {@code dfs.hosts.exclude} names, or in {@code dfs.hosts} with a maintenance
 * state, then {@code hdfs dfsadmin -refreshNodes}): a progress bar of the units the NameNode plugin rebuilds
 * elsewhere by local reconstruction, until HDFS calls the node DECOMMISSIONED (or IN_MAINTENANCE). It starts nothing
 * itself: where the node leaves service stays HDFS's decision, made with HDFS's own tools. With {@code --dry-run} it
 * changes nothing and prints the plan for the node's units of our block groups under PATH ({@code --path}, default
 * /): where each is rebuilt, from which units, the bytes across racks, and which must be copied from the node; and
 * how many archived blocks only the node holds (the archive repair monitor copies or rebuilds each, priced as it
 * comes up, to its planned rack).
 */
final class DecommissionCommand {
  static final String USAGE = String.join("\n",
      "  decommission NODE [--json]                           follow the decommission (or maintenance) HDFS started for NODE",
      "                                                        (dfs.hosts.exclude + dfsadmin -refreshNodes): units rebuilt",
      "                                                        elsewhere from their local groups, until DECOMMISSIONED",
      "  decommission NODE --dry-run [--path /] [--json]      the plan: each unit of our block groups on NODE, its target,",
      "                                                        helpers, bytes across racks; nothing changes");
  private static final long POLL_MS = 1000;

  private final Configuration conf;
  private final PrintStream out;
  private final PrintStream err;

  DecommissionCommand(Configuration conf, PrintStream out, PrintStream err) {
    this.conf = conf;
    this.out = out;
    this.err = err;
  }

  int run(String[] args) throws Exception {
    Options o = new Options(args, Set.of("path"), Set.of("json", "dry-run"));
    if (o.positional().size() != 1) {
      throw new Options.UsageException("decommission needs exactly one NODE (host, host:port or ip:port)");
    }
    DistributedFileSystem dfs = ClusterAccess.hdfs(conf, "decommission");
    DatanodeInfo node = find(dfs, o.positional().get(0));
    return o.has("dry-run") ? dryRun(dfs, node, new Path(o.get("path", "/")), o.has("json"))
        : follow(dfs, node, o.has("json"));
  }

  /** The DataNode NODE names (transfer address, host or IP, with or without the transfer port). */
  static DatanodeInfo find(DistributedFileSystem dfs, String name) throws IOException {
    List<String> known = new ArrayList<>();
    for (DatanodeInfo d : dfs.getDataNodeStats(HdfsConstants.DatanodeReportType.ALL)) {
      known.add(d.getXferAddr());
      if (name.equals(d.getXferAddr()) || name.equals(d.getHostName() + ":" + d.getXferPort())
          || name.equals(d.getHostName()) || name.equals(d.getIpAddr())) {
        return d;
      }
    }
    throw new IOException("no DataNode " + name + " (the NameNode knows " + known + ")");
  }

  private static DatanodeInfo now(DistributedFileSystem dfs, DatanodeInfo node) throws IOException {
    return find(dfs, node.getXferAddr());
  }

  private static boolean dead(DistributedFileSystem dfs, DatanodeInfo node) throws IOException {
    for (DatanodeInfo d : dfs.getDataNodeStats(HdfsConstants.DatanodeReportType.DEAD)) {
      if (d.getXferAddr().equals(node.getXferAddr())) {
        return true;
      }
    }
    return false;
  }

  private static boolean done(DatanodeInfo d) {
    return d.getAdminState() == AdminStates.DECOMMISSIONED || d.getAdminState() == AdminStates.IN_MAINTENANCE;
  }

  /** Waits for HDFS to complete the decommission, with a progress bar of the units rebuilt meanwhile. */
  private int follow(DistributedFileSystem dfs, DatanodeInfo node, boolean json) throws Exception {
    DatanodeInfo d = now(dfs, node);
    if (d.getAdminState() == AdminStates.NORMAL) {
      throw new IOException(node.getXferAddr() + " is in service: HDFS starts a decommission, wide-ec follows it."
          + " Add the node to the file dfs.hosts.exclude names (or to dfs.hosts with a maintenance state) and run"
          + " `hdfs dfsadmin -refreshNodes`, then run this again; `wide-ec decommission " + node.getXferAddr()
          + " --dry-run` prints the plan first");
    }
    DecommissionProgress start = DecommissionProgress.of(dfs);
    if (!start.running()) {
      err.println(start.line());
    }
    long began = System.nanoTime();
    ProgressReport bar = new ProgressReport(err, "decommission of " + node.getXferAddr());
    DecommissionProgress p = start;
    while (!done(d)) {
      if (dead(dfs, node)) {
        throw new IOException(node.getXferAddr() + " stopped during its decommission (" + d.getAdminState()
            + "): HDFS rebuilds its units as lost ones, and completes the decommission once none is left on it");
      }
      long rebuilt = p.unitsRebuilt() - start.unitsRebuilt();
      bar.at(rebuilt, rebuilt + p.unitsLeft());
      Thread.sleep(POLL_MS);
      d = now(dfs, node);
      p = DecommissionProgress.of(dfs);
    }
    bar.finish();
    long seconds = (System.nanoTime() - began) / 1_000_000_000L;
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("datanode", node.getXferAddr());
    j.put("state", d.getAdminState().name());
    j.put("unitsRebuilt", p.unitsRebuilt() - start.unitsRebuilt());
    j.put("bytesRebuilt", p.bytesRebuilt() - start.bytesRebuilt());
    j.put("unitsCopied", p.unitsCopied() - start.unitsCopied());
    j.put("unitsFromLeavingNode", p.fromLeavingNode() - start.fromLeavingNode());
    j.put("rebuildFailures", p.failures() - start.failures());
    j.put("seconds", seconds);
    if (json) {
      out.println(Json.write(j));
    } else {
      out.printf("%s is %s after %s: %,d unit(s) moved elsewhere by our workers (%,d bytes; %,d copied from the node"
              + " through our workers, the others rebuilt by local reconstruction), %,d left to HDFS's copy from the"
              + " node, %,d failed rebuild(s) (counts cover every node leaving meanwhile)%n",
          node.getXferAddr(), d.getAdminState(), ProgressReport.duration(seconds * 1_000_000_000L), j.get("unitsRebuilt"),
          j.get("bytesRebuilt"), j.get("unitsCopied"), j.get("unitsFromLeavingNode"), j.get("rebuildFailures"));
    }
    return 0;
  }

  /** The plan for the node's units of our block groups under {@code root}; nothing changes. */
  private int dryRun(DistributedFileSystem dfs, DatanodeInfo node, Path root, boolean json) throws IOException {
    String scheme;
    try {
      scheme = PlacementConf.scheme(conf.get(StripedPlacement.SCHEME_KEY));
    } catch (RuntimeException e) {
      scheme = StripedPlacement.AUTO;
    }
    List<DecommissionPlanner.LeavingStripe> stripes = new ArrayList<>();
    for (Map.Entry<FileStatus, ErasureCodingPolicy> f : filesOfOurCodecs(dfs, root).entrySet()) {
      for (LocatedBlock b : dfs.getClient().getLocatedBlocks(f.getKey().getPath().toUri().getPath(), 0,
          f.getKey().getLen()).getLocatedBlocks()) {
        if (!(b instanceof LocatedStripedBlock g)) {
          continue;
        }
        Map<Integer, DatanodeInfo> units = new HashMap<>();
        boolean onNode = false;
        for (int i = 0; i < g.getBlockIndices().length; i++) {
          DatanodeInfo at = g.getLocations()[i];
          onNode |= at.getXferAddr().equals(node.getXferAddr());
          if (!units.containsKey((int) g.getBlockIndices()[i]) || at.getXferAddr().equals(node.getXferAddr())) {
            units.put((int) g.getBlockIndices()[i], at);
          }
        }
        if (onNode) {
          stripes.add(LeavingStripes.of(g.getBlock().getBlockId(), g.getBlock().getNumBytes(), f.getValue(), units,
              scheme));
        }
      }
    }
    List<Site> candidates = new ArrayList<>();
    for (DatanodeInfo d : dfs.getDataNodeStats(HdfsConstants.DatanodeReportType.LIVE)) {
      if (d.isInService()) {
        candidates.add(DataNodeSites.of(d));
      }
    }
    RepairScheme repair;
    try {
      repair = org.wideec.config.ConfigValues.oneOf(conf, RepairWorkerConf.SCHEME, RepairWorkerConf.DEFAULT_SCHEME);
    } catch (IllegalArgumentException e) {
      repair = RepairWorkerConf.DEFAULT_SCHEME;
    }
    // A malformed rate is refused naming its key, as the NameNode refuses it.
    org.wideec.repair.LinkRates rates = org.wideec.placement.hdfs.DecommissionSettings.rates(conf);
    DecommissionPlan plan = new DecommissionPlanner(repair, org.wideec.repair.RackLinkLoad.Links.FULL_DUPLEX, rates)
        .plan(Set.of(node.getXferAddr()), stripes, candidates);
    long archived = archivedBlocksOnlyOn(dfs, node);
    if (json) {
      List<Map<String, Object>> rows = new ArrayList<>();
      for (DecommissionPlan.Rebuild r : plan.rebuilds()) {
        Map<String, Object> j = new LinkedHashMap<>();
        j.put("group", r.stripe());
        j.put("unit", r.unit());
        j.put("target", r.target().node());
        j.put("targetRack", r.target().rack());
        j.put("helpers", r.helpers().stream().map(h -> h.unit() + "@" + h.node()).toList());
        j.put("bytes", r.bytes());
        j.put("crossRackBytes", r.crossRackBytes());
        j.put("fromLeavingNode", r.fromLeavingNode());
        j.put("way", r.fromLeavingNode() ? "copy" : "rebuild");
        rows.add(j);
      }
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("datanode", node.getXferAddr());
      j.put("state", node.getAdminState().name());
      j.put("rebuilds", rows);
      j.put("leftToHdfs", plan.unplaced().stream().map(u -> u.stripe() + " unit " + u.unit() + ": " + u.why())
          .toList());
      j.put("bytes", plan.bytes());
      j.put("crossRackBytes", plan.crossRackBytes());
      j.put("unitsFromLeavingNode", plan.fromLeavingNode() + plan.unplaced().size());
      j.put("unitsCopied", plan.fromLeavingNode());
      j.put("unitsRebuilt", plan.rebuilds().size() - plan.fromLeavingNode());
      if (rates != null) {
        j.put("predictedSeconds", plan.predictedSeconds());
        j.put("nodeBytesPerSecond", rates.nodeBytesPerSecond());
        j.put("rackBytesPerSecond", rates.rackBytesPerSecond());
      }
      j.put("archivedBlocks", archived);
      out.println(Json.write(j));
    } else {
      out.println("decommission plan for " + node.getXferAddr() + " (" + node.getNetworkLocation() + ", "
          + node.getAdminState() + "), block groups of our codecs under " + root.toUri().getPath() + ":");
      out.println(plan.describe());
      out.println(archived + " archived block(s) held only on the node: the NameNode's archive repair monitor copies"
          + " each from the node or rebuilds it from its stripe, priced against the orders under way, into its planned"
          + " rack (`wide-ec fsck PATH` lists a stripe the others cannot rebuild)");
    }
    return 0;
  }

  /** Stored members of every archived stripe whose only replica is on the node. */
  private long archivedBlocksOnlyOn(DistributedFileSystem dfs, DatanodeInfo node) throws IOException {
    ArchiveLayout layout = ArchiveLayout.from(conf);
    ManifestStore store = new ManifestStore(dfs, layout);
    if (!dfs.exists(layout.manifestDir())) {
      return 0;
    }
    Map<Long, Map<Long, DatanodeInfo[]>> byInode = new HashMap<>();
    long count = 0;
    for (FileStatus st : dfs.listStatus(layout.manifestDir())) {
      if (!st.getPath().getName().endsWith(".wecm")) {
        continue;
      }
      for (ArchivedStripe s : store.read(st.getPath()).stripes()) {
        for (int u : s.storedUnits()) {
          StripeMember m = s.member(u);
          DatanodeInfo[] at = byInode.computeIfAbsent(m.inodeId(), i -> locations(dfs, i)).get(m.blockId());
          if (at != null && at.length > 0 && java.util.Arrays.stream(at)
              .allMatch(d -> d.getXferAddr().equals(node.getXferAddr()))) {
            count++;
          }
        }
      }
    }
    return count;
  }

  /** Each block of a file (reached by inode) with its replicas; none for a file gone since. */
  private static Map<Long, DatanodeInfo[]> locations(DistributedFileSystem dfs, long inode) {
    Map<Long, DatanodeInfo[]> out = new HashMap<>();
    try {
      String file = ArchiveLayout.inodePath(inode).toString();
      for (LocatedBlock b : dfs.getClient().getLocatedBlocks(file, 0, Long.MAX_VALUE).getLocatedBlocks()) {
        out.put(b.getBlock().getBlockId(), b.getLocations());
      }
    } catch (IOException e) {
      // deleted since it was archived: nothing of it is on the node
    }
    return out;
  }

  /** Every file under root whose erasure-coding policy is one of our codecs, with the policy. */
  private static Map<FileStatus, ErasureCodingPolicy> filesOfOurCodecs(DistributedFileSystem dfs, Path root)
      throws IOException {
    Map<FileStatus, ErasureCodingPolicy> out = new LinkedHashMap<>();
    ArrayDeque<FileStatus> todo = new ArrayDeque<>(List.of(dfs.getFileStatus(root)));
    Set<Path> seen = new HashSet<>();
    while (!todo.isEmpty()) {
      FileStatus st = todo.poll();
      if (!seen.add(st.getPath())) {
        continue;
      }
      if (st.isDirectory()) {
        todo.addAll(List.of(dfs.listStatus(st.getPath())));
      } else if (st.isErasureCoded()) {
        ErasureCodingPolicy p = dfs.getErasureCodingPolicy(st.getPath());
        if (p != null && StripedCodec.names().contains(p.getCodecName())) {
          out.put(st, p);
        }
      }
    }
    return out;
  }
}
