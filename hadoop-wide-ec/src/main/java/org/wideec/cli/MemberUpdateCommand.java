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
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeUpdate;
import org.wideec.archive.UpdateChoice;
import org.wideec.archive.hdfs.ChainEncoder;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.ManifestStore;
import org.wideec.archive.hdfs.ParityUpdater;

/**
 * The parity-update commands ({@link ParityUpdater}). {@code wide-ec rm PATH... [--scheme baseline|cau|rackcu]
 * [--dry-run] [--json]}: archived files removed: each leaves the namespace at once, the stripes holding it drop its
 * blocks from their parity (one update per archive for all the files given), and its blocks are freed after the
 * commit's grace period; {@code wide-ec rm --finish [--json]} completes what crashed runs left and frees what is due.
 * {@code wide-ec replace PATH SRC [...]}: the closed file SRC renamed in as PATH's new content, the parity updated by
 * old XOR new.
 */
final class MemberUpdateCommand {
  static final String REPLACE_USAGE = String.join("\n",
      "  replace PATH SRC [--scheme baseline|cau|rackcu] [--dry-run] [--json]",
      "                                                        new content for an archived file: the closed file SRC is",
      "                                                        renamed in as PATH, the old file set aside, and one parity",
      "                                                        update applies old XOR new; rerun to finish a crash");
  static final String USAGE = String.join("\n",
      "  rm PATH... [--scheme baseline|cau|rackcu] [--dry-run] [--json]",
      "                                                        remove archived files: each leaves the namespace at once,",
      "                                                        one parity update per archive zeroes them in their stripes",
      "                                                        (new parity blocks, verified, committed as the next",
      "                                                        manifest version), their blocks freed after",
      "                                                        wide-ec.update.gc.grace.ms; the DataNodes run the scheme's",
      "                                                        plan (wide-ec.update.executor); --dry-run prints it",
      "  rm --finish [ARCHIVED_DIR...] [--json]               finish crashed runs (roll back or forward), free what is",
      "                                                        due; with directories: also reconcile members a stock",
      "                                                        hdfs dfs -rm deleted (its stripes re-encoded)");
  static final Set<String> SCHEMES = Set.of("baseline", "cau", "rackcu");

  private final Configuration conf;
  private final PrintStream out;
  private final boolean replace;

  /** {@code replace}: the replace command, else rm. */
  MemberUpdateCommand(Configuration conf, PrintStream out, boolean replace) {
    this.conf = conf;
    this.out = out;
    this.replace = replace;
  }

  int run(String[] args) throws IOException {
    return replace ? runReplace(args) : runRm(args);
  }

  private int runReplace(String[] args) throws IOException {
    Options o = new Options(args, Set.of("scheme"), Set.of("json", "dry-run"));
    String scheme = scheme(o);
    if (o.positional().size() != 2) {
      throw new Options.UsageException("replace needs PATH and SRC");
    }
    Path path = new Path(o.positional().get(0));
    Path src = new Path(o.positional().get(1));
    ParityUpdater updater = updater(path, scheme);
    if (o.has("dry-run")) {
      printPlan(updater, updater.previewReplace(path, src), scheme, o.has("json"));
      return 0;
    }
    print(List.of(updater.replace(path, src)), scheme, o.has("json"));
    return 0;
  }

  static String scheme(Options o) {
    String scheme = o.get("scheme", "rackcu");
    if (!SCHEMES.contains(scheme)) {
      throw new Options.UsageException("--scheme must be baseline, cau or rackcu, got '" + scheme + "'");
    }
    return scheme;
  }

  private ParityUpdater updater(Path path, String scheme) throws IOException {
    DistributedFileSystem dfs = ArchiveCommand.hdfs(conf, path, replace ? "replace" : "rm");
    return ParityUpdater.from(dfs, new ManifestStore(dfs, ArchiveLayout.from(conf)), conf,
        ParityUpdater.Hook.NONE, scheme);
  }

