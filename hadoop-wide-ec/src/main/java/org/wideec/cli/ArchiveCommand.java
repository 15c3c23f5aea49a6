package org.wideec.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.wideec.archive.ArchivalPlan;
import org.wideec.archive.ArchivalPlanner;
import org.wideec.archive.ArchiveSummary;
import org.wideec.archive.PlacementKind;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.ArchivalSource;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.Archiver;
import org.wideec.archive.hdfs.ClientClassicEncoder;
import org.wideec.archive.hdfs.ManifestStore;
import org.wideec.coder.CodeNames;
import org.wideec.code.LinearCode;

/**
 * {@code wide-ec archive PATH --code SPEC}: archives a replicated file or directory into wide stripes (DESIGN.md
 * §3.2) through COMMITTED: manifest, parity written by the classic encoder, verified, pointers set. Data keeps its
 * replication: trimming to the planned replica (and the plan's moves, which only matter for it) is the next slice.
 * Rerunning resumes a crashed run from its manifest. {@code --dry-run} prints the plan, read from the live cluster,
 * with its cost (kept replicas, moves, parity targets, cross-rack bytes of classic and chain encoding, redundancy
 * after) and changes nothing. The chain encoder runs on DataNodes and is not wired in yet: it is refused by name.
 */
final class ArchiveCommand {
  static final String USAGE = String.join("\n",
      "  archive PATH --code SPEC [--placement cl|unilrc|flat] [--encoder classic] [--json]",
      "                                                        archive a replicated file or directory into wide stripes up to",
      "                                                        committed (manifest, parity, verified, pointers); rerun to",
      "                                                        resume; data keeps its replication until trimming lands",
      "  archive PATH --code SPEC [--placement ..] [--encoder classic|chain] --dry-run [--stripe ID] [--json]",
      "                                                        the plan only: kept replicas, moves, parity targets, encoding",
      "                                                        cost, redundancy after; changes nothing");

  private final Configuration conf;
  private final PrintStream out;
  private final PrintStream err;

  ArchiveCommand(Configuration conf, PrintStream out, PrintStream err) {
    this.conf = conf;
    this.out = out;
    this.err = err;
  }

  int run(String[] args) throws IOException {
    Options o = new Options(args, Set.of("code", "k", "m", "placement", "encoder", "stripe"), Set.of("dry-run", "json"));
    if (o.positional().size() != 1) {
      throw new Options.UsageException("archive needs exactly one PATH");
    }
    String encoder = o.get("encoder", "classic");
    if (!encoder.equals("classic") && !encoder.equals("chain")) {
      throw new Options.UsageException("--encoder must be classic or chain, got '" + encoder + "'");
    }
    CodeNames.Named named = o.code();
    PlacementKind placement = o.has("placement") ? PlacementKind.byLabel(o.get("placement", null))
        : defaultPlacement(named);
    Path path = new Path(o.positional().get(0));
    if (!o.has("dry-run")) {
      if (o.has("stripe")) {
        throw new Options.UsageException("--stripe shows one stripe of a --dry-run plan");
      }
      if (!encoder.equals("classic")) {
        throw new UnsupportedOperationException("archive " + path + ": the DataNode chain encoder is not wired in yet;"
            + " use --encoder classic (--dry-run shows what chain would cost)");
      }
      return execute(path, named.spec(), placement, o.has("json"));
    }
    ArchivalPlan plan = ArchivalPlanner.plan(
        new ArchivalSource(hdfs(conf, path, "archive")).request(path, named.spec(), placement));
    if (o.has("json")) {
      Map<String, Object> j = new LinkedHashMap<>(plan.toJson());
      j.put("encoder", encoder);
      j.put("crossRackBytesEncoding", encoder.equals("chain") ? plan.crossRackBytesChain() : plan.crossRackBytesClassic());
      out.println(Json.write(j));
      return 0;
    }
    out.print(plan.describe());
    out.printf("encoder: %s (--encoder classic|chain); nothing was changed (--dry-run)%n", encoder);
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

  private int execute(Path path, String spec, PlacementKind placement, boolean json) throws IOException {
    DistributedFileSystem dfs = hdfs(conf, path, "archive");
    ManifestStore store = new ManifestStore(dfs, ArchiveLayout.from(conf));
    ProgressReport progress = new ProgressReport(err, "archive " + path);
    Archiver.Result r;
    try {
      r = new Archiver(dfs, store, ClientClassicEncoder.from(dfs), Archiver.Hook.NONE,
          (stripe, done, total) -> progress.at(done, total)).archive(path, spec, placement);
    } finally {
      progress.finish();
    }
    ArchiveSummary sum = ArchiveSummary.of(r.manifest());
    String manifest = store.layout().manifest(store.inodeOf(path)).toString();
    if (json) {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("path", path.toUri().getPath());
      j.put("code", spec);
      j.put("encoder", "classic");
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
      j.put("trimmed", false);
      j.put("stale", r.stale());
      j.put("parityOffPlan", r.offPlan());
      out.println(Json.write(j));
    } else {
      out.printf("archive %s with %s (classic encoder)%s: %d of %d stripes committed%s; read %,d data bytes, wrote %,d"
              + " parity bytes; redundancy after trimming %.4f%n", path.toUri().getPath(), spec,
          r.resumed() ? ", resumed" : "", sum.count(StripeState.COMMITTED), sum.stripes(),
          r.stale().isEmpty() ? "" : ", " + r.stale().size() + " stale", r.dataBytesRead(), r.parityBytesWritten(),
          sum.redundancyAfterTrim());
      out.println("manifest: " + manifest);
      r.stale().forEach(s -> out.println(s + ": its data changed after planning, its parity was deleted"));
      r.offPlan().forEach(s -> out.println("off plan: " + s));
      out.println("stripes committed; data keeps its replication until trimming lands");
    }
    return r.stale().isEmpty() ? 0 : WideEcTool.EXIT_FOUND_PROBLEM;
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
