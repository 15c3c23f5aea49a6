package org.wideec.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.wideec.archive.ArchivalPlan;
import org.wideec.archive.ArchivalPlanner;
import org.wideec.archive.ArchiveGrouping;
import org.wideec.archive.ArchiveSummary;
import org.wideec.archive.PlacementKind;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.ArchivalSource;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.ArchiveOrchestrator;
import org.wideec.archive.hdfs.Archiver;
import org.wideec.archive.hdfs.ChainEncoder;
import org.wideec.archive.hdfs.StripeEncoder;
import org.wideec.archive.hdfs.ManifestStore;
import org.wideec.coder.CodeNames;
import org.wideec.code.LinearCode;

/**
 * {@code wide-ec archive PATH --code SPEC}: archives a replicated file or directory into wide stripes (DESIGN.md
 * §3.2): manifest, parity written by the chosen encoder ({@code classic}: this process pulls the data and encodes;
 * {@code chain}: the DataNodes holding the data forward partial sums, ECWide §4.2), verified, committed, pointers set;
 * then trimmed, each
 * data block down to its planned replica (kept by the NameNode plugin's trimmer; {@code --no-trim} stops at
 * COMMITTED). Before lowering, the plan's moves are executed (a replica copied onto each planned node that holds
 * none, the source's copy dropped by the NameNode through the delete hint); {@code --encoder chain} makes them before
 * it encodes instead, so the chain runs on the kept replicas, as the dry run costs it (ECWide §4.2), except for a
 * stripe whose chain costs less read in its core rack (EAR), whose moves wait for the trim. {@code --grouping} chooses
 * how blocks form stripes: file order, around core racks, or the cheaper of the two (auto). A block left off plan (it could not be
 * moved) keeps its stripe COMMITTED and makes the exit status 1.
 * Rerunning resumes a crashed run from its manifest, trimming included. {@code --dry-run} prints the plan, read from the live cluster,
 * with its cost (kept replicas, moves, parity targets, cross-rack bytes of classic and chain encoding, redundancy
 * after) and changes nothing. The chain encoder needs block tokens on (its authority on the DataNodes' slice ports).
 * A non-systematic code seals the file instead ({@link SealedArchiveCommand}); its {@code --dry-run} prints the
 * sealed plan (pieces, RapidRAID chain, copies, codeword nodes, cost). {@code --paths-from FILE} reads the paths
 * from a file ({@link PathList}): one job with {@code --mr}, else each path in turn here.
 */
final class ArchiveCommand {
  static final String USAGE = String.join("\n",
      "  archive PATH --code SPEC [--placement cl|unilrc|flat] [--encoder classic|chain|rapidraid] [--no-trim] [--json]",
      "                                                        archive a replicated file or directory into wide stripes",
      "                                                        (manifest, parity, verified, committed, pointers), then trim",
      "                                                        each data block to its planned replica (needs the wide-ec",
      "                                                        NameNode plugin and replica placement policy); rerun to",
      "                                                        resume; --no-trim keeps every replica",
      "        [--grouping files|racks|auto]                   stripes of blocks in file order, around core racks (each",
      "                                                        stripe's blocks with a replica in one rack, EAR), or the",
      "                                                        one the plan costs less across racks (default auto, or",
      "                                                        wide-ec.archive.grouping); --dry-run says which and why",
      "  archive PATH --code SPEC [--placement ..] [--encoder classic|chain] --dry-run [--stripe ID] [--json]",
      "                                                        the plan only: kept replicas, moves, parity targets, encoding",
      "                                                        cost, redundancy after; changes nothing",
      "  archive PATH... --code SPEC --mr [--maps N] [--placement ..] [--encoder classic|chain] [--no-trim] [--json]",
      "                                                        the same as a MapReduce job: one archive unit per PATH, map",
      "                                                        tasks near where each encoding starts; job id, tracking URL",
      "                                                        and progress on stderr, a summary from its counters; rerun",
      "                                                        to resume; with --dry-run the listing and map tasks only",
      "  archive --paths-from FILE --code SPEC [--mr] [..]      the paths from FILE (one absolute path a line; blank lines",
      "                                                        and lines starting with # ignored; FILE on the default file",
      "                                                        system, or file:///... for a local one): with --mr one job,",
      "                                                        without it each path in turn in this process (a failed path",
      "                                                        is reported, the others go on; --json: one line a path)",
      "  archive FILE --code rapidraid:n=N,k=K [--encoder classic|rapidraid] [--dry-run] [--json]",
      "                                                        seal FILE with a non-systematic code (read it through",
      "                                                        WideEcFileSystem); --dry-run prints per stripe the pieces,",
      "                                                        the RapidRAID chain, the copies it needs, the codeword nodes",
      "                                                        and racks, the encoding's cross-rack bytes and redundancy",
      FillCommand.USAGE);

