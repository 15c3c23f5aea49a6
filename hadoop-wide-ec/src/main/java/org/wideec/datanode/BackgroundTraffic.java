package org.wideec.datanode;

import java.lang.reflect.Field;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.metrics.DataNodeMetrics;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;
import org.apache.hadoop.util.Daemon;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.config.ConfigValues;
import org.wideec.repair.BackgroundCaps;
import org.wideec.repair.ForegroundBackoff;
import org.wideec.transport.CappedBackground;
import org.wideec.transport.SliceTransport;

/**
 * This DataNode's background caps, applied by its slice transport ({@link CappedBackground}) to every slice of
 * background work it sends: the node cap scaled by the back-off under foreground load, and its share of its rack's
 * uplink cap. Every sample interval ({@value #INTERVAL_KEY}) it reads what the DataNode served its users since the
 * last sample ({@link #foregroundBytes}) and feeds the back-off ({@link ForegroundBackoff}); the rack share is
 * recounted from the NameNode's live DataNodes every {@value #RACK_RECOUNT_SAMPLES} samples. The caps can be changed
 * while the DataNode runs ({@link #setNodeCap}, {@link #setRackCap}: the JMX setters of {@link SliceEndpointMXBean});
 * the next slices obey them. A cap must let one slice through per half stall timeout (else every background stream
 * would stall and be resent): a lower one is refused, naming the key or attribute. Nothing here throws into a
 * DataNode thread: a failed sample is logged (rate-limited) and the caps stay as they were.
 */
public final class BackgroundTraffic {
  private static final Logger LOG = LoggerFactory.getLogger(BackgroundTraffic.class);
  public static final String NODE_KEY = "wide-ec.background.node.bytes-per-second";
  public static final String RACK_KEY = "wide-ec.background.rack.bytes-per-second";
  public static final String BUSY_KEY = "wide-ec.background.backoff.busy.bytes-per-second";
  public static final String FLOOR_KEY = "wide-ec.background.backoff.floor-percent";
  public static final String STEP_KEY = "wide-ec.background.backoff.step-percent";
  public static final String INTERVAL_KEY = "wide-ec.background.sample.interval.ms";
  public static final int DEFAULT_FLOOR_PERCENT = 10;
  public static final int DEFAULT_STEP_PERCENT = 10;
  public static final long DEFAULT_INTERVAL_MS = 1000;
  static final int RACK_RECOUNT_SAMPLES = 30;

  /** The settings, checked when the plugin starts. */
  public record Settings(BackgroundCaps caps, long busyBytesPerSecond, int floorPercent, int stepPercent,
      long intervalMs) {
    /**
     * Checks the caps against the transport: each must let one slice through within half the stall timeout.
     *
     * @throws IllegalArgumentException naming the key
     */
    public void requireSendable(org.wideec.transport.TransportConf t) {
      long least = leastCap(t);
      requireAtLeast(NODE_KEY, caps.nodeBytesPerSecond(), least);
      requireAtLeast(RACK_KEY, caps.rackBytesPerSecond(), least);
    }

    /** @throws IllegalArgumentException naming the key */
    public static Settings from(Configuration conf) {
      return new Settings(new BackgroundCaps(ConfigValues.bytesAtLeast(conf, NODE_KEY, 0, 0),
          ConfigValues.bytesAtLeast(conf, RACK_KEY, 0, 0)), ConfigValues.bytesAtLeast(conf, BUSY_KEY, 0, 0),
          ConfigValues.intIn(conf, FLOOR_KEY, DEFAULT_FLOOR_PERCENT, 1, 100),
          ConfigValues.intIn(conf, STEP_KEY, DEFAULT_STEP_PERCENT, 1, 100),
          ConfigValues.positiveMillis(conf, INTERVAL_KEY, DEFAULT_INTERVAL_MS));
    }
  }

  /**
   * The lowest cap a node may have, bytes/s: one slice per half stall timeout. A slice waits for its caps at most
   * that long ({@link org.wideec.transport.BackgroundThrottle}), so a lower cap could never pace a stream, only make
   * every slice overrun it.
   */
  static long leastCap(org.wideec.transport.TransportConf t) {
    return (t.sliceBytes() * 2000L + t.stallTimeoutMs() - 1) / t.stallTimeoutMs();
  }

