package org.wideec.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.ManifestStore;
import org.wideec.archive.hdfs.SlicePortClient;
import org.wideec.scrub.ScrubVerdict;
import org.wideec.scrub.UnitSummary;
import org.wideec.scrub.hdfs.ArchivedStripeScrub;
import org.wideec.scrub.hdfs.StripedGroupScrub;

/**
 * {@code wide-ec verify PATH [--repair] [--page-bytes N] [--seed S] [--json]}: the stripes of an archived PATH
 * ({@link ArchivedStripeScrub}), or every block group of the files under PATH that use a striped policy of ours
 * ({@link StripedGroupScrub}), checked against their code from one-page summaries of their units; with
 * {@code --repair} a unit at fault is reported corrupt so it is rebuilt from the units that agree (a block group's by
 * the repair worker, an archived member's replicas that disagree with the other units by the archive repair monitor,
 * or copied from a replica that agrees). Exit 1 when a stripe or group is at fault, undecidable or could not be checked.
 */
final class VerifyCommand {
  static final String USAGE = String.join("\n",
      "  verify PATH [--repair] [--page-bytes 4096] [--seed S] [--json]",
      "                                                        per archived stripe, or block group of our striped policies:",
      "                                                        consistent, the unit",
      "                                                        at fault, or why undecidable, from one-page summaries each",
      "                                                        holder folds (no unit leaves its node); --repair reports a",
      "                                                        unit at fault corrupt so it is rebuilt from the units that",
      "                                                        agree");

  private final Configuration conf;
  private final PrintStream out;
  private final PrintStream err;

  VerifyCommand(Configuration conf, PrintStream out, PrintStream err) {
    this.conf = conf;
    this.out = out;
    this.err = err;
  }

  int run(String[] args) throws IOException {
    Options o = new Options(args, Set.of("page-bytes", "seed"), Set.of("json", "repair"));
    if (o.positional().size() != 1) {
      throw new Options.UsageException("verify needs exactly one PATH");
    }
    long page = o.getLong("page-bytes", UnitSummary.DEFAULT_PAGE_SIZE);
    if (page < 1 || page > 1 << 20) {
      throw new Options.UsageException("--page-bytes must be 1..1048576, got " + page);
    }
    long seed = o.getLong("seed", System.nanoTime());
    Path path = new Path(o.positional().get(0));
    DistributedFileSystem dfs = ArchiveCommand.hdfs(conf, path, "verify");
    List<Map<String, Object>> rows = new ArrayList<>();
    List<Map<String, Object>> stripes = new ArrayList<>();
    int problems = 0;
    try (SlicePortClient port = new SlicePortClient(conf)) {
      StripedGroupScrub scrub = new StripedGroupScrub(dfs, port, (int) page, seed);
      ArchivedStripeScrub archived = new ArchivedStripeScrub(dfs, new ManifestStore(dfs, ArchiveLayout.from(conf)),
          port, (int) page, seed);
      StripeManifest manifest = archived.manifestOf(path);
      if (manifest != null) {
        ProgressReport progress = new ProgressReport(err, "verify " + path + " (archived stripes)");
        List<ArchivedStripeScrub.StripeResult> results;
        try {
          results = archived.verify(manifest, progress);
        } finally {
          progress.finish();
        }
        for (ArchivedStripeScrub.StripeResult r : results) {
          ArchivedStripeScrub.Repair repair = r.atFault() != null && o.has("repair") ? archived.repair(r) : null;
          problems += r.verdict() == null || !r.verdict().consistent() ? 1 : 0;
          Map<String, Object> row = row(r.stripe(), r.verdict(), r.error(), repair != null);
          if (repair != null) {
            row.put("reportedCorrupt", repair.reported());
            row.put("agreeingReplicas", repair.agreeing());
            row.put("repair", repair.toString());
          }
          stripes.add(row);
        }
      } else {
        for (Path file : stripedFiles(dfs, path)) {
          ProgressReport progress = new ProgressReport(err, "verify " + file + " (block groups)");
          List<StripedGroupScrub.GroupResult> results;
          try {
            results = scrub.verify(file, progress);
          } finally {
            progress.finish();
          }
          for (StripedGroupScrub.GroupResult r : results) {
            boolean repaired = false;
            if (r.atFault() != null && o.has("repair")) {
              scrub.repair(r);
              repaired = true;
            }
            problems += r.verdict() == null || !r.verdict().consistent() ? 1 : 0;
            rows.add(row(r.group(), r.verdict(), r.error(), repaired));
          }
        }
      }
      long bytes = scrub.summaryBytes() + archived.summaryBytes();
      long cross = scrub.crossRackSummaryBytes() + archived.crossRackSummaryBytes();
      if (o.has("json")) {
        Map<String, Object> j = new LinkedHashMap<>();
        j.put("path", path.toString());
        j.put("groups", rows);
        j.put("stripes", stripes);
        j.put("groupsChecked", rows.size());
        j.put("stripesChecked", stripes.size());
        j.put("problems", problems);
        j.put("summaryBytes", bytes);
        j.put("crossRackSummaryBytes", cross);
        out.println(Json.write(j));
      } else {
        for (Map<String, Object> r : manifest != null ? stripes : rows) {
          out.println(r.get("name") + ": " + r.get("result") + (r.containsKey("repair") ? " (" + r.get("repair") + ")"
              : Boolean.TRUE.equals(r.get("repairRequested")) ? " (reported corrupt: the repair worker rebuilds it)"
              : ""));
        }
        out.printf("%d %s checked, %d with a problem; %,d summary bytes, %,d from other racks%n",
            manifest != null ? stripes.size() : rows.size(), manifest != null ? "archived stripes" : "block groups",
            problems, bytes, cross);
      }
    }
    return problems == 0 ? 0 : 1;
  }

  private static Map<String, Object> row(String name, ScrubVerdict v, String error, boolean repaired) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", name);
    if (v == null) {
      m.put("result", "error: " + error);
      m.put("error", error);
    } else {
      m.put("result", v.toString());
      m.put("verdict", v.outcome().name().toLowerCase(java.util.Locale.ROOT));
      m.put("suspects", v.suspects());
    }
    m.put("repairRequested", repaired);
    return m;
  }

  /** The file itself, or every file under the directory, that has a striped policy (ours is checked per file). */
  private static List<Path> stripedFiles(DistributedFileSystem dfs, Path path) throws IOException {
    List<Path> files = new ArrayList<>();
    RemoteIterator<LocatedFileStatus> it = dfs.listFiles(path, true);
    while (it.hasNext()) {
      LocatedFileStatus f = it.next();
      if (f.isErasureCoded()) {
        files.add(f.getPath());
      }
    }
    if (files.isEmpty()) {
      throw new IOException(path + " is not archived and holds no erasure-coded file: verify checks archived stripes"
          + " and block groups of wide-ec's striped policies");
    }
    return files;
  }
}
