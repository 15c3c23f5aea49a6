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
import org.apache.hadoop.mapreduce.Counter;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.Job;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.PlacementKind;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.ArchiveOrchestrator;
import org.wideec.archive.hdfs.ChainEncoder;
import org.wideec.archive.hdfs.ManifestStore;
import org.wideec.archive.mr.ArchiveCounter;
import org.wideec.archive.mr.ArchiveItem;
import org.wideec.archive.mr.ArchiveJob;
import org.wideec.archive.mr.ArchiveListing;
import org.wideec.time.Backoff;

/**
 * {@code wide-ec archive PATH... --code SPEC --mr [--maps N]}: the archival MapReduce job. Lists the paths (one archive
 * unit each), submits the job, shows its id, tracking URL and progress on stderr while it runs, then a summary from
 * its counters; the exit status is 0 only when every path's manifest has every stripe TRIMMED (COMMITTED with
 * {@code --no-trim}), else 1 with the paths that did not get there. With {@code --dry-run} it prints the listing and
 * the map tasks it would run, and submits nothing. A rerun resumes: locks left by tasks of an ended job are released
 * first.
 */
final class ArchiveJobCommand {
  private final Configuration conf;
  private final PrintStream out;
  private final PrintStream err;

  ArchiveJobCommand(Configuration conf, PrintStream out, PrintStream err) {
    this.conf = conf;
    this.out = out;
    this.err = err;
  }

  int run(List<Path> paths, String spec, PlacementKind placement, String encoder, boolean trim, boolean json,
      boolean dryRun, int maps) throws IOException, InterruptedException {
    DistributedFileSystem dfs = ArchiveCommand.hdfs(conf, paths.get(0), "archive --mr");
    for (Path p : paths) {
      DistributedFileSystem other = ArchiveCommand.hdfs(conf, p, "archive --mr");
      if (!other.getUri().equals(dfs.getUri())) {
        throw new IllegalArgumentException("archive --mr runs on one HDFS: " + p + " is on " + other.getUri()
            + ", " + paths.get(0) + " on " + dfs.getUri());
      }
    }
    ManifestStore store = new ManifestStore(dfs, ArchiveLayout.from(conf));
    List<ArchiveItem> items = ArchiveListing.of(dfs, store, paths, spec, placement, encoder,
        ChainEncoder.shapeOf(conf), trim, org.wideec.archive.ArchiveGrouping.byLabel(
            conf.getTrimmed(org.wideec.archive.ArchiveGrouping.KEY, org.wideec.archive.ArchiveGrouping.DEFAULT)));
    if (dryRun) {
      return dryRun(items, maps, encoder, json);
    }
    ArchiveJob.releaseLocksOfEndedJobs(conf, store, paths).forEach(err::println);
    Path jobDir = ArchiveJob.newJobDir(store.layout());
    Job job = ArchiveJob.create(conf, dfs, jobDir, items, spec, placement, encoder, trim, maps);
    try {
      job.submit();
    } catch (ClassNotFoundException e) {
      throw new IOException("cannot submit the archival job: class " + e.getMessage() + " is missing", e);
    }
    err.println("submitted " + job.getJobID() + " (" + items.size() + " path(s), " + maps + " map task(s) at most),"
        + " tracking " + job.getTrackingURL() + "; job directory " + jobDir);
    long total = items.stream().mapToLong(ArchiveItem::bytes).sum();
    ProgressReport progress = new ProgressReport(err, "archive job " + job.getJobID() + " (data bytes)");
    try {
      // A look per mapreduce.client.progressmonitor.pollinterval (1 s by default) while the job runs, as the job
      // client's own progress monitor does.
      int every = Job.getProgressPollInterval(conf);
      Backoff poll = Backoff.doubling(every, every, Long.MAX_VALUE);
      while (!job.isComplete()) {
        poll.pause();
        Counters c = job.getCounters();
        progress.at(c == null ? 0 : c.findCounter(ArchiveCounter.DATA_BYTES_DONE).getValue(), total);
      }
    } finally {
      progress.finish();
    }
    Counters counters = job.getCounters();
    Map<String, String> results = ArchiveJob.results(dfs, jobDir);
    // The verdict is the manifests', not the job's: a path is done when its every stripe is in its final state.
    Map<String, String> failed = new LinkedHashMap<>();
    for (ArchiveItem i : items) {
      String why = notDone(store, new Path(i.path()), trim);
      if (why != null) {
        String said = results.get(i.path());
        failed.put(i.path(), why + (said != null && said.startsWith("FAILED") ? " (" + said + ")" : ""));
      }
    }
    boolean succeeded = job.isSuccessful();
    if (succeeded) {
      dfs.delete(jobDir, true);
    }
    print(job, counters, succeeded, items, results, failed, json, jobDir);
    return failed.isEmpty() && succeeded ? 0 : WideEcTool.EXIT_FOUND_PROBLEM;
  }

