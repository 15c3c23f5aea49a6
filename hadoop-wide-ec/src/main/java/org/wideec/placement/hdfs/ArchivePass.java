package org.wideec.placement.hdfs;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcArchivedBlocks;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.apache.hadoop.hdfs.server.namenode.NameNode;
import org.apache.hadoop.util.Daemon;
import org.slf4j.Logger;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.datanode.JmxEndpointResolver;
import org.wideec.transport.SliceTransport;
import org.wideec.transport.TrafficCounters;
import org.wideec.transport.TransportConf;
import org.wideec.transport.hdfs.TransportConfReader;

/**
 * A NameNode loop ({@link PeriodicPass}) that looks at every archived stripe once per interval: the {@link
 * ArchiveRepairMonitor}, the {@link ArchivePlacementKeeper} and the {@link ArchiveReprotector}. It runs only on the
 * active NameNode and only once every DataNode has reported (before that a replica may look absent that is there);
 * the repair monitor and the reprotector also run in startup safe mode, writing no namespace there. It owns what they
 * need: the manifests ({@link ManifestReader}, parsed again only when
 * changed), a pool of workers for what a pass starts, and, for the passes that order DataNodes, a client end of
 * their slice ports (nothing listens here) that proves the cluster secret; a pass that only reads the blocks map and
 * writes the namespace has none, so it runs without that secret.
 */
abstract class ArchivePass extends PeriodicPass {
  final ManifestReader manifests;
  final SliceTransport transport;
  final JmxEndpointResolver endpoints;
  final ExecutorService workers;
  private final String name;

  /**
   * @param name what the log lines call it ("archive repair", say); its threads are named after it
   * @param threads the workers a pass may keep busy at once
   * @param slicePorts whether the pass orders DataNodes over their slice ports (then {@link #transport} and {@link
   *     #endpoints} are set; otherwise both are null and no transport setting is read)
   * @throws IOException when the slice transport's settings are wrong (no cluster secret, say)
   */
  ArchivePass(NameNode nn, FSNamesystem fsn, Configuration conf, long interval, int threads, String name, Logger log,
      boolean slicePorts) throws IOException {
    super(fsn, "wide-ec-" + name.replace(' ', '-'), interval, false, log);
    this.name = name;
    TransportConf tc = slicePorts ? TransportConfReader.from(conf) : null;
    String prefix = "wide-ec-" + name.replace(' ', '-') + "-";
    this.workers = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
      Thread t = new Daemon(r);
      t.setName(prefix + t.getId());
      return t;
    });
    this.transport = slicePorts ? new SliceTransport(tc, "namenode", TrafficCounters.NONE, workers) : null;
    this.endpoints = slicePorts ? new JmxEndpointResolver(conf, tc.connectTimeoutMs()) : null;
    this.manifests = new ManifestReader(nn, conf);
  }

  @Override
  void stop() {
    super.stop();
    workers.shutdownNow();
    try {
      workers.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (transport != null) {
      transport.close();
      endpoints.close();
    }
  }

  @Override
  final void afterLastPass() {
    manifests.close();
  }

  @Override
  final void passFailed(Throwable e) {
    failed.warn("wide-ec " + name + " pass failed: {}", e.toString(), e);
  }

  /**
   * Before every DataNode reported, a replica may look absent that is there. In startup safe mode the namespace is
   * frozen, but blocks can still be written back: a pass that writes no namespace runs there once it is ready.
   */
  @Override
  final boolean mayRun() {
    if (!super.mayRun()) {
      return false;
    }
    return fsn.isInSafeMode() ? readyInSafeMode() && WideEcArchivedBlocks.reportedInStartupSafeMode(fsn)
        : WideEcArchivedBlocks.reportsComplete(fsn);
  }

  /** One look at every manifest's stripes. */
  @Override
  final void runPass() throws IOException {
    Map<String, WideEcArchivedBlocks.Target> live = WideEcArchivedBlocks.targets(fsn);
    beginPass(live);
    for (FileStatus st : manifests.manifests()) {
      String manifest = st.getPath().toUri().getPath();
      StripeManifest m;
      try {
        m = manifests.read(st);
      } catch (IOException | RuntimeException e) {
        failed.warn("wide-ec " + name + " cannot read manifest {}: {}", manifest, e.toString());
        continue;
      }
      for (ArchivedStripe s : m.stripes()) {
        try {
          visit(s, manifest, live);
        } catch (RuntimeException e) {
          // One stripe this code cannot handle must not hold up every other stripe's repair or placement.
          failed.warn("wide-ec " + name + " skipped stripe {} of {}: {}", s.stripeId(), manifest, e.toString(), e);
        }
      }
    }
    endPass(live);
  }

  /**
   * Whether a pass may run now that the NameNode is in safe mode; it then must not write the namespace (HDFS refuses
   * it there). Passes do not run in safe mode unless a subclass says so.
   */
  boolean readyInSafeMode() {
    return false;
  }

  /** Before the pass looks at any stripe; {@code live} maps each live DataNode's transfer address to it. */
  abstract void beginPass(Map<String, WideEcArchivedBlocks.Target> live) throws IOException;

  /** One stripe of one manifest. */
  abstract void visit(ArchivedStripe s, String manifest, Map<String, WideEcArchivedBlocks.Target> live);

  /** After the pass looked at every stripe. */
  abstract void endPass(Map<String, WideEcArchivedBlocks.Target> live);
}
