package org.wideec.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.BitSet;
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
import org.wideec.archive.hdfs.ListedBlocks;
import org.wideec.code.LinearCode;
import org.wideec.code.StockReconstruction;
import org.wideec.coder.StripedCodec;
import org.wideec.placement.GroupHealth;
import org.wideec.placement.PlacementConf;
import org.wideec.placement.PlacementPlan;
import org.wideec.placement.StripedPlacement;

/**
 * {@code wide-ec fsck PATH}: for every block group of our codecs under PATH, its units per rack, the units lost
 * now, whether the survivors decode (by the code, not by HDFS's count of parities), whether a stock client reads
 * it now and after its worst single-rack loss (HDFS's reader rule, DESIGN.md §2), whether our worker can repair it
 * and whether HDFS's own reconstructor could too (a loss only our worker rebuilds is printed as a finding),
 * how many more units it can lose, whether the plan holds, and the cross-rack cost of repairing each unit as
 * placed. Exit code 1 when some group has lost data or would be unreadable to stock clients after a rack loss.
 * Archived data under PATH (wide stripes, DESIGN.md §3.2) is judged by {@link ArchiveFsck}; any finding there exits 1,
 * as does a last scrub verdict under PATH that was bad ({@link ScrubFindings}).
 */
final class FsckCommand {
  private final Configuration conf;
  private final PrintStream out;

  FsckCommand(Configuration conf, PrintStream out) {
    this.conf = conf;
    this.out = out;
  }

  /** One block group's report (the JSON fields of {@code fsck --json}, docs/striped.md). */
  record GroupReport(String file, String block, String code, Map<String, List<Integer>> unitsByRack, int[] lostUnits,
      boolean decodable, boolean stockReadable, boolean stockReadableAfterRackLoss, String worstRack,
      boolean repairable, boolean stockRepairable, int remainingTolerance, boolean remainingToleranceExact, boolean planHolds,
      int[] crossRackCost) {
    /** A file whose policy defines no code: nothing of it can be read or judged (counted as lost). */
    static GroupReport unbuildable(String file, String policy, String why) {
      return new GroupReport(file, "(policy " + policy + " defines no code: " + why + ")", null, Map.of(), new int[0],
          false, false, false, null, false, false, -1, true, false, null);
    }
  }

  int run(String[] args) throws IOException {
    Options o = new Options(args, Set.of("scheme"), Set.of("json"));
    if (o.positional().size() != 1) {
      throw new Options.UsageException("fsck needs exactly one PATH");
    }
    Path root = new Path(o.positional().get(0));
    String uriScheme = root.toUri().getScheme();
    if (uriScheme != null && !uriScheme.equals("hdfs")) {
      throw new IllegalArgumentException("fsck needs an HDFS path, " + root + " is on " + uriScheme + "://");
    }
    FileSystem fs = root.getFileSystem(conf);
    if (!(fs instanceof DistributedFileSystem dfs)) {
      throw new IllegalArgumentException("fsck needs an HDFS path, " + root + " is on " + fs.getUri());
    }
    List<GroupReport> reports = new ArrayList<>();
    String scheme = PlacementConf.scheme(o.get("scheme", StripedPlacement.AUTO));
    FileStatus st = dfs.getFileStatus(root);
    if (st.isFile()) {
      check(dfs, st.getPath(), scheme, reports);
    } else {
      RemoteIterator<LocatedFileStatus> it = dfs.listFiles(root, true);
      while (it.hasNext()) {
        check(dfs, it.next().getPath(), scheme, reports);
      }
    }
    Counts c = Counts.of(reports);
    ArchiveFsck archived = ArchiveFsck.of(dfs, root);
    ScrubFindings scrub = ScrubFindings.of(dfs, root);
    String safeMode = SafeModeNotice.of(dfs, "fsck", root.toUri().getPath(), archived::missing);
    if (o.has("json")) {
      printJson(root, safeMode, reports, c, archived, scrub);
    } else {
      printText(safeMode, reports, c, archived);
      scrub.print(out);
    }
    return c.lost() > 0 || c.notRackTolerant() > 0 || archived.problems() || scrub.problems() ? 1 : 0;
  }

