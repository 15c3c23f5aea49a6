package org.wideec.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.wideec.archive.StripeAudit;
import org.wideec.archive.StripeAudit.Finding;
import org.wideec.archive.StripeAudit.Problem;
import org.wideec.archive.hdfs.ArchiveInspector;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.ManifestStore;

/**
 * The archived half of {@code wide-ec fsck PATH}: each archived stripe under the path (missing, off plan and stale
 * members, whether it still decodes and how many more losses it takes), stripes stuck mid-archive, and orphans
 * ({@link ArchiveInspector}); rendered as JSON fields or as a table.
 */
final class ArchiveFsck {
  private final ArchiveInspector.Report report;

  private ArchiveFsck(ArchiveInspector.Report report) {
    this.report = report;
  }

  static ArchiveFsck of(DistributedFileSystem dfs, Path path) throws IOException {
    ManifestStore store = new ManifestStore(dfs, ArchiveLayout.from(dfs.getConf()));
    return new ArchiveFsck(new ArchiveInspector(dfs, store).inspect(path));
  }

  /** Something is wrong (fsck exits 1). */
  boolean problems() {
    return report.problems() > 0;
  }

  /** Archived blocks (data or parity) with no live replica. */
  long missing() {
    return all().stream().filter(f -> f.problem() == Problem.MISSING).count();
  }

  private List<Finding> all() {
    List<Finding> out = new ArrayList<>();
    report.stripes().forEach(v -> out.addAll(v.findings()));
    out.addAll(report.findings());
    return out;
  }

  private Map<Problem, Integer> counts() {
    Map<Problem, Integer> n = new EnumMap<>(Problem.class);
    for (Problem p : Problem.values()) {
      n.put(p, 0);
    }
    all().forEach(f -> n.merge(f.problem(), 1, Integer::sum));
    return n;
  }

  private static String label(Finding f) {
    return f.problem().label().toUpperCase(java.util.Locale.ROOT);
  }

  private long notDecodable() {
    return report.stripes().stream().filter(v -> Boolean.FALSE.equals(v.decodable())).count();
  }

  /** The {@code archived} object of fsck's JSON. */
  Map<String, Object> toJson() {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("notChecked", report.notChecked());
    j.put("manifestsChecked", report.manifestsChecked());
    j.put("stripesChecked", report.stripes().size());
    j.put("problems", report.problems());
    j.put("stripesNotDecodable", notDecodable());
    Map<String, Integer> byProblem = new LinkedHashMap<>();
    counts().forEach((p, c) -> byProblem.put(p.label(), c));
    j.put("findingsByProblem", byProblem);
    List<Map<String, Object>> stripes = new ArrayList<>();
    for (StripeAudit.Verdict v : report.stripes()) {
      Map<String, Object> s = new LinkedHashMap<>();
      s.put("manifest", v.manifest());
      s.put("path", v.archivedPath());
      s.put("stripe", v.stripeId());
      s.put("code", v.code());
      s.put("state", v.state().name());
      s.put("lostUnits", v.lost());
      s.put("decodable", v.decodable());
      s.put("remainingTolerance", v.remainingTolerance());
      s.put("remainingToleranceExact", v.toleranceExact());
      s.put("toleranceWhenWhole", v.toleranceWhole());
      s.put("findings", v.findings().stream().map(ArchiveFsck::json).toList());
      stripes.add(s);
    }
    j.put("stripes", stripes);
    j.put("findings", report.findings().stream().map(ArchiveFsck::json).toList());
    return j;
  }

  private static Map<String, Object> json(Finding f) {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("problem", f.problem().label());
    j.put("file", f.file());
    j.put("stripe", f.stripeId());
    j.put("unit", f.unit());
    j.put("block", f.blockId());
    j.put("message", f.message());
    return j;
  }

  /** The table for people; nothing when the path holds no archived data and nothing is orphaned. */
  void print(PrintStream out) {
    if (report.notChecked() != null) {
      out.println(report.notChecked());
      return;
    }
    if (report.manifestsChecked() == 0 && report.findings().isEmpty()) {
      return;
    }
    out.println();
    Table t = new Table().row("ARCHIVED PATH", "STRIPE", "CODE", "STATE", "LOST", "DECODES", "MORE LOSSES", "FINDINGS");
    for (StripeAudit.Verdict v : report.stripes()) {
      t.row(v.archivedPath(), v.stripeId(), v.code(), v.state(), v.lost(),
          v.decodable() == null ? "n/a (no parity)" : v.decodable() ? "yes" : "NO",
          v.remainingTolerance() == null || v.remainingTolerance() < 0 ? "-"
              : (v.toleranceExact() ? "" : ">=") + v.remainingTolerance() + " of " + v.toleranceWhole(),
          v.findings().size());
    }
    t.print(out);
    for (StripeAudit.Verdict v : report.stripes()) {
      if (!v.healthy()) {
        out.println(v.describe());
        v.findings().forEach(f -> out.println("  " + label(f) + ": " + f.message()));
      }
    }
    report.findings().forEach(f -> out.println(label(f) + ": " + f.message()));
    Map<Problem, Integer> n = counts();
    out.printf("%d archived stripes in %d manifests checked: %d not decodable, %d missing, %d off plan, %d stale"
            + " (%d stripes below tolerance, %d held by raised replication), %d stuck mid-archive, %d unprotected"
            + " blocks, %d orphaned, %d corrupt%n", report.stripes().size(),
        report.manifestsChecked(), notDecodable(), n.get(Problem.MISSING), n.get(Problem.OFF_PLAN),
        n.get(Problem.STALE), n.get(Problem.BELOW_TOLERANCE), n.get(Problem.REPROTECTED), n.get(Problem.STUCK),
        n.get(Problem.UNPROTECTED),
        n.get(Problem.ORPHAN_MANIFEST) + n.get(Problem.ORPHAN_PARITY) + n.get(Problem.ORPHAN_POINTER)
            + n.get(Problem.ORPHAN_CODEWORDS) + n.get(Problem.ORPHAN_INDEX) + n.get(Problem.ORPHAN_PLACEHOLDER),
        n.get(Problem.CORRUPT_MANIFEST));
  }
}
