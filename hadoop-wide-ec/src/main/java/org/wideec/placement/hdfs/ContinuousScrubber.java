package org.wideec.placement.hdfs;

import java.io.IOException;
import java.util.Arrays;
import java.util.Comparator;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcArchivedBlocks;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.apache.hadoop.hdfs.server.namenode.NameNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.ManifestStore;
import org.wideec.archive.hdfs.SlicePortClient;
import org.wideec.scrub.hdfs.ScrubPass;
import org.wideec.scrub.hdfs.ScrubSettings;
import org.wideec.scrub.hdfs.ScrubStatus;
import org.wideec.transport.TransportConf;

/**
 * The continuous scrubber ({@link ScrubSettings#ENABLED_KEY}): in a thread of its own on the active NameNode (a
 * {@link PeriodicPass}: nothing escapes it), {@link ScrubSettings#INTERVAL_KEY} ms after the last pass ended (as the
 * status file records it, so across restarts too) it walks every archived stripe (manifests in archived-inode order)
 * and then every block group of a closed file under a striped policy of ours (inode order, {@link OurStripedFiles}),
 * and has each checked from its units' summaries ({@link ScrubPass}).
 *
 * <p>Why on the NameNode: it alone knows every stripe (the manifests through its in-process client, the striped
 * files from its inode map) and hands out the READ tokens each summary request proves, while the folding, the only
 * work proportional to the data, stays on the DataNodes, each paced per volume by {@code
 * wide-ec.scrub.bytes-per-second}; the NameNode receives one page per unit. A DataNode-side scheduler would need each
 * node to learn every stripe it holds a unit of and to elect who checks it.
 *
 * <p>Where a pass stands is saved in the {@link ScrubStatus} file as it goes, so a pass cut short by a restart or a
 * failover resumes where it stopped. One summary is asked at a time (bounded concurrency: one), and {@link #passNow}
 * runs a pass on the caller's thread for an operator or a test, never two at once.
 */
public final class ContinuousScrubber extends PeriodicPass {
  private static final Logger LOG = LoggerFactory.getLogger(ContinuousScrubber.class);
  static final String ARCHIVED = "archived";
  static final String STRIPED = "striped";
  /** How often a long pass saves where it stands, ms. */
  static final long SAVE_EVERY_MS = 30_000;
  /**
   * How often the thread looks whether a pass is due, ms (at most): the interval counts from the last pass's end as
   * the status file records it, so a NameNode restarted more often than the interval still scrubs on time.
   */
  static final long LOOK_EVERY_MS = 10 * 60_000;

  private final Configuration conf;
  private final ScrubSettings settings;
  private final WideEcNameNodeMetrics metrics;
  private final ManifestReader manifests;
  private SlicePortClient port;
  private long savedAt;

