package org.wideec.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.wideec.analysis.PlacementCosts;
import org.wideec.code.ErasurePatterns;
import org.wideec.placement.PlacementPlan;
import org.wideec.placement.StripedPlacement;

/**
 * {@code wide-ec fsck PATH}: for every block group of our codecs under PATH, its units per rack, whether the
 * placement plan holds, whether the loss of any one rack stays decodable, and the cross-rack cost of
 * repairing each unit as placed. Exit code 1 when some group would not survive a rack loss.
 */
final class FsckCommand {
  private final Configuration conf;
  private final PrintStream out;

  FsckCommand(Configuration conf, PrintStream out) {
    this.conf = conf;
    this.out = out;
  }

  /** One block group's report. */
  record GroupReport(String file, String block, Map<String, List<Integer>> unitsByRack, boolean planHolds,
      boolean rackTolerant, int[] crossRackCost) {}

  int run(String[] args) throws IOException {
    Options o = new Options(args, Set.of("scheme"), Set.of("json"));
    if (o.positional().size() != 1) {
      throw new Options.UsageException("fsck needs exactly one PATH");
    }
    Path root = new Path(o.positional().get(0));
    FileSystem fs = root.getFileSystem(conf);
    if (!(fs instanceof DistributedFileSystem dfs)) {
      throw new IllegalArgumentException("fsck needs an HDFS path, " + root + " is on " + fs.getUri());
    }
    List<GroupReport> reports = new ArrayList<>();
    String scheme = o.get("scheme", StripedPlacement.AUTO);
    FileStatus st = dfs.getFileStatus(root);
    if (st.isFile()) {
      check(dfs, st.getPath(), scheme, reports);
    } else {
      RemoteIterator<LocatedFileStatus> it = dfs.listFiles(root, true);
      while (it.hasNext()) {
        check(dfs, it.next().getPath(), scheme, reports);
      }
    }
    long broken = reports.stream().filter(r -> !r.rackTolerant()).count();
    long offPlan = reports.stream().filter(r -> !r.planHolds()).count();
    if (o.has("json")) {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("path", root.toString());
      j.put("groups", reports);
      j.put("groupsChecked", reports.size());
      j.put("groupsOffPlan", offPlan);
      j.put("groupsNotRackTolerant", broken);
      out.println(Json.write(j));
    } else {
      Table t = new Table().row("FILE", "GROUP", "UNITS PER RACK", "PLAN", "RACK-TOLERANT", "CROSS-RACK REPAIR PER UNIT");
      for (GroupReport r : reports) {
        StringBuilder racks = new StringBuilder();
        r.unitsByRack().forEach((rack, units) -> racks.append(racks.length() == 0 ? "" : " ").append(rack).append('=')
            .append(units.size()));
        t.row(r.file(), r.block(), racks, r.planHolds() ? "holds" : "OFF PLAN", r.rackTolerant() ? "yes" : "NO",
            r.crossRackCost() == null ? "n/a (partial group)" : java.util.Arrays.toString(r.crossRackCost()));
      }
      t.print(out);
      out.printf("%d block groups checked, %d off plan, %d would not survive the loss of a rack%n", reports.size(),
          offPlan, broken);
    }
    return broken > 0 ? 1 : 0;
  }

  private void check(DistributedFileSystem dfs, Path file, String scheme, List<GroupReport> reports) throws IOException {
    ErasureCodingPolicy policy = dfs.getErasureCodingPolicy(file);
    if (policy == null) {
      return;
    }
    PlacementPlan plan = StripedPlacement.planFor(policy.getCodecName(), policy.getNumDataUnits(),
        policy.getNumParityUnits(), scheme);
    if (plan == null) {
      return;
    }
    int n = plan.code().n();
    for (LocatedBlock b : dfs.getClient().getLocatedBlocks(file.toUri().getPath(), 0, Long.MAX_VALUE).getLocatedBlocks()) {
      LocatedStripedBlock g = (LocatedStripedBlock) b;
      String[] rackOf = new String[n];
      Map<String, List<Integer>> byRack = new TreeMap<>();
      byte[] idx = g.getBlockIndices();
      DatanodeInfo[] locs = g.getLocations();
      for (int i = 0; i < idx.length; i++) {
        rackOf[idx[i]] = locs[i].getNetworkLocation();
        byRack.computeIfAbsent(rackOf[idx[i]], r -> new ArrayList<>()).add((int) idx[i]);
      }
      ErasurePatterns patterns = ErasurePatterns.of(plan.code());
      boolean tolerant = byRack.values().stream()
          .allMatch(units -> patterns.isDecodable(units.stream().mapToInt(Integer::intValue).toArray()));
      int[] cross = null;
      boolean complete = java.util.Arrays.stream(rackOf).allMatch(java.util.Objects::nonNull);
      if (complete) {
        List<String> names = new ArrayList<>(byRack.keySet());
        int[] rackIndex = new int[n];
        for (int u = 0; u < n; u++) {
          rackIndex[u] = names.indexOf(rackOf[u]);
        }
        cross = PlacementCosts.of(new PlacementPlan("as-placed", plan.code(), rackIndex)).crossRackCost();
      }
      reports.add(new GroupReport(file.toUri().getPath(), g.getBlock().getBlockName(), byRack,
          StripedPlacement.holds(plan, rackOf), tolerant, cross));
    }
  }
}