  /** @throws IllegalArgumentException naming {@code what} when a cap (0: none) is below {@code least} */
  static void requireAtLeast(String what, long bytesPerSecond, long least) {
    if (bytesPerSecond != 0 && bytesPerSecond < least) {
      throw new IllegalArgumentException(what + "=" + bytesPerSecond + " bytes/s is below " + least + " bytes/s, one"
          + " slice (wide-ec.transport.slice.bytes) per half stall timeout (wide-ec.transport.stall.timeout.ms):"
          + " every background stream would stall under it; use 0 for no cap");
    }
  }

  /** The DataNodes alive now: what the rack share is counted from. */
  @FunctionalInterface
  interface LiveNodes {
    List<DatanodeInfo> get() throws java.io.IOException;
  }

  private final DataNode dn;
  private final CappedBackground throttle;
  private final ForegroundBackoff backoff;
  private final LiveNodes live;
  private final LongSupplier foregroundSlices;
  private final ScheduledExecutorService sampler;
  /** A sample fails each second while, say, the NameNode is unreachable: one warning per ten minutes. */
  private final org.wideec.placement.hdfs.RateLimitedWarning failed =
      new org.wideec.placement.hdfs.RateLimitedWarning(LOG, 10 * 60_000L);
  private final Field bytesRead;
  private final Field bytesWritten;
  private final Field reconstructionRead;
  private final Field reconstructionRemoteRead;
  private final Field reconstructionWritten;
  private final long leastCap;
  /** Guards the read-modify-write of the caps, so that concurrent setters never lose one another's change. */
  private final Object capsLock = new Object();
  private volatile BackgroundCaps caps;
  private volatile int nodesInRack = 1;
  private long lastForeground = -1;
  private long lastNanos;
  private int samples;