  /** @throws IllegalArgumentException when a setting is wrong, or block tokens are off while the slice ports ask one */
  ContinuousScrubber(NameNode nn, FSNamesystem fsn, Configuration conf, WideEcNameNodeMetrics metrics,
      ScrubSettings settings) {
    super(fsn, "wide-ec-scrubber", Math.min(settings.interval(), LOOK_EVERY_MS), false, LOG);
    if (!conf.getBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, false)
        && !conf.getTrimmed(TransportConf.AUTH, "hmac").equalsIgnoreCase("none")) {
      throw new IllegalArgumentException(ScrubSettings.ENABLED_KEY + " needs " + DFSConfigKeys
          .DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY + "=true: each summary request proves the READ token of its block to the"
          + " DataNode's slice port (" + TransportConf.AUTH + "=hmac)");
    }
    this.conf = conf;
    this.settings = settings;
    this.metrics = metrics;
    this.manifests = new ManifestReader(nn, conf);
  }

  void start() {
    start("wide-ec scrubber: every archived stripe and block group of our striped policies is checked from its units'"
        + " summaries every " + settings.interval() + " ms" + (settings.repair() ? ", units at fault reported for"
        + " repair" : ", nothing repaired (" + ScrubSettings.REPAIR_KEY + "=false)"));
  }

  /** Not in safe mode, and only once every DataNode reported: before that a unit may look missing that is there. */
  @Override
  boolean mayRun() {
    return super.mayRun() && !fsn.isInSafeMode() && WideEcArchivedBlocks.reportsComplete(fsn);
  }

  /** A pass when one was cut short, or the last ended at least an interval ago (or none ever ran). */
  @Override
  void runPass() throws IOException {
    ScrubStatus last = ScrubStatus.read(manifests.fs(), manifests.layout());
    if (last.midPass() || last.lastPassEnded() < 0
        || System.currentTimeMillis() - last.lastPassEnded() >= settings.interval()) {
      passNow();
    }
  }

  /**
   * Runs a pass now on this thread, from where the last one stopped to the end (a pass already running on the
   * scrubber's thread finishes first).
   *
   * @return the status as the pass left it
   * @throws IOException when the status cannot be read or written, or the manifests cannot be listed
   */
  public synchronized ScrubStatus passNow() throws IOException {
    DistributedFileSystem fs = manifests.fs();
    ArchiveLayout layout = manifests.layout();
    ScrubStatus status = ScrubStatus.read(fs, layout);
    if (!status.midPass()) {
      status.begin(ARCHIVED, System.currentTimeMillis());
    } else {
      LOG.info("wide-ec scrub pass {} resumes in its {} phase after inode {}", status.pass(), status.phase(),
          status.after());
    }
    savedAt = System.nanoTime();
    ScrubPass pass = new ScrubPass(fs, new ManifestStore(fs, layout), port(), settings.repair(), counters(), status,
        System.nanoTime(), LOG);
    try {
      if (status.phase().equals(ARCHIVED)) {
        archives(pass, status, fs, layout);
        status.at(STRIPED, -1);
      }
      files(pass, status, fs, layout);
    } catch (java.io.InterruptedIOException e) {
      status.write(fs, layout); // where it stopped: the next pass resumes there
      throw e;
    }
    status.end(System.currentTimeMillis());
    status.write(fs, layout);
    metrics.scrub.passes.incr();
    return status;
  }

  private void archives(ScrubPass pass, ScrubStatus status, DistributedFileSystem fs, ArchiveLayout layout)
      throws IOException {
    FileStatus[] all = manifests.manifests();
    Arrays.sort(all, Comparator.comparingLong(st -> ArchiveLayout.archiveInodeOf(st.getPath().getName())));
    for (FileStatus st : all) {
      long inode = ArchiveLayout.archiveInodeOf(st.getPath().getName());
      if (inode <= status.after()) {
        continue;
      }
      stopIfInterrupted();
      try {
        StripeManifest m = manifests.read(st);
        pass.archive(m);
      } catch (IOException | RuntimeException e) {
        metrics.scrub.failures.incr();
        failed.warn("wide-ec scrub could not check the archive of manifest {}: {}", st.getPath(), e.toString());
      }
      advance(status, ARCHIVED, inode, fs, layout);
    }
  }

  private void files(ScrubPass pass, ScrubStatus status, DistributedFileSystem fs, ArchiveLayout layout)
      throws IOException {
    while (true) {
      OurStripedFiles.Window w = OurStripedFiles.after(fsn, status.after());
      for (long inode : w.inodes()) {
        stopIfInterrupted();
        String shown = WideEcArchivedBlocks.pathOf(fsn, inode);
        try {
          pass.stripedFile(ArchiveLayout.inodePath(inode), shown == null ? ArchiveLayout.inodePath(inode).toString()
              : shown);
        } catch (IOException | RuntimeException e) {
          metrics.scrub.failures.incr();
          failed.warn("wide-ec scrub could not check the block groups of {} (inode {}): {}", shown, inode,
              e.toString());
        }
        advance(status, STRIPED, inode, fs, layout);
      }
      status.at(STRIPED, w.through());
      if (w.end()) {
        return;
      }
    }
  }

  /** Records the item done, and saves where the pass stands every {@link #SAVE_EVERY_MS}. */
  private void advance(ScrubStatus status, String phase, long inode, DistributedFileSystem fs, ArchiveLayout layout)
      throws IOException {
    status.at(phase, inode);
    if (System.nanoTime() - savedAt > SAVE_EVERY_MS * 1_000_000L) {
      status.write(fs, layout);
      savedAt = System.nanoTime();
    }
  }

  /** A stopping NameNode interrupts the pass: it ends between two items, its place saved. */
  private static void stopIfInterrupted() throws IOException {
    if (Thread.currentThread().isInterrupted()) {
      throw new java.io.InterruptedIOException("the scrub pass was stopped");
    }
  }

  private SlicePortClient port() throws IOException {
    if (port == null) {
      port = new SlicePortClient(conf);
    }
    return port;
  }

  private ScrubPass.Counters counters() {
    return new ScrubPass.Counters() {
      @Override
      public void checked() {
        metrics.scrub.stripesChecked.incr();
      }

      @Override
      public void summaryBytes(long bytes) {
        metrics.scrub.summaryBytes.incr(bytes);
      }

      @Override
      public void mismatch(boolean unitAtFault) {
        metrics.scrub.mismatches.incr();
        if (!unitAtFault) {
          metrics.scrub.undecidable.incr();
        }
      }

      @Override
      public void repairRequested() {
        metrics.scrub.repairsRequested.incr();
      }

      @Override
      public void failed(String stripe, String error) {
        metrics.scrub.failures.incr();
        ContinuousScrubber.this.failed.warn("wide-ec scrub could not check {}: {}", stripe, error);
      }
    };
  }

  @Override
  void passFailed(Throwable e) {
    failed.warn("wide-ec scrub pass failed: {}", e.toString(), e);
  }

  @Override
  void afterLastPass() {
    manifests.close();
    if (port != null) {
      port.close();
    }
  }
}