  private Configuration conf;
  private final PrintStream out;
  private final PrintStream err;
  /** How new plans group blocks into stripes. */
  private ArchiveGrouping grouping;

  ArchiveCommand(Configuration conf, PrintStream out, PrintStream err) {
    this.conf = conf;
    this.out = out;
    this.err = err;
  }

  int run(String[] args) throws IOException {
    if (java.util.Arrays.asList(args).contains("--fill")) {
      return new FillCommand(conf, out).run(args);
    }
    Options o = new Options(args, Set.of("code", "k", "m", "placement", "encoder", "stripe", "maps", "paths-from",
        "grouping"), Set.of("dry-run", "json", "no-trim", "mr"));
    grouping = grouping(o);
    boolean listed = o.has("paths-from");
    String encoder = checkedEncoder(o, listed);
    CodeNames.Named named = o.code();
    boolean systematic = org.wideec.code.Codes.fromSpec(named.spec()).isSystematic();
    checkCodeFits(o, named, systematic, encoder);
    PlacementKind placement = !systematic ? null : o.has("placement") ? PlacementKind.byLabel(o.get("placement", null))
        : defaultPlacement(named);
    long maps = o.getLong("maps", conf.getInt(org.wideec.archive.mr.ArchiveJob.MAPS_KEY,
        org.wideec.archive.mr.ArchiveJob.MAPS_DEFAULT));
    if (o.has("mr") && (maps < 1 || maps > 100_000)) {
      throw new Options.UsageException("--maps must be 1..100000, got " + maps);
    }
    List<Path> paths = listed ? PathList.read(conf, o.get("paths-from", null))
        : o.positional().stream().map(Path::new).toList();
    if (o.has("mr")) {
      try {
        return new ArchiveJobCommand(conf, out, err).run(paths, named.spec(), placement, encoder, !o.has("no-trim"),
            o.has("json"), o.has("dry-run"), (int) maps);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException("interrupted while the archival job ran");
      }
    }
    if (!listed) {
      return one(o, paths.get(0), named, systematic, placement, encoder);
    }
    return eachListed(o, paths, named, systematic, placement, encoder);
  }

  /**
   * {@code --grouping}, else {@code wide-ec.archive.grouping}; set in this command's configuration too, so an
   * archival job's tasks plan the same way.
   */
  private ArchiveGrouping grouping(Options o) {
    String label = o.get("grouping", conf.getTrimmed(ArchiveGrouping.KEY, ArchiveGrouping.DEFAULT));
    ArchiveGrouping g;
    try {
      g = ArchiveGrouping.byLabel(label);
    } catch (org.wideec.archive.ArchivalPlanException e) {
      throw new Options.UsageException(e.getMessage());
    }
    conf = new Configuration(conf);
    conf.set(ArchiveGrouping.KEY, g.label());
    return g;
  }

  /** The paths and modes the command line gives fit together; returns the encoder it names. */
  private static String checkedEncoder(Options o, boolean listed) {
    if (listed && !o.positional().isEmpty()) {
      throw new Options.UsageException("--paths-from lists the paths: give no PATH with it (got "
          + o.positional().get(0) + ")");
    }
    if (!listed && (o.has("mr") ? o.positional().isEmpty() : o.positional().size() != 1)) {
      throw new Options.UsageException(o.has("mr") ? "archive --mr needs at least one PATH (or --paths-from FILE)"
          : "archive needs exactly one PATH (several go with --mr or --paths-from FILE)");
    }
    String encoder = o.get("encoder", "classic");
    if (!encoder.equals("classic") && !encoder.equals("chain") && !encoder.equals("rapidraid")) {
      throw new Options.UsageException("--encoder must be classic, chain or rapidraid, got '" + encoder + "'");
    }
    if (!o.has("mr") && o.has("maps")) {
      throw new Options.UsageException("--maps sets the map tasks of the archival job: it goes with --mr");
    }
    if ((o.has("mr") || listed) && o.has("stripe")) {
      throw new Options.UsageException("--stripe shows one stripe of a single path's --dry-run plan, not with "
          + (o.has("mr") ? "--mr" : "--paths-from"));
    }
    return encoder;
  }