  /** The groups counted by what fsck reports about them. */
  private record Counts(long lost, long unreadable, long notRackTolerant, long atRisk, long offPlan,
      long stockCannotRepair) {
    static Counts of(List<GroupReport> reports) {
      return new Counts(reports.stream().filter(r -> !r.decodable()).count(),
          reports.stream().filter(r -> r.decodable() && !r.stockReadable()).count(),
          reports.stream().filter(r -> !r.stockReadableAfterRackLoss()).count(),
          reports.stream().filter(r -> r.decodable() && r.remainingTolerance() <= 0).count(),
          reports.stream().filter(r -> !r.planHolds()).count(),
          reports.stream().filter(r -> r.decodable() && !r.stockRepairable()).count());
    }
  }

  private void printJson(Path root, String safeMode, List<GroupReport> reports, Counts c, ArchiveFsck archived,
      ScrubFindings scrub) {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("path", root.toString());
    j.put("safeMode", safeMode);
    j.put("groups", reports);
    j.put("groupsChecked", reports.size());
    j.put("groupsLost", c.lost());
    j.put("groupsUnreadableToStockClients", c.unreadable());
    j.put("groupsNotRackTolerant", c.notRackTolerant());
    j.put("groupsAtRisk", c.atRisk());
    j.put("groupsOffPlan", c.offPlan());
    j.put("groupsOnlyOurWorkerRepairs", c.stockCannotRepair());
    j.put("archived", archived.toJson());
    j.put("scrub", scrub.toJson());
    out.println(Json.write(j));
  }

  private void printText(String safeMode, List<GroupReport> reports, Counts c, ArchiveFsck archived) {
    if (safeMode != null) {
      out.println(safeMode);
    }
    Table t = new Table().row("FILE", "GROUP", "UNITS PER RACK", "LOST", "DECODES", "STOCK READ", "AFTER RACK LOSS",
        "MORE LOSSES", "PLAN", "CROSS-RACK REPAIR PER UNIT");
    for (GroupReport r : reports) {
      StringBuilder racks = new StringBuilder();
      r.unitsByRack().forEach((rack, units) -> racks.append(racks.length() == 0 ? "" : " ").append(rack).append('=')
          .append(units.size()));
      t.row(r.file(), r.block(), racks, java.util.Arrays.toString(r.lostUnits()), r.decodable() ? "yes" : "DATA LOST",
          r.stockReadable() ? "yes" : "NO", r.stockReadableAfterRackLoss() ? "yes" : "NO (" + r.worstRack() + ")",
          r.decodable() ? (r.remainingToleranceExact() ? "" : ">=") + r.remainingTolerance() : "-",
          r.planHolds() ? "holds" : "OFF PLAN",
          crossRackColumn(r));
    }
    t.print(out);
    out.printf("%d block groups checked: %d lost data, %d unreadable to stock clients now, %d unreadable to stock"
        + " clients after a rack loss, %d one loss from data loss, %d off plan%n", reports.size(), c.lost(),
        c.unreadable(), c.notRackTolerant(), c.atRisk(), c.offPlan());
    for (GroupReport r : reports) {
      if (r.decodable() && !r.stockRepairable()) {
        out.println("REPAIR NEEDS THE WIDE-EC WORKER: " + r.file() + " " + r.block() + " lost units "
            + java.util.Arrays.toString(r.lostUnits()) + ", which HDFS's own reconstructor cannot rebuild from the"
            + " units it reads (index order); a DataNode without the wide-ec worker retries it forever");
      }
    }
    archived.print(out);
  }

  /**
   * The table's cross-rack repair cost: per unit as placed, or why there is none (units lost now, or a group shorter
   * than a stripe, whose data units past its end were never written and so have no rack to cost).
   */
  static String crossRackColumn(GroupReport r) {
    if (r.crossRackCost() != null) {
      return java.util.Arrays.toString(r.crossRackCost());
    }
    if (r.code() == null) {
      return "n/a (no code)";
    }
    if (r.lostUnits().length > 0) {
      return "n/a (units lost)";
    }
    return "n/a (group shorter than a stripe)";
  }

