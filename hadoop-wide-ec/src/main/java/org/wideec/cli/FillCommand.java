package org.wideec.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.FillUpdate;
import org.wideec.archive.hdfs.ManifestStore;
import org.wideec.archive.hdfs.ParityUpdater;

/**
 * {@code wide-ec archive --fill DIR [--scheme baseline|cau|rackcu] [--no-trim] [--dry-run] [--json]} ({@link
 * FillUpdate}): new files of an archived directory archived into the virtual slots of its stripes by parity updates;
 * the files that do not fit are named and left for a normal archival run.
 */
final class FillCommand {
  static final String USAGE = String.join("\n",
      "  archive --fill DIR [--scheme baseline|cau|rackcu] [--no-trim] [--dry-run] [--json]",
      "                                                        archive new closed files of an archived directory into the",
      "                                                        virtual data slots of its stripes by parity updates (new",
      "                                                        parity blocks, verified, committed as the next manifest",
      "                                                        version), then trim the archive as archive does (not with",
      "                                                        --no-trim); files that do not fit are named and left",
      "                                                        replicated; rerun to finish a crash; --dry-run prints the",
      "                                                        stripe updates and the scheme's plans");

  private final Configuration conf;
  private final PrintStream out;

  FillCommand(Configuration conf, PrintStream out) {
    this.conf = conf;
    this.out = out;
  }

  int run(String[] args) throws IOException {
    Options o = new Options(args, Set.of("scheme"), Set.of("fill", "json", "dry-run", "no-trim"));
    String scheme = MemberUpdateCommand.scheme(o);
    if (o.positional().size() != 1) {
      throw new Options.UsageException("archive --fill needs exactly one archived DIR");
    }
    Path dir = new Path(o.positional().get(0));
    DistributedFileSystem dfs = ArchiveCommand.hdfs(conf, dir, "archive --fill");
    ManifestStore store = new ManifestStore(dfs, ArchiveLayout.from(conf));
    ParityUpdater updater = ParityUpdater.from(dfs, store, conf, ParityUpdater.Hook.NONE, scheme);
    FillUpdate fill = new FillUpdate(dfs, store, updater);
    if (o.has("dry-run")) {
      FillUpdate.Preview p = fill.preview(dir);
      Map<String, Object> extra = new LinkedHashMap<>();
      extra.put("filesFilled", p.filled());
      extra.put("left", left(p.left()));
      new MemberUpdateCommand(conf, out, false).printPlan(updater, Map.of(p.manifest(), p.updates()), scheme,
          o.has("json"),
          extra);
      if (!o.has("json")) {
        printFiles(p.filled(), p.left());
      }
      return 0;
    }
    FillUpdate.Result r = fill.fill(dir, !o.has("no-trim"));
    if (o.has("json")) {
      printJson(r, scheme);
    } else {
      printText(r);
    }
    return r.trimmed() == null || r.trimmed().clean() ? 0 : WideEcTool.EXIT_FOUND_PROBLEM;
  }

  private static List<Map<String, Object>> left(Map<String, String> left) {
    List<Map<String, Object>> out = new ArrayList<>();
    left.forEach((path, why) -> {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("path", path);
      j.put("reason", why);
      out.add(j);
    });
    return out;
  }

  private void printJson(FillUpdate.Result r, String scheme) {
    ParityUpdater.Result u = r.update();
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("archive", u.archive());
    j.put("scheme", scheme);
    j.put("executor", u.executor());
    j.put("manifestVersion", u.version());
    j.put("filesFilled", r.filled());
    j.put("left", left(r.left()));
    j.put("stripesUpdated", u.stripesUpdated());
    j.put("parityBlocksWritten", u.parityWritten());
    j.put("rolledBack", u.rolledBack());
    j.put("freed", u.freed());
    j.put("keptForGrace", u.freeDeferred());
    j.put("bytesRead", u.bytesRead());
    j.put("bytesWritten", u.bytesWritten());
    if (r.trimmed() != null) {
      j.put("stripesTrimmed", r.trimmed().trimmed());
      j.put("notTrimmed", r.trimmed().notTrimmed());
      j.put("offPlan", r.trimmed().offPlan());
    }
    out.println(Json.write(j));
  }

  private void printText(FillUpdate.Result r) {
    ParityUpdater.Result u = r.update();
    out.printf("%s: manifest version %d; %d files archived into open slots, %d stripes updated (%d parity blocks"
            + " written); %d uncommitted leftovers rolled back; %d superseded files freed, %d kept until the grace"
            + " period passes%n", u.archive(), u.version(), r.filled().size(), u.stripesUpdated(), u.parityWritten(),
        u.rolledBack(), u.freed(), u.freeDeferred());
    if (r.trimmed() != null) {
      out.printf("%d stripes trimmed to their planned replicas%n", r.trimmed().trimmed());
      r.trimmed().notTrimmed().forEach(l -> out.println("  not trimmed: " + l));
      r.trimmed().offPlan().forEach(l -> out.println("  off plan: " + l));
    }
    printFiles(r.filled(), r.left());
  }

  private void printFiles(List<String> filled, Map<String, String> left) {
    filled.forEach(p -> out.println("  filled: " + p));
    left.forEach((p, why) -> out.println("  left for a normal wide-ec archive: " + p + ": " + why));
  }
}