  /**
   * A systematic code archives (not with RapidRAID's non-systematic pipeline); a non-systematic one seals the file,
   * which takes none of the archive's placement, trim, stripe or job options.
   */
  private static void checkCodeFits(Options o, CodeNames.Named named, boolean systematic, String encoder) {
    if (systematic && encoder.equals("rapidraid")) {
      throw new Options.UsageException("--encoder rapidraid runs RapidRAID's pipeline, which computes non-systematic "
          + "codewords; " + named.spec() + " is systematic: use --encoder classic or chain");
    }
    if (!systematic && (o.has("placement") || o.has("no-trim") || o.has("stripe") || o.has("mr"))) {
      throw new Options.UsageException(named.spec() + " is non-systematic: it seals the file (no --placement,"
          + " --no-trim, --stripe or --mr)");
    }
    if (!systematic) {
      SealedArchiveCommand.checkEncoder(named.spec(), encoder); // once, not as a failure of every listed path
    }
  }

  /** A long list in this process: each path in turn; one that fails is reported and the others still run. */
  private int eachListed(Options o, List<Path> paths, CodeNames.Named named, boolean systematic,
      PlacementKind placement, String encoder) {
    int worst = 0;
    List<String> failed = new ArrayList<>();
    for (int i = 0; i < paths.size(); i++) {
      Path path = paths.get(i);
      err.printf("archive %s (%d of %d)%n", path, i + 1, paths.size());
      try {
        worst = Math.max(worst, one(o, path, named, systematic, placement, encoder));
      } catch (Options.UsageException e) {
        throw e; // the command line is wrong for every path: one usage error
      } catch (IOException | IllegalArgumentException | IllegalStateException e) {
        err.println("wide-ec archive: " + path + ": " + CliErrors.describe(e));
        failed.add(path.toString());
      }
    }
    if (!failed.isEmpty()) {
      err.printf("wide-ec archive: %d of %d paths failed (rerun to resume): %s%n", failed.size(), paths.size(),
          String.join(", ", failed));
      return WideEcTool.EXIT_FAILED;
    }
    return worst;
  }

  /** One path: sealed or archived, or its plan with --dry-run. */
  private int one(Options o, Path path, CodeNames.Named named, boolean systematic, PlacementKind placement,
      String encoder) throws IOException {
    if (!systematic) {
      return o.has("dry-run") ? SealedArchiveCommand.dryRun(conf, path, named.spec(), encoder, o.has("json"), out)
          : SealedArchiveCommand.run(conf, path, named.spec(), encoder, o.has("json"), out);
    }
    if (!o.has("dry-run")) {
      if (o.has("stripe")) {
        throw new Options.UsageException("--stripe shows one stripe of a --dry-run plan");
      }
      return execute(path, named.spec(), placement, encoder, o.has("json"), !o.has("no-trim"));
    }
    // The chain is costed in the shape and reading the encoder would run (wide-ec.archive.chain.shape, .reads).
    ArchivalPlan plan = ArchivalPlanner.plan(
        new ArchivalSource(hdfs(conf, path, "archive"), grouping).request(path, named.spec(), placement))
        .withChainShape(ChainEncoder.shapeOf(conf), ChainEncoder.readsOf(conf));
    DryRunOutput.print(plan, encoder, o.has("json"), Map.of(), List.of(), out);
    if (o.has("json")) {
      return 0;
    }
    if (o.has("stripe")) {
      long id = o.getLong("stripe", 0);
      if (plan.stripes().stream().noneMatch(s -> s.stripeId() == id)) {
        throw new IllegalArgumentException("the plan has no stripe " + id + " (stripes 0.." + (plan.stripes().size() - 1)
            + ")");
      }
      out.print(plan.describeUnits(id));
    }
    return 0;
  }

  private int execute(Path path, String spec, PlacementKind placement, String encoderName, boolean json, boolean trim)
      throws IOException {
    DistributedFileSystem dfs = hdfs(conf, path, "archive");
    ManifestStore store = new ManifestStore(dfs, ArchiveLayout.from(conf));
    ProgressReport progress = new ProgressReport(err, "archive " + path);
    ProgressReport trimming = new ProgressReport(err, "trim " + path + " (blocks)");
    StripeEncoder encoder = ArchiveOrchestrator.encoder(dfs, encoderName);
    ArchiveOrchestrator.Outcome outcome;
    try {
      outcome = new ArchiveOrchestrator(dfs, store, encoder, Archiver.Hook.NONE, grouping).run(path, spec, placement, trim,
          (stripe, done, total) -> progress.at(done, total), (settled, total) -> {
            progress.finish(); // the archive's line ends before the trim's begins
            trimming.at(settled, total);
          });
    } finally {
      progress.finish();
      trimming.finish();
      if (encoder instanceof java.io.Closeable c) {
        c.close();
      }
    }
    Archiver.Result r = outcome.archived();
    Archiver.TrimResult t = outcome.trimmed();
    ArchiveSummary sum = ArchiveSummary.of(t != null ? t.manifest() : r.manifest());
    String manifest = store.layout().manifest(store.inodeOf(path)).toString();
    if (json) {
      printJson(path, spec, encoder.name(), manifest, r, t, sum);
    } else {
      printText(path, spec, encoder.name(), manifest, r, t, sum);
    }
    return r.stale().isEmpty() && (t == null || t.clean()) ? 0 : WideEcTool.EXIT_FOUND_PROBLEM;
  }