  private int runRm(String[] args) throws IOException {
    Options o = new Options(args, Set.of("scheme"), Set.of("json", "dry-run", "finish"));
    String scheme = scheme(o);
    if (!o.has("finish") && o.positional().isEmpty()) {
      throw new Options.UsageException("rm needs PATH... or --finish [ARCHIVED_DIR...]");
    }
    ParityUpdater updater = updater(o.positional().isEmpty() ? new Path("/") : new Path(o.positional().get(0)),
        scheme);
    List<Path> paths = o.positional().stream().map(Path::new).toList();
    if (o.has("dry-run")) {
      if (o.has("finish")) {
        throw new Options.UsageException("--dry-run prints the update of rm PATH...; --finish has none to print");
      }
      printPlan(updater, updater.preview(paths), scheme, o.has("json"));
      return 0;
    }
    if (o.has("finish")) {
      print(paths.isEmpty() ? updater.resumeAll() : updater.reconcile(paths), scheme, o.has("json"));
    } else {
      print(updater.remove(paths), scheme, o.has("json"));
    }
    return 0;
  }

  private void print(List<ParityUpdater.Result> results, String scheme, boolean json) {
    if (json) {
      List<Map<String, Object>> archives = new ArrayList<>();
      for (ParityUpdater.Result r : results) {
        Map<String, Object> j = new LinkedHashMap<>();
        j.put("archive", r.archive());
        j.put("manifestVersion", r.version());
        j.put("filesRemoved", r.filesRemoved());
        j.put("stripesUpdated", r.stripesUpdated());
        j.put("stripesDropped", r.stripesDropped());
        j.put("parityBlocksWritten", r.parityWritten());
        j.put("rolledBack", r.rolledBack());
        j.put("freed", r.freed());
        j.put("keptForGrace", r.freeDeferred());
        j.put("bytesRead", r.bytesRead());
        j.put("bytesWritten", r.bytesWritten());
        j.put("executor", r.executor());
        archives.add(j);
      }
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("scheme", scheme);
      j.put("executor", executor(results));
      j.put("archives", archives);
      out.println(Json.write(j));
      return;
    }
    for (ParityUpdater.Result r : results) {
      out.printf("%s: manifest version %d; %d files removed, %d stripes updated (%d parity blocks written), %d dropped;"
              + " %d uncommitted leftovers rolled back; %d superseded files freed, %d kept until the grace period"
              + " passes; parity computed by the %s executor (%s)%n", r.archive(), r.version(), r.filesRemoved(),
          r.stripesUpdated(), r.parityWritten(), r.stripesDropped(), r.rolledBack(), r.freed(), r.freeDeferred(),
          r.executor(), scheme);
    }
    if (results.isEmpty()) {
      out.println("nothing to finish");
    }
  }

  /**
   * A re-encoding's plan as the dry run prints it: the chain's trees (rows, collector, steps) and deliveries, and what
   * crosses racks, in chunks of the unit length as a delta plan counts them.
   */
  private static Map<String, Object> reEncodeJson(UpdateChoice choice) {
    org.wideec.archive.encode.EncodePlan p = choice.reEncode();
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("scheme", "reencode");
    j.put("reEncode", true);
    j.put("encoder", "chain");
    j.put("reason", choice.reason());
    // Every stream carries each row at the parity length (the longest kept unit; shorter units read as zeros past
    // their end), so this is exact; rounded up all the same, it never understates the bytes.
    j.put("crossRackChunks", (p.crossRackBytes() + p.unitBytes() - 1) / p.unitBytes());
    j.put("crossRackBytes", p.crossRackBytes());
    List<Map<String, Object>> trees = new ArrayList<>();
    for (org.wideec.archive.encode.EncodePlan.Tree t : p.trees()) {
      Map<String, Object> tj = new LinkedHashMap<>();
      tj.put("parities", t.rows());
      tj.put("collector", t.collector().node());
      tj.put("units", t.steps().stream().mapToInt(org.wideec.archive.encode.EncodePlan.Step::unit).toArray());
      trees.add(tj);
    }
    j.put("trees", trees);
    j.put("deliveries", p.deliveries().size());
    return j;
  }

