package org.wideec.datanode;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import javax.management.ObjectName;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.metrics2.util.MBeans;
import org.apache.hadoop.util.Daemon;
import org.apache.hadoop.util.ServicePlugin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.engine.MessageRouter;
import org.wideec.engine.UpdateRoleService;
import org.wideec.engine.RepairEngine;
import org.wideec.config.ConfigValues;
import org.wideec.engine.ChainWarmup;
import org.wideec.engine.RepairWarmup;
import org.wideec.protocol.MessageKind;
import org.wideec.transport.RequestHandler;
import org.wideec.transport.SliceTransport;

/**
 * The wide-ec repair worker inside a DataNode ({@code dfs.datanode.plugins}): serves as helper for repairs
 * (slice service over the local replicas), publishes its endpoint and metrics, takes over the NameNode's
 * reconstruction tasks for block groups of our codecs, rebuilds ranges of archived files' lost blocks for
 * clients ({@link ArchivedReadService}), rebuilds lost blocks of archived stripes when the NameNode's archive
 * repair monitor asks ({@link ArchiveRebuildService}), collects trees of the archiver's chain encodes
 * ({@link EncodeTreeService}), runs positions of the archiver's RapidRAID pipelines ({@link DataNodeSteps}),
 * and pins archived replicas that sit on plan when the NameNode's placement keeper asks
 * ({@link PinService}).
 *
 * <p>Nothing here may stop or break the DataNode. Settings are checked before anything starts; a bad value,
 * a slice port that cannot be bound or any other failure to start disables the worker with one error that
 * says why ({@link #disabledReason()}), releases whatever had started, and leaves the DataNode exactly as
 * stock HDFS: running, with HDFS's own reconstructor for every block group.
 */
public final class WideEcDataNodePlugin implements ServicePlugin {
  private static final Logger LOG = LoggerFactory.getLogger(WideEcDataNodePlugin.class);
  public static final String WARMUP_KEY = "wide-ec.repair.warmup.enabled";
  public static final boolean WARMUP_DEFAULT = true;
  /**
   * Slices the helper steps of loopback chains handle when the warm-up runs ({@link ChainWarmup}); 0 runs none. On two
   * idle cores each 4096 (16 chains of 1 MiB) took 2.4, 0.55, 0.42 and 0.39 s in turn, settling near 0.2 s only after
   * some 80,000: the JIT's second compiler works through a queue of thousands of methods, and while it is long it
   * raises its thresholds, so a DataNode warmed with 4096 compiled its steps' and transport's per-slice methods only
   * after some 80 real chains had run them (LogCompilation on the real-process cluster). 16384 cost 5 s of CPU.
   */
  public static final String CHAIN_WARMUP_KEY = "wide-ec.repair.warmup.chain.slices";
  public static final long CHAIN_WARMUP_DEFAULT = 16384;
  private static final Map<Integer, WideEcDataNodePlugin> RUNNING = new ConcurrentHashMap<>();
  private DataNode dn;
  private SliceTransport transport;
  private ThreadPoolExecutor helpers;
  private RepairMetrics metrics;
  private ObjectName bean;
  private int xferPort;
  private RepairWorker worker;
  private ReconstructionTakeover.Installed takeover;
  private JmxEndpointResolver endpoints;
  private ArchivedReadService archivedReads;
  private ClusterDataNodes members;
  private BackgroundTraffic.Settings backgroundSettings;
  private volatile BackgroundTraffic background;
  private volatile String disabledReason;
  private volatile RepairWarmup.Result warmedUp;
  /** Completed by the warm-up thread: the loopback chains' result, or null when they did not run or failed. */
  private final java.util.concurrent.CompletableFuture<ChainWarmup.Result> chainWarmedUp =
      new java.util.concurrent.CompletableFuture<>();

