package org.wideec.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.wideec.archive.ArchiveSummary;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.SealedPlan;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.encode.RapidRaidPlan;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.Archiver;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.ManifestStore;
import org.wideec.archive.hdfs.PipelineCodewordEncoder;
import org.wideec.archive.hdfs.RapidRaidPipelines;
import org.wideec.archive.hdfs.SealedArchiver;
import org.wideec.archive.hdfs.SealedFiles;

/**
 * {@code wide-ec archive FILE --code rapidraid:n=N,k=K}: a non-systematic code seals the file with
 * the {@link SealedArchiver}, encoded by this process ({@code --encoder classic}) or by RapidRAID's pipeline on the
 * DataNodes ({@code --encoder rapidraid}, {@link PipelineCodewordEncoder}).
 */
final class SealedArchiveCommand {
  private SealedArchiveCommand() {}

  static int run(Configuration conf, Path path, String spec, String encoder, boolean json, PrintStream out)
      throws IOException {
    checkEncoder(spec, encoder);
    DistributedFileSystem dfs = ArchiveCommand.hdfs(conf, path, "archive");
    ManifestStore store = new ManifestStore(dfs, ArchiveLayout.from(conf));
    RapidRaidPipelines pipeline = encoder.equals("rapidraid") ? new RapidRaidPipelines(dfs)
        : null;
    SealedArchiver.Result r;
    List<String> moves;
    List<RapidRaidPipelines.Copy> copies;
    try {
      r = new SealedArchiver(dfs, store, pipeline != null ? pipeline : SealedArchiver.classic(dfs), Archiver.Hook.NONE,
          System.nanoTime()).archive(path, spec);
      moves = pipeline != null ? pipeline.moves() : List.of();
      copies = pipeline != null ? pipeline.copies() : List.of();
    } finally {
      if (pipeline != null) {
        pipeline.close();
      }
    }
    ArchiveSummary sum = ArchiveSummary.of(r.manifest());
    if (json) {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("path", path.toUri().getPath());
      j.put("code", spec);
      j.put("encoder", encoder);
      j.put("sealed", r.sealed());
      j.put("length", SealedFiles.length(r.manifest()));
      j.put("stripes", r.manifest().stripes().size());
      j.put("trimmed", sum.count(StripeState.TRIMMED));
      j.put("bytesRead", r.bytesRead());
      j.put("codewordBytesWritten", r.bytesWritten());
      j.put("offPlan", r.offPlan());
      j.put("moves", moves);
      List<Object> made = new ArrayList<>();
      for (RapidRaidPipelines.Copy c : copies) {
        made.add(copyJson(c));
      }
      j.put("copies", made); // as the dry run's moves, to compare
      j.put("crossRackBytesMoved", copies.stream().filter(RapidRaidPipelines.Copy::crossRack)
          .mapToLong(RapidRaidPipelines.Copy::bytes).sum());
      j.put("stale", r.stale());
      out.println(Json.write(j));
    } else {
      out.printf("archive %s with %s (%s encoder): %s; %d stripes; read %,d bytes, wrote %,d codeword bytes%n",
          path.toUri().getPath(), spec, encoder, r.sealed() ? "sealed (read it through WideEcFileSystem; a stock read fails)"
              : "NOT sealed", r.manifest().stripes().size(), r.bytesRead(), r.bytesWritten());
      moves.forEach(l -> out.println("  moved onto the chain: " + l));
      r.offPlan().forEach(l -> out.println("  off plan: " + l));
      r.stale().forEach(l -> out.println("  stale: " + l));
    }
    return r.sealed() ? 0 : 1;
  }

  /** One copy of a source piece the pipeline made ahead of encoding: from where to where, its bytes, across racks. */
  private static Map<String, Object> copyJson(RapidRaidPipelines.Copy c) {
    Map<String, Object> cj = new LinkedHashMap<>();
    cj.put("stripe", c.stripe());
    cj.put("piece", c.piece());
    cj.put("from", c.from().node());
    cj.put("fromRack", c.from().rack());
    cj.put("to", c.to().node());
    cj.put("toRack", c.to().rack());
    cj.put("bytes", c.bytes());
    cj.put("crossRack", c.crossRack());
    return cj;
  }

  /**
   * {@code --dry-run}: the plan a run would follow, from the live cluster (the archiver's checks and stripes; for
   * {@code --encoder rapidraid} each stripe's chain, copies and streams as the encoder builds them), changing nothing.
   */
  static int dryRun(Configuration conf, Path path, String spec, String encoder, boolean json, PrintStream out)
      throws IOException {
    checkEncoder(spec, encoder);
    DistributedFileSystem dfs = ArchiveCommand.hdfs(conf, path, "archive");
    ManifestStore store = new ManifestStore(dfs, ArchiveLayout.from(conf));
    StripeManifest m = new SealedArchiver(dfs, store, SealedArchiver.classic(dfs), Archiver.Hook.NONE, 0)
        .plan(path, spec);
    String policy = new SealedFiles(dfs, store.layout()).policyCheck(); // the run's ensurePolicy, read-only
    List<RapidRaidPlan> pipelines = new ArrayList<>();
    if (encoder.equals("rapidraid")) {
      try (RapidRaidPipelines f = new RapidRaidPipelines(dfs)) {
        for (ArchivedStripe s : m.stripes()) {
          pipelines.add(f.plan(path, s));
        }
      }
    }
    SealedPlan plan = new SealedPlan(path.toUri().getPath(), m.stripes().get(0).codeSpec(), encoder,
        SealedFiles.length(m), m, pipelines);
    DryRunOutput.print(plan, encoder, json, Map.of("policy", policy == null ? "enabled" : policy),
        policy == null ? List.of() : List.of("policy: " + policy), out);
    return 0;
  }

  static void checkEncoder(String spec, String encoder) {
    if (!encoder.equals("classic") && !encoder.equals("rapidraid")) {
      throw new Options.UsageException(spec + " is non-systematic: archive it with --encoder classic or rapidraid (got '"
          + encoder + "'; the chain encoder computes systematic parity)");
    }
  }
}