  private static String notDone(ManifestStore store, Path path, boolean trim) throws IOException {
    StripeManifest m = store.find(store.inodeOf(path));
    if (m == null) {
      return "not archived (no manifest)";
    }
    for (ArchivedStripe s : m.stripes()) {
      if (!ArchiveOrchestrator.finalState(s.state(), trim)) {
        return "stripe " + s.stripeId() + " is " + s.state();
      }
    }
    return null;
  }

  private void print(Job job, Counters counters, boolean succeeded, List<ArchiveItem> items, Map<String, String> results,
      Map<String, String> failed, boolean json, Path jobDir) throws IOException, InterruptedException {
    Map<String, Long> counts = new LinkedHashMap<>();
    for (ArchiveCounter c : ArchiveCounter.values()) {
      counts.put(c.name(), counters == null ? 0 : counters.findCounter(c).getValue());
    }
    Map<String, Long> byState = new LinkedHashMap<>();
    if (counters != null) {
      for (Counter c : counters.getGroup(ArchiveCounter.STRIPES_GROUP)) {
        byState.put(c.getName(), c.getValue());
      }
    }
    String state = job.getJobState().toString();
    if (json) {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("job", job.getJobID().toString());
      j.put("trackingUrl", job.getTrackingURL());
      j.put("state", state);
      j.put("paths", items.size());
      j.put("counters", counts);
      j.put("stripesByState", byState);
      Map<String, Object> each = new LinkedHashMap<>();
      items.forEach(i -> each.put(i.path(), results.getOrDefault(i.path(), "no result (its task did not finish)")));
      j.put("results", each);
      j.put("failed", new ArrayList<>(failed.keySet()));
      out.println(Json.write(j));
      return;
    }
    out.printf("archive job %s %s: %d path(s): %d done, %d skipped (already archived), %d failed%n", job.getJobID(),
        state, items.size(), counts.get("PATHS_DONE"), counts.get("PATHS_SKIPPED"), failed.size());
    out.printf("stripes: %s; encoded %d (rolled back %d), %,d data bytes read, %,d parity bytes written, %,d cross-rack"
            + " bytes planned, %d blocks moved%n", byState.isEmpty() ? "none counted" : byState, counts.get("STRIPES_ENCODED"),
        counts.get("STRIPES_ROLLED_BACK"), counts.get("BYTES_ENCODED"), counts.get("PARITY_BYTES_WRITTEN"),
        counts.get("CROSS_RACK_BYTES_PLANNED"), counts.get("BLOCKS_MOVED"));
    failed.forEach((p, why) -> out.println("failed: " + p + ": " + why));
    if (!failed.isEmpty() || !succeeded) {
      out.println("rerun the same command to resume; the job's listing and output are in " + jobDir);
    }
  }

  private int dryRun(List<ArchiveItem> items, int maps, String encoder, boolean json) {
    List<List<ArchiveItem>> groups = org.wideec.archive.mr.ArchiveInputFormat.groups(items, maps);
    if (json) {
      List<Object> listing = new ArrayList<>();
      for (ArchiveItem i : items) {
        Map<String, Object> j = new LinkedHashMap<>();
        j.put("path", i.path());
        j.put("host", i.host());
        j.put("stripes", i.stripes());
        j.put("dataBytes", i.bytes());
        j.put("crossRackBytesEncoding", i.costed() ? i.crossRackBytes() : null);
        j.put("resumes", !i.costed());
        listing.add(j);
      }
      List<Object> tasks = new ArrayList<>();
      for (List<ArchiveItem> g : groups) {
        tasks.add(Map.of("host", g.get(0).host(), "paths", g.stream().map(ArchiveItem::path).toList()));
      }
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("encoder", encoder);
      j.put("listing", listing);
      j.put("maps", tasks);
      out.println(Json.write(j));
      return 0;
    }
    out.printf("listing: %d path(s), %s encoder%n", items.size(), encoder);
    for (ArchiveItem i : items) {
      out.printf("  %s: %d stripe(s), %,d data bytes, encoding starts on %s, %s%n", i.path(), i.stripes(), i.bytes(),
          i.host().isEmpty() ? "any host" : i.host(), i.costed() ? String.format("%,d cross-rack bytes planned",
              i.crossRackBytes()) : "resumes its manifest");
    }
    out.printf("map tasks: %d%n", groups.size());
    for (int t = 0; t < groups.size(); t++) {
      List<ArchiveItem> g = groups.get(t);
      out.printf("  map %d on %s: %s%n", t, g.get(0).host().isEmpty() ? "any host" : g.get(0).host(),
          String.join(", ", g.stream().map(ArchiveItem::path).toList()));
    }
    out.println("nothing was submitted or changed (--dry-run)");
    return 0;
  }
}