  @Override
  public void start(Object service) {
    if (!(service instanceof DataNode d)) {
      disabledReason = "runs only in a DataNode (dfs.datanode.plugins), not in " + service;
      LOG.error("wide-ec repair worker disabled: {}", disabledReason);
      return;
    }
    dn = d;
    try {
      xferPort = dn.getXferPort();
      RUNNING.put(xferPort, this);
      bean = MBeans.register("DataNode", JmxEndpointResolver.beanName(xferPort), new WorkerState(this));
      org.wideec.config.UnknownKeys.warn(dn.getConf(), "DataNode " + xferPort);
      RepairWorkerConf conf = RepairWorkerConf.from(dn.getConf());
      backgroundSettings = BackgroundTraffic.Settings.from(dn.getConf());
      backgroundSettings.requireSendable(conf.transport());
      startWorker(conf);
    } catch (Throwable e) { // DESIGN.md §2: nothing of ours may stop a DataNode
      // A bad setting or an unbindable port says so itself; anything else is unexpected and keeps its type.
      disable(e instanceof IllegalArgumentException || e instanceof java.io.IOException ? e.getMessage() : e.toString());
    }
  }

  private void startWorker(RepairWorkerConf conf) throws Exception {
    metrics = RepairMetrics.register("WideEcRepair-" + xferPort);
    helpers = new ThreadPoolExecutor(0, conf.helperThreads(), 60, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
      Thread t = new Daemon(r);
      t.setName("wide-ec-helper-" + xferPort + "-" + t.getId());
      return t;
    });
    BlockTokenAccess tokens = BlockTokenAccess.of(dn);
    transport = new SliceTransport(conf.transport(), () -> nameOf(dn), metrics, helpers, tokens);
    org.wideec.repair.ReplicaAccess access = tokens == null ? org.wideec.repair.ReplicaAccess.OPEN : tokens;
    // Archive rebuilds and degraded reads served here plan without a helper found unusable, for a while.
    org.wideec.repair.UnusableHelpers unusable = new org.wideec.repair.UnusableHelpers(dn.getConf().getLong(
        org.wideec.repair.UnusableHelpers.AVOID_KEY, org.wideec.repair.UnusableHelpers.AVOID_DEFAULT_MS));
    endpoints = new JmxEndpointResolver(dn.getConf(), conf.transport().connectTimeoutMs());
    org.wideec.client.LiveDataNodes live = new org.wideec.client.LiveDataNodes(dn.getConf(),
        org.apache.hadoop.fs.FileSystem.getDefaultUri(dn.getConf()), conf.transport().connectTimeoutMs());
    members = new ClusterDataNodes(live, endpoints);
    ArchiveRebuildService rebuilds = new ArchiveRebuildService(dn, transport,
        resolver -> new RepairEngine(transport, resolver, metrics, conf.maxAttempts(), conf.validation(), unusable)
            .asBackground(),
        conf.scheme(), RepairWorker.checksumOf(dn.getConf()), members.current());
    archivedReads = new ArchivedReadService(dn, transport, access, conf, endpoints, metrics, unusable);
    // One port, nine kinds of request: a step of a repair or encode (and a requestor's word to dial ahead for one),
    // a client's range of an archived block, the archiver's order to collect a tree of a chain encode or to run a
    // position of a RapidRAID pipeline, the updater's roles of a stripe's parity update (and their fetches of each
    // other's rows), the NameNode's orders to rebuild an archived block and to pin archived replicas, a scrub's unit
    // summary, and an operator's caps.
    EncodeTreeService encodes = new EncodeTreeService(dn, transport, access, metrics, members);
    PinService pins = new PinService(dn, transport);
    CapsService caps = new CapsService(transport, () -> background);
    DataNodeSteps steps = new DataNodeSteps(dn, transport, access, metrics, conf.helperThreads());
    // Each kind that carries block tokens is screened before it takes a helper thread (and says which client it runs
    // for, so that what it relays counts under that client at the next hop); the NameNode's orders are refused there
    // to any connection that did not prove the cluster secret.
    ArchivedReadService reads = archivedReads;
    // A role dials only the cluster's DataNodes, as a chain encode's collector does.
    UpdateRoleService updates = new UpdateRoleService(transport, new FsDatasetUnitStore(dn), access,
        req -> UpdateParityTargets.open(dn, req), metrics, members::check,
        dn.getConf().getLongBytes(UpdateRoleService.MEMORY_KEY, UpdateRoleService.MEMORY_DEFAULT));
    transport.start(MessageRouter.of(Map.of(
        MessageKind.Family.REBUILD, RequestHandler.clusterOnly("order a rebuild", rebuilds::onRequest),
        MessageKind.Family.ENCODE_TREE, RequestHandler.screened(encodes::onRequest, encodes::screen),
        MessageKind.Family.ARCHIVED_READ, RequestHandler.screened(reads::onRequest, reads::screen),
        MessageKind.Family.PIN, RequestHandler.clusterOnly("order pins", pins::onRequest),
        MessageKind.Family.CAPS, RequestHandler.clusterOnly("set background caps", caps::onRequest),
        MessageKind.Family.STEP, steps,
        MessageKind.Family.DIAL_AHEAD, steps,
        MessageKind.Family.RAPIDRAID_POSITION, steps,
        MessageKind.Family.UPDATE, updates,
        MessageKind.Family.SUMMARY, steps)));
    worker = new RepairWorker(dn, conf, transport, endpoints, metrics);
    takeover = ReconstructionTakeover.install(dn, RepairWorker::ours, worker, metrics);
    background = new BackgroundTraffic(dn, backgroundSettings, transport, live::get, metrics::foregroundBytesSent);
    ReconstructionTakeover.Installed queue = takeover;
    metrics.background(background, () -> queue == null ? 0 : queue.queued());
    metrics.startedAhead(steps::startedAheadCounts);
    if (dn.getConf().getBoolean(WARMUP_KEY, WARMUP_DEFAULT)) {
      warmUp(conf, ConfigValues.longAtLeast(dn.getConf(), CHAIN_WARMUP_KEY, CHAIN_WARMUP_DEFAULT, 0));
    } else {
      chainWarmedUp.complete(null);
    }
  }

  /**
   * The repair path run once in a background thread of the lowest priority ({@link RepairWarmup}): the first repairs
   * after a DataNode starts then ask their helpers at once; then chains through loopback transports of the slice path
   * ({@link ChainWarmup}), so the first degraded reads and repairs run compiled code. A failure is logged, never thrown.
   */
  private void warmUp(RepairWorkerConf conf, long chainSlices) {
    Thread t = new Daemon(() -> {
      try {
        RepairWarmup.Result r = RepairWarmup.run(conf.scheme());
        warmedUp = r;
        if (r.kernelAgrees()) {
          LOG.info("wide-ec repair path of {} warmed up in {} ms: {} repairs planned, {} requests, kernel {}",
              nameOf(dn), r.millis(), r.plans(), r.requests(), r.kernel());
        } else {
          LOG.error("wide-ec: the coding kernel {} of {} disagrees with the Java kernel on a test product; its repairs"
              + " would rebuild wrong bytes: start the DataNode with -D{}=false", r.kernel(), nameOf(dn), coderSwitch());
        }
        if (chainSlices > 0) {
          ChainWarmup.Result c = ChainWarmup.run(conf.transport(), conf.validation(), chainSlices);
          chainWarmedUp.complete(c);
          if (c.rebuiltRight()) {
            LOG.info("wide-ec slice path of {} warmed up in {} ms: {} loopback chains, {} slices through helper steps",
                nameOf(dn), c.millis(), c.repairs(), c.hopSlices());
          } else {
            LOG.error("wide-ec: a loopback chain of {} rebuilt a unit wrong; its repairs would store wrong bytes: start"
                + " the DataNode with -D{}=false", nameOf(dn), coderSwitch());
          }
        }
      } catch (Throwable e) { // DESIGN.md §2: a warm-up that fails costs the first repairs time, nothing more
        LOG.warn("wide-ec repair path warm-up on {} failed: {}", nameOf(dn), e.toString(), e);
      } finally {
        chainWarmedUp.complete(null); // no-op once the chains completed it
      }
    });
    t.setName("wide-ec-warmup-" + xferPort);
    t.setPriority(Thread.MIN_PRIORITY);
    t.start();
  }

  /** The switch that turns off the coding kernel in use (native ISA-L, else the Vector API one). */
  private static String coderSwitch() {
    return org.wideec.coder.Kernels.nativeInUse() ? org.wideec.coder.Kernels.NATIVE_PROPERTY
        : org.wideec.coder.Kernels.VECTOR_PROPERTY;
  }

  /** One error, then everything that had started is released; HDFS runs on as stock. */
  private void disable(String why) {
    disabledReason = why;
    LOG.error("wide-ec repair worker disabled on {}: {}. This DataNode serves no repair slices and keeps HDFS's "
        + "stock reconstruction for every block group.", nameOf(dn), why);
    release();
  }

  @Override
  public void stop() {
    RUNNING.remove(xferPort, this);
    release();
    if (bean != null) {
      MBeans.unregister(bean);
      bean = null;
    }
  }

  private void release() {
    try {
      if (worker != null) {
        worker.stop();
      }
      if (background != null) {
        background.close();
        background = null;
      }
      if (takeover != null) {
        takeover.release();
        takeover = null;
      }
      if (transport != null) {
        transport.close();
        transport = null;
      }
      if (helpers != null) {
        helpers.shutdownNow();
      }
      if (endpoints != null) {
        endpoints.close();
        endpoints = null;
      }
      if (members != null) {
        members.close();
        members = null;
      }
      if (archivedReads != null) {
        archivedReads.close();
        archivedReads = null;
      }
      if (metrics != null) {
        metrics.unregister();
        metrics = null;
      }
    } catch (java.io.IOException | RuntimeException e) {
      LOG.warn("wide-ec repair worker on {} did not stop cleanly: {}", nameOf(dn), e.toString());
    }
  }

  @Override
  public void close() {
    stop();
  }

  /** What the warm-up of the repair path found, once it ran (null before, when off, or when it failed). */
  public RepairWarmup.Result warmedUp() {
    return warmedUp;
  }

  /**
   * What the loopback chains of the warm-up found, waiting up to {@code timeoutMs} for the warm-up to end; null when it
   * is off, its chains did not run or failed, or it is still running.
   */
  public ChainWarmup.Result chainWarmedUp(long timeoutMs) throws InterruptedException {
    try {
      return chainWarmedUp.get(timeoutMs, java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      return null;
    }
  }

  /** This worker's metrics (null when disabled or stopped). */
  public RepairMetrics metrics() {
    return metrics;
  }

  /** This DataNode's slice transport (null when disabled): what in-process tools use to act as requestor. */
  public SliceTransport transport() {
    return transport;
  }

  /** This DataNode's background caps (null when the worker is off). */
  public BackgroundTraffic background() {
    return background;
  }

  public JmxEndpointResolver endpoints() {
    return endpoints;
  }

  public boolean tookOverReconstruction() {
    return takeover != null;
  }

  /** Whether this DataNode checks block tokens on the slice port. */
  boolean blockTokens() {
    return dn != null && BlockTokenAccess.enabled(dn);
  }

  /** Whether HDFS honours block pins here (dfs.datanode.block-pinning.enabled); archived replicas need it. */
  boolean blockPinning() {
    return dn != null && PinService.enabled(dn);
  }

  /**
   * A DataNode's name in everything of ours: its transfer address as the NameNode knows it (DatanodeID#getXferAddr,
   * ip:port), which is how block locations, repair plans and culprits name it. Until the DataNode has registered,
   * HDFS's display name (host name:port), which on many hosts says localhost for every DataNode.
   */
  static String nameOf(DataNode dn) {
    org.apache.hadoop.hdfs.protocol.DatanodeID id = dn.getDatanodeId();
    return id != null ? id.getXferAddr() : dn.getDisplayName();
  }

  /** Why the worker is off on this DataNode (the error it logged at start), or null when it runs. */
  public String disabledReason() {
    return disabledReason;
  }

  /** The plugin started in the DataNode with this transfer port (in this JVM, running or disabled), or null. */
  public static WideEcDataNodePlugin running(int xferPort) {
    return RUNNING.get(xferPort);
  }
}
