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
import org.wideec.archive.PlacementKind;
import org.wideec.archive.hdfs.ArchivalSource;
import org.wideec.coder.CodeNames;
import org.wideec.code.LinearCode;

/**
 * {@code wide-ec archive PATH --code SPEC --dry-run}: the archival plan for a replicated file or directory (DESIGN.md
 * §3.2), read from the live cluster and printed with its cost: which replica of each block is kept, which blocks
 * move, where each parity goes, cross-rack bytes of classic and chain encoding, and the redundancy after. Nothing
 * is changed. Without {@code --dry-run} the command refuses: this build plans archival but does not yet execute it.
 */
final class ArchiveCommand {
  static final String USAGE = String.join("\n",
      "  archive PATH --code SPEC [--placement cl|unilrc|flat] [--encoder classic|chain] --dry-run [--stripe ID] [--json]",
      "                                                        the archival plan of a replicated file or directory: kept",
      "                                                        replicas, moves, parity targets, encoding cost, redundancy after");

  private final Configuration conf;
  private final PrintStream out;

  ArchiveCommand(Configuration conf, PrintStream out) {
    this.conf = conf;
    this.out = out;
  }

  int run(String[] args) throws IOException {
    Options o = new Options(args, Set.of("code", "k", "m", "placement", "encoder", "stripe"), Set.of("dry-run", "json"));
    if (o.positional().size() != 1) {
      throw new Options.UsageException("archive needs exactly one PATH");
    }
    String encoder = o.get("encoder", "chain");
    if (!encoder.equals("classic") && !encoder.equals("chain")) {
      throw new Options.UsageException("--encoder must be classic or chain, got '" + encoder + "'");
    }
    CodeNames.Named named = o.code();
    PlacementKind placement = o.has("placement") ? PlacementKind.byLabel(o.get("placement", null))
        : defaultPlacement(named);
    if (!o.has("dry-run")) {
      throw new UnsupportedOperationException("archive " + o.positional().get(0) + ": this build plans archival but does"
          + " not execute it yet; --dry-run prints the plan and changes nothing");
    }
    Path path = new Path(o.positional().get(0));
    ArchivalPlan plan = ArchivalPlanner.plan(new ArchivalSource(hdfs(path)).request(path, named.spec(), placement));
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

  /** One local group per rack for UniLRC, combined locality for other codes with local groups, flat for MDS codes. */
  static PlacementKind defaultPlacement(CodeNames.Named named) {
    LinearCode code = named.code();
    if (named.spec().startsWith("unilrc:")) {
      return PlacementKind.UNILRC;
    }
    return code.localGroups().isEmpty() ? PlacementKind.FLAT : PlacementKind.CL;
  }

  private DistributedFileSystem hdfs(Path path) throws IOException {
    String scheme = path.toUri().getScheme();
    FileSystem fs = path.getFileSystem(conf);
    if ((scheme != null && !scheme.equals("hdfs")) || !(fs instanceof DistributedFileSystem dfs)) {
      throw new IllegalArgumentException("archive needs an HDFS path, " + path + " is on " + fs.getUri());
    }
    return dfs;
  }
}