  /** Who computed the parity over every archive updated: one name, or datanode+client when they differ. */
  private static String executor(List<ParityUpdater.Result> results) {
    Set<String> names = new java.util.TreeSet<>();
    for (ParityUpdater.Result r : results) {
      if (r.stripesUpdated() > 0) {
        names.addAll(List.of(r.executor().split("\\+")));
      }
    }
    return names.isEmpty() ? "none" : names.size() == 1 ? names.iterator().next() : "datanode+client";
  }

  private void printPlan(ParityUpdater updater, Map<StripeManifest, List<StripeUpdate>> plans, String scheme,
      boolean json) {
    printPlan(updater, plans, scheme, json, Map.of());
  }

  /**
   * The dry run's stripe updates and the scheme's plans, each planned from the racks its units are read in now
   * ({@link ParityUpdater#readRacks}), as the run plans it; {@code extra}: more top-level JSON fields.
   */
  void printPlan(ParityUpdater updater, Map<StripeManifest, List<StripeUpdate>> plans, String scheme, boolean json,
      Map<String, Object> extra) {
    List<Map<String, Object>> archives = new ArrayList<>();
    org.wideec.archive.encode.EncodePlan.Shape shape = ChainEncoder.shapeOf(conf);
    boolean whenCheaper = conf.getBoolean(ParityUpdater.REENCODE_KEY, ParityUpdater.REENCODE_DEFAULT);
    for (Map.Entry<StripeManifest, List<StripeUpdate>> e : plans.entrySet()) {
      List<Map<String, Object>> stripes = new ArrayList<>();
      for (StripeUpdate u : e.getValue()) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("stripe", u.before().stripeId());
        s.put("code", u.before().codeSpec());
        s.put("removedUnits", u.removedUnits());
        s.put("changedUnits", u.changedUnits());
        s.put("rewrittenParities", u.rewrittenParities());
        s.put("vanishingParities", u.vanishingParities());
        s.put("dropped", u.dropsStripe());
        s.put("unitLength", u.nextUnitLength());
        UpdateChoice choice = UpdateChoice.of(u, updater.readRacks(u), org.wideec.update.UpdateScheme.byName(scheme),
            Set.of(), shape, whenCheaper);
        s.put("plan", choice.reEncodes() ? reEncodeJson(choice) : choice.delta().toJson());
        s.put("crossRackBytes", u.dropsStripe() ? 0 : choice.crossRackBytes());
        stripes.add(s);
        if (!json) {
          out.printf("%s stripe %d (%s): data units %s change (%s leave), parity units %s rewritten%s%s%n",
              e.getKey().archivedPath(), u.before().stripeId(), u.before().codeSpec(),
              java.util.Arrays.toString(u.changedUnits()), java.util.Arrays.toString(u.removedUnits()),
              java.util.Arrays.toString(u.rewrittenParities()),
              u.vanishingParities().length == 0 ? "" : ", " + java.util.Arrays.toString(u.vanishingParities())
                  + " become virtual", u.dropsStripe() ? "; no data left: the stripe is dropped" : "");
          String plan = choice.reEncodes() ? "re-encoded on the DataNodes (" + choice.reason() + "):\n"
              + choice.reEncode().describe() : choice.delta().describe();
          out.println("  " + plan.strip().replace("\n", "\n  "));
        }
      }
      Map<String, Object> a = new LinkedHashMap<>();
      a.put("archive", e.getKey().archivedPath());
      a.put("manifestVersion", e.getKey().version());
      a.put("stripes", stripes);
      archives.add(a);
    }
    String executor = conf.getTrimmed(ParityUpdater.EXECUTOR_KEY, ParityUpdater.EXECUTOR_DEFAULT);
    if (json) {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("scheme", scheme);
      j.put("dryRun", true);
      j.put("executor", executor);
      j.put("archives", archives);
      j.putAll(extra);
      out.println(Json.write(j));
    } else {
      out.printf("scheme: %s, executor: %s (%s); nothing was changed (--dry-run)%n", scheme, executor,
          executor.equals("client") ? "this process reads the changed units and old parity through HDFS"
              : "the DataNodes carry out each plan above unless a stripe's update falls back to the client, which"
                  + " the run's log says");
    }
  }
}
