package org.wideec.archive.hdfs;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The trim of an archive's files begun while its later stripes encode (DESIGN.md §3.2): as soon as every stripe of a
 * file is committed and the file points at its archive, {@link StripeTrim#begin} moves its blocks onto their planned
 * nodes and lowers it to one replica, on one thread beside the encoding. A move is a copy and then a wait for the
 * NameNode to list it, and the NameNode deletes the excess replicas on the DataNodes' next heartbeats; begun here, both
 * overlap the next stripes' chains instead of following the last one. The trim after the last stripe then waits for
 * every file and records TRIMMED. Nothing begun here is needed for safety: a failure is logged, and that trim checks
 * and does again whatever is left. Closed before the archive's lock is let go, after what was begun has ended.
 */
final class TrimAhead implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(TrimAhead.class);

  /** Where the archive's files are found now (listed on the first use). */
  interface Paths {
    Map<Long, String> get() throws IOException;
  }

  private final StripeTrim trim;
  private final Path archive;
  private final Paths paths;
  private final List<String> moved;
  /** Files told and not yet taken by a begin. */
  private final Set<Long> pending = new java.util.LinkedHashSet<>();
  private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "wide-ec trim ahead");
    t.setDaemon(true);
    return t;
  });

  /** @param moved where each block moved onto its planned node is told, for the trim after the last stripe to report */
  TrimAhead(StripeTrim trim, Path archive, Paths paths, List<String> moved) {
    this.trim = trim;
    this.archive = archive;
    this.paths = paths;
    this.moved = moved;
  }

  /**
   * Files whose stripes are now all committed: their trim begins once those told before have begun theirs, together
   * with every other file told meanwhile (stripes encoded at once commit at about the same time, and one begin moves
   * all their blocks at once where one per commit moved them a batch after another).
   */
  void tookEffect(Set<Long> files) {
    if (files.isEmpty()) {
      return;
    }
    synchronized (pending) {
      pending.addAll(files);
    }
    try {
      thread.execute(() -> {
        Set<Long> mine;
        synchronized (pending) {
          mine = Set.copyOf(pending);
          pending.clear();
        }
        if (mine.isEmpty()) {
          return; // begun by an earlier task with its own
        }
        try {
          trim.begin(archive, mine, paths.get(), moved);
        } catch (IOException | RuntimeException e) {
          LOG.warn("{}: the trim of {} file(s) could not begin while later stripes encode ({}); the trim after the"
              + " last stripe does it", archive, mine.size(), e.toString());
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      LOG.debug("{}: closed; the trim after the last stripe trims {} file(s)", archive, files.size());
    }
  }

  /** Waits for every trim begun to end its moves and lowering. */
  @Override
  public void close() throws IOException {
    thread.shutdown();
    try {
      while (!thread.awaitTermination(10, TimeUnit.SECONDS)) {
        LOG.info("{}: waiting for the trim begun while stripes encoded to end its moves", archive);
      }
    } catch (InterruptedException e) {
      thread.shutdownNow();
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for the trim begun on " + archive);
    }
  }
}
