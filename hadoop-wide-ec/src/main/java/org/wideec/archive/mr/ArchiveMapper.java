package org.wideec.archive.mr;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.util.ReflectionUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchiveSummary;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.PlacementKind;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.ArchiveOrchestrator;
import org.wideec.archive.hdfs.Archiver;
import org.wideec.archive.hdfs.ManifestStore;
import org.wideec.archive.hdfs.StripeEncoder;

/**
 * One map task of the archival job: runs {@link ArchiveOrchestrator} (the plain {@code archive} command's code) on
 * each archive unit of its split, one after another. It only orchestrates: the bytes move between DataNodes (chain)
 * or through this task (classic), as with the command. Progress is reported per stripe, and the counters of {@link
 * ArchiveCounter} as each unit ends; each unit's result is one output record (its path, then {@code DONE},
 * {@code SKIPPED} or {@code FAILED: why}). A unit that fails is recorded and the task goes on with the next; the
 * command names it and exits 1.
 *
 * <p>A retried attempt resumes its units from their manifests. The one thing a killed attempt leaves in the way is its
 * archive lock (an open file whose lease dies with the process only after HDFS's lease limits); since speculative
 * execution is off, an earlier attempt of this same task is dead once this one runs, so its lock is released here.
 */
public final class ArchiveMapper extends Mapper<Text, ArchiveItem, Text, Text> {
  private static final Logger LOG = LoggerFactory.getLogger(ArchiveMapper.class);
  /** How long a dead predecessor's lock may take to be released (HDFS block recovery of the lock file). */
  static final long RELEASE_WAIT_MS = 120_000;

  private DistributedFileSystem dfs;
  private ManifestStore store;
  private StripeEncoder encoder;
  private ArchiveOrchestrator orchestrator;
  private TaskAttemptID attempt;
  private String codeSpec;
  private PlacementKind placement;
  private boolean trim;