  /**
   * Installs the caps on {@code transport} and starts sampling.
   *
   * @param foregroundSlices bytes of users' slices this node sent since start
   */
  BackgroundTraffic(DataNode dn, Settings s, SliceTransport transport, LiveNodes live, LongSupplier foregroundSlices) {
    this.dn = dn;
    this.caps = s.caps();
    this.live = live;
    this.foregroundSlices = foregroundSlices;
    this.backoff = new ForegroundBackoff(s.busyBytesPerSecond(), s.floorPercent() / 100.0, s.stepPercent() / 100.0);
    this.throttle = new CappedBackground(caps.nodeCap(1), caps.rackShare(1));
    this.leastCap = leastCap(transport.conf());
    this.bytesRead = counter("bytesRead");
    this.bytesWritten = counter("bytesWritten");
    this.reconstructionRead = counter("ecReconstructionBytesRead");
    this.reconstructionRemoteRead = counter("ecReconstructionRemoteBytesRead");
    this.reconstructionWritten = counter("ecReconstructionBytesWritten");
    transport.capBackground(throttle);
    sampler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Daemon(r);
      t.setName("wide-ec-background-caps-" + dn.getXferPort());
      return t;
    });
    sampler.scheduleWithFixedDelay(this::sample, 0, s.intervalMs(), TimeUnit.MILLISECONDS);
  }

  /** A counter of HDFS's DataNodeMetrics (package-private there, with no getter); null if this Hadoop lacks it. */
  private static Field counter(String name) {
    try {
      Field f = DataNodeMetrics.class.getDeclaredField(name);
      f.setAccessible(true);
      return f;
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.warn("wide-ec background caps: DataNodeMetrics has no {} on this Hadoop version ({}); the back-off"
          + " counts without it", name, e.toString());
      return null;
    }
  }

  private void sample() {
    try {
      long now = System.nanoTime();
      long fg = foregroundBytes();
      if (lastForeground >= 0) {
        // Subtracted counters can run ahead of the totals within one sample (a unit's bytes counted as sent before
        // its target's BlockReceiver counts them): never a negative load.
        backoff.sample(Math.max(0, fg - lastForeground), now - lastNanos);
      }
      lastForeground = fg;
      lastNanos = now;
      if (caps.rackBytesPerSecond() > 0 && samples++ % RACK_RECOUNT_SAMPLES == 0) {
        nodesInRack = liveNodesInOwnRack();
      }
      apply();
    } catch (Throwable e) { // a sample never stops the sampler, nor reaches the DataNode
      failed.warn("wide-ec background caps: a sample failed, the caps stay as they were: {}", e.toString());
    }
  }

  /**
   * What this DataNode served its users since it started: the slices of degraded reads it sent, and what HDFS read
   * and wrote through its DataNodeMetrics (bytesRead, bytesWritten) less what of that was repair: the rebuilt units
   * our writers stored here ({@link RebuiltBytesWritten}), and HDFS's own striped reconstruction run here (it runs on
   * its first target: its writes, and its reads of this node's own blocks, which go through this node's reader). What
   * other nodes' recoveries, HDFS replication or the balancer write here still counts as foreground: a BlockReceiver
   * cannot tell a peer's write from a client's, and DataNodeMetrics counts no bytes for them apart.
   */
  long foregroundBytes() throws IllegalAccessException {
    DataNodeMetrics m = dn.getMetrics();
    long b = foregroundSlices.getAsLong();
    if (m != null) {
      b += value(bytesRead, m) + value(bytesWritten, m);
      b -= value(reconstructionWritten, m) + value(reconstructionRead, m) - value(reconstructionRemoteRead, m);
    }
    return b - RebuiltBytesWritten.to(WideEcDataNodePlugin.nameOf(dn));
  }

  private static long value(Field counter, DataNodeMetrics m) throws IllegalAccessException {
    return counter == null ? 0 : ((MutableCounterLong) counter.get(m)).value();
  }

  private int liveNodesInOwnRack() throws java.io.IOException {
    String self = WideEcDataNodePlugin.nameOf(dn);
    List<DatanodeInfo> nodes = live.get();
    String rack = nodes.stream().filter(d -> d.getXferAddr().equals(self)).map(DatanodeInfo::getNetworkLocation)
        .findFirst().orElse(null);
    return rack == null ? nodesInRack : (int) nodes.stream().filter(d -> rack.equals(d.getNetworkLocation())).count();
  }

  private void apply() {
    synchronized (capsLock) {
      BackgroundCaps c = caps;
      throttle.set(c.nodeCap(backoff.factor()), c.rackShare(nodesInRack));
    }
  }

  /**
   * Sets the node cap from the next slice on (bytes/s, 0: none).
   *
   * @throws IllegalArgumentException naming the attribute when the cap is below one slice per half stall timeout
   */
  public void setNodeCap(long bytesPerSecond) {
    requireAtLeast("BackgroundNodeCap", bytesPerSecond, leastCap);
    synchronized (capsLock) {
      caps = caps.withNode(bytesPerSecond);
      apply();
    }
    LOG.info("wide-ec background caps of {}: node cap set to {} bytes/s", WideEcDataNodePlugin.nameOf(dn),
        bytesPerSecond);
  }

  /**
   * Sets the rack's uplink cap (this node takes its share) from the next slice on (bytes/s, 0: none).
   *
   * @throws IllegalArgumentException naming the attribute when the cap is below one slice per half stall timeout
   */
  public void setRackCap(long bytesPerSecond) {
    requireAtLeast("BackgroundRackCap", bytesPerSecond, leastCap);
    synchronized (capsLock) {
      caps = caps.withRack(bytesPerSecond);
      apply();
    }
    LOG.info("wide-ec background caps of {}: rack uplink cap set to {} bytes/s ({} live nodes share it)",
        WideEcDataNodePlugin.nameOf(dn), bytesPerSecond, nodesInRack);
  }

  /**
   * Sets both caps at once from the next slice on (bytes/s, 0: none; a negative one is left as it is): either both
   * change or, when one is refused, neither.
   *
   * @throws IllegalArgumentException naming the attribute when a cap is below one slice per half stall timeout
   */
  public BackgroundCaps setCaps(long nodeBytesPerSecond, long rackBytesPerSecond) {
    if (nodeBytesPerSecond >= 0) {
      requireAtLeast("BackgroundNodeCap", nodeBytesPerSecond, leastCap);
    }
    if (rackBytesPerSecond >= 0) {
      requireAtLeast("BackgroundRackCap", rackBytesPerSecond, leastCap);
    }
    BackgroundCaps now;
    synchronized (capsLock) {
      now = caps;
      now = nodeBytesPerSecond >= 0 ? now.withNode(nodeBytesPerSecond) : now;
      now = rackBytesPerSecond >= 0 ? now.withRack(rackBytesPerSecond) : now;
      caps = now;
      apply();
    }
    LOG.info("wide-ec background caps of {}: node cap {} bytes/s, rack uplink cap {} bytes/s ({} live nodes share it)",
        WideEcDataNodePlugin.nameOf(dn), now.nodeBytesPerSecond(), now.rackBytesPerSecond(), nodesInRack);
    return now;
  }

  public BackgroundCaps caps() {
    return caps;
  }

  /** The throttle the transport applies: its caps now and its account. */
  public CappedBackground throttle() {
    return throttle;
  }

  public double backoffFactor() {
    return backoff.factor();
  }

  DataNode dataNode() {
    return dn;
  }

  int nodesInRack() {
    return nodesInRack;
  }

  void close() {
    sampler.shutdownNow();
  }
}