  /** Whether HDFS's own reconstructor (a DataNode without our worker) rebuilds the loss too. */
  private static boolean stockRepairable(LinearCode code, BitSet absent, int[] lost) {
    int realData = absent.isEmpty() ? code.k() : absent.nextSetBit(0);
    return lost.length == 0 || !code.isSystematic() || StockReconstruction.canRebuild(code, realData, lost);
  }

  private void check(DistributedFileSystem dfs, Path file, String scheme, List<GroupReport> reports) throws IOException {
    ErasureCodingPolicy policy = dfs.getErasureCodingPolicy(file);
    if (policy == null) {
      return;
    }
    if (!StripedCodec.names().contains(policy.getCodecName())) {
      return;
    }
    LinearCode code;
    try {
      code = StripedCodec.byName(policy.getCodecName()).codeFor(policy.getNumDataUnits(), policy.getNumParityUnits());
    } catch (RuntimeException e) {
      reports.add(GroupReport.unbuildable(file.toUri().getPath(), policy.getName(), e.getMessage()));
      return;
    }
    // A group whose shape has no plan is still judged by the code and the stock reader; its plan cannot hold.
    PlacementPlan plan;
    try {
      plan = StripedPlacement.planFor(policy.getCodecName(), policy.getNumDataUnits(), policy.getNumParityUnits(),
          scheme);
    } catch (RuntimeException e) {
      plan = null;
    }
    org.apache.hadoop.hdfs.protocol.LocatedBlocks listed = ListedBlocks.of(dfs, file.toUri().getPath());
    if (listed == null) {
      return; // deleted while listed
    }
    for (LocatedBlock b : listed.getLocatedBlocks()) {
      reports.add(report(file, policy, code, plan, (LocatedStripedBlock) b));
    }
  }

  /** One block group judged by its code, the stock reader and its plan (null: the shape has none). */
  private static GroupReport report(Path file, ErasureCodingPolicy policy, LinearCode code, PlacementPlan plan,
      LocatedStripedBlock g) {
    int n = code.n();
    String[] rackOf = new String[n];
    Map<Integer, String> live = new TreeMap<>();
    Map<String, List<Integer>> byRack = new TreeMap<>();
    byte[] idx = g.getBlockIndices();
    DatanodeInfo[] locs = g.getLocations();
    for (int i = 0; i < idx.length; i++) {
      rackOf[idx[i]] = locs[i].getNetworkLocation();
      live.put((int) idx[i], rackOf[idx[i]]);
      byRack.computeIfAbsent(rackOf[idx[i]], r -> new ArrayList<>()).add((int) idx[i]);
    }
    // Data units past the end of a short group were never written: zeros to every reader, never lost.
    long cells = (g.getBlockSize() + policy.getCellSize() - 1) / policy.getCellSize();
    BitSet absent = new BitSet();
    absent.set((int) Math.min(code.k(), cells), code.k());
    GroupHealth health = GroupHealth.of(code, absent, live);
    int[] cross = null;
    if (health.lost().length == 0 && absent.isEmpty()) {
      List<String> names = new ArrayList<>(byRack.keySet());
      int[] rackIndex = new int[n];
      for (int u = 0; u < n; u++) {
        rackIndex[u] = names.indexOf(rackOf[u]);
      }
      cross = PlacementCosts.of(new PlacementPlan("as-placed", code, rackIndex)).crossRackCost();
    }
    return new GroupReport(file.toUri().getPath(), g.getBlock().getBlockName(), code.spec(), byRack,
        health.lost(), health.decodable(), health.stockReadable(), health.stockReadableAfterRackLoss(),
        health.worstRack(), health.decodable(), health.decodable() && stockRepairable(code, absent, health.lost()),
        health.remaining().value(), health.remaining().exact(),
        plan != null && StripedPlacement.holds(plan, rackOf), cross);
  }
}