  @Override
  protected void setup(Context context) throws IOException {
    Configuration conf = context.getConfiguration();
    FileSystem fs = FileSystem.get(conf);
    if (!(fs instanceof DistributedFileSystem d)) {
      throw new IOException("the archival job needs HDFS as fs.defaultFS, got " + fs.getUri());
    }
    dfs = d;
    attempt = context.getTaskAttemptID();
    store = new ManifestStore(dfs, ArchiveLayout.from(conf)).holder(ArchiveJob.holder(attempt));
    codeSpec = conf.get(ArchiveJob.CODE_KEY);
    placement = PlacementKind.byLabel(conf.get(ArchiveJob.PLACEMENT_KEY));
    trim = conf.getBoolean(ArchiveJob.TRIM_KEY, true);
    encoder = ArchiveOrchestrator.encoder(dfs, conf.get(ArchiveJob.ENCODER_KEY, "classic"));
    Class<? extends Archiver.Hook> hookClass = conf.getClass(ArchiveJob.HOOK_KEY, null, Archiver.Hook.class);
    Archiver.Hook hook = hookClass == null ? Archiver.Hook.NONE : ReflectionUtils.newInstance(hookClass, conf);
    Archiver.Hook counting = (manifest, stripe) -> {
      if (stripe != null && stripe.state() == StripeState.ENCODING) {
        context.getCounter(ArchiveCounter.CROSS_RACK_BYTES_PLANNED).increment(current.crossRackBytes(stripe.stripeId()));
      }
      hook.recorded(manifest, stripe);
    };
    String grouping = conf.getTrimmed(org.wideec.archive.ArchiveGrouping.KEY, org.wideec.archive.ArchiveGrouping.DEFAULT);
    try {
      orchestrator = new ArchiveOrchestrator(dfs, store, encoder, counting,
          org.wideec.archive.ArchiveGrouping.byLabel(grouping));
    } catch (org.wideec.archive.ArchivalPlanException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  private ArchiveItem current;

  @Override
  protected void map(Text key, ArchiveItem item, Context context) throws IOException, InterruptedException {
    current = item;
    Path path = new Path(item.path());
    context.setStatus("archiving " + item);
    String status;
    try {
      releasePredecessorsLock(path);
      long[] doneBefore = {0};
      ArchiveOrchestrator.Outcome o = orchestrator.run(path, codeSpec, placement, trim,
          (ArchivedStripe s, long done, long total) -> {
            context.getCounter(ArchiveCounter.DATA_BYTES_DONE).increment(done - doneBefore[0]);
            doneBefore[0] = done;
            context.setStatus(item.path() + ": stripe " + s.stripeId() + " " + s.state() + ", " + done + " of " + total
                + " data bytes");
            context.progress();
          }, (settled, total) -> {
            context.setStatus(item.path() + ": trimming, " + settled + " of " + total + " blocks settled");
            context.progress();
          });
      count(context, o);
      status = o.alreadyDone() ? "SKIPPED already archived" : o.complete() ? "DONE" : "FAILED: " + problems(o);
      context.getCounter(o.alreadyDone() ? ArchiveCounter.PATHS_SKIPPED
          : o.complete() ? ArchiveCounter.PATHS_DONE : ArchiveCounter.PATHS_FAILED).increment(1);
    } catch (IOException | RuntimeException e) {
      LOG.warn("archiving {} failed", item.path(), e);
      status = "FAILED: " + e.getMessage();
      context.getCounter(ArchiveCounter.PATHS_FAILED).increment(1);
      countStatesAfterFailure(context, path);
    }
    context.write(key, new Text(status));
  }

  private static void count(Context context, ArchiveOrchestrator.Outcome o) {
    Archiver.Result r = o.archived();
    context.getCounter(ArchiveCounter.STRIPES_ENCODED).increment(o.stripesEncoded());
    context.getCounter(ArchiveCounter.STRIPES_ROLLED_BACK).increment(r.rolledBack());
    context.getCounter(ArchiveCounter.BYTES_ENCODED).increment(r.dataBytesRead());
    context.getCounter(ArchiveCounter.PARITY_BYTES_WRITTEN).increment(r.parityBytesWritten());
    context.getCounter(ArchiveCounter.BLOCKS_MOVED).increment(o.blocksMoved());
    countStates(context, o.summary());
  }

  private static void countStates(Context context, ArchiveSummary sum) {
    for (StripeState s : StripeState.values()) {
      if (sum.count(s) > 0) {
        context.getCounter(ArchiveCounter.STRIPES_GROUP, s.name()).increment(sum.count(s));
      }
    }
  }

  /** The states a failed unit's stripes were left in, when its manifest can be read. */
  private void countStatesAfterFailure(Context context, Path path) {
    try {
      StripeManifest m = store.find(store.inodeOf(path));
      if (m != null) {
        countStates(context, ArchiveSummary.of(m));
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("cannot read the manifest of {} after its failure: {}", path, e.getMessage());
    }
  }

  private static String problems(ArchiveOrchestrator.Outcome o) {
    java.util.List<String> lines = new java.util.ArrayList<>(o.archived().stale());
    if (o.trimmed() != null) {
      lines.addAll(o.trimmed().stale());
      lines.addAll(o.trimmed().offPlan());
      lines.addAll(o.trimmed().notTrimmed());
    }
    ArchiveSummary sum = o.summary();
    lines.add(0, sum.count(StripeState.TRIMMED) + " of " + sum.stripes() + " stripes trimmed, "
        + (sum.count(StripeState.COMMITTED) + sum.count(StripeState.TRIMMED)) + " committed");
    return String.join("; ", lines);
  }

  /**
   * Releases the lock of the unit at {@code path} when an earlier attempt of this very task holds it. That attempt is
   * taken for dead, but may still live: once its lease is recovered here, its next manifest write or trim fails with
   * a {@link org.wideec.archive.hdfs.LostArchiveLockException} and it changes nothing more.
   */
  private void releasePredecessorsLock(Path path) throws IOException {
    long inode = store.inodeOf(path);
    String holder = store.lockHolder(inode);
    TaskAttemptID held = ArchiveJob.attemptOf(holder);
    // Compared as text: forName gives the old API's subclass, which equals() tells apart.
    if (held != null && held.getTaskID().toString().equals(attempt.getTaskID().toString())
        && held.getId() < attempt.getId()) {
      LOG.info("{}: releasing the archive lock {} held by this task's earlier attempt {}", path,
          store.lockPath(inode), held);
      if (!store.releaseDeadHolder(inode, RELEASE_WAIT_MS)) {
        throw new IOException(path + ": the lock " + store.lockPath(inode) + " of the dead attempt " + held
            + " was not released within " + RELEASE_WAIT_MS + " ms");
      }
    }
  }

  @Override
  protected void cleanup(Context context) throws IOException {
    if (encoder instanceof java.io.Closeable c) {
      c.close();
    }
  }
}