  /** The run's outcome as one JSON object; {@code t} is null with --no-trim. */
  private void printJson(Path path, String spec, String encoder, String manifest, Archiver.Result r,
      Archiver.TrimResult t, ArchiveSummary sum) {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("path", path.toUri().getPath());
    j.put("code", spec);
    j.put("encoder", encoder);
    j.put("manifest", manifest);
    j.put("resumed", r.resumed());
    j.put("stripes", sum.stripes());
    j.put("stripesByState", sum.toJson());
    j.put("rolledBack", r.rolledBack());
    j.put("bytesEncoded", r.dataBytesRead());
    j.put("parityBytesWritten", r.parityBytesWritten());
    j.put("logicalBytes", sum.logicalBytes());
    j.put("parityBytes", sum.parityBytes());
    j.put("redundancyAfter", sum.redundancyAfterTrim());
    j.put("trimmed", sum.count(StripeState.TRIMMED));
    List<String> stale = new ArrayList<>(r.stale());
    if (t != null) {
      stale.addAll(t.stale());
    }
    j.put("stale", stale);
    j.put("parityOffPlan", r.offPlan());
    List<String> moved = new ArrayList<>(r.moved());
    if (t != null) {
      moved.addAll(t.moved());
    }
    j.put("dataMoved", moved);
    j.put("dataEncodedOffPlan", r.encodedOffPlan());
    j.put("dataOffPlan", t == null ? List.of() : t.offPlan());
    j.put("notTrimmed", t == null ? List.of() : t.notTrimmed());
    out.println(Json.write(j));
  }

  /** The run's outcome for an operator: the archive's line, then what was stale, moved or off plan, then the trim. */
  private void printText(Path path, String spec, String encoder, String manifest, Archiver.Result r,
      Archiver.TrimResult t, ArchiveSummary sum) {
    int committed = sum.count(StripeState.COMMITTED) + sum.count(StripeState.TRIMMED);
    out.printf("archive %s with %s (%s encoder)%s: %d of %d stripes committed%s; read %,d data bytes, wrote %,d"
            + " parity bytes; redundancy after trimming %.4f%n", path.toUri().getPath(), spec, encoder,
        r.resumed() ? ", resumed" : "", committed, sum.stripes(),
        r.stale().isEmpty() ? "" : ", " + r.stale().size() + " stale", r.dataBytesRead(), r.parityBytesWritten(),
        sum.redundancyAfterTrim());
    out.println("manifest: " + manifest);
    r.stale().forEach(s -> out.println(s + ": its data changed after planning, its parity was deleted"));
    r.offPlan().forEach(s -> out.println("off plan: " + s));
    r.moved().forEach(s -> out.println("moved onto plan before encoding: " + s));
    r.encodedOffPlan().forEach(s -> out.println("encoded off plan: " + s));
    if (t == null) {
      out.println("stripes committed; data keeps its replication (--no-trim)");
    } else {
      out.printf("%d of %d stripes trimmed to their planned replicas%n", sum.count(StripeState.TRIMMED),
          sum.stripes());
      t.stale().forEach(s -> out.println(s + "; its parity was deleted"));
      t.moved().forEach(s -> out.println("moved onto plan: " + s));
      t.offPlan().forEach(s -> out.println("data off plan: " + s));
      t.notTrimmed().forEach(s -> out.println("not trimmed: " + s));
    }
  }

  /** One local group per rack for UniLRC, combined locality for other codes with local groups, flat for MDS codes. */
  static PlacementKind defaultPlacement(CodeNames.Named named) {
    LinearCode code = named.code();
    if (named.spec().startsWith("unilrc:")) {
      return PlacementKind.UNILRC;
    }
    return code.localGroups().isEmpty() ? PlacementKind.FLAT : PlacementKind.CL;
  }

  static DistributedFileSystem hdfs(Configuration conf, Path path, String command) throws IOException {
    String scheme = path.toUri().getScheme();
    FileSystem fs = path.getFileSystem(conf);
    if ((scheme != null && !scheme.equals("hdfs")) || !(fs instanceof DistributedFileSystem dfs)) {
      throw new IllegalArgumentException(command + " needs an HDFS path, " + path + " is on " + fs.getUri());
    }
    return dfs;
  }
}
