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
 * last sample (HDFS's own DataNodeMetrics bytesRead and bytesWritten, plus the slices of degraded reads this node
 * sent) and feeds the back-off ({@link ForegroundBackoff}); the rack share is recounted from the NameNode's live
 * DataNodes every {@value #RACK_RECOUNT_SAMPLES} samples. The caps can be changed while the DataNode runs
 * ({@link #setNodeCap}, {@link #setRackCap}: the JMX setters of {@link SliceEndpointMXBean}); the next slices obey
 * them. Nothing here throws into a DataNode thread: a failed sample is logged (rate-limited) and the caps stay as
 * they were.
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
    /** @throws IllegalArgumentException naming the key */
    public static Settings from(Configuration conf) {
      return new Settings(new BackgroundCaps(ConfigValues.bytesAtLeast(conf, NODE_KEY, 0, 0),
          ConfigValues.bytesAtLeast(conf, RACK_KEY, 0, 0)), ConfigValues.bytesAtLeast(conf, BUSY_KEY, 0, 0),
          ConfigValues.intIn(conf, FLOOR_KEY, DEFAULT_FLOOR_PERCENT, 1, 100),
          ConfigValues.intIn(conf, STEP_KEY, DEFAULT_STEP_PERCENT, 1, 100),
          ConfigValues.positiveMillis(conf, INTERVAL_KEY, DEFAULT_INTERVAL_MS));
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
    this.bytesRead = counter("bytesRead");
    this.bytesWritten = counter("bytesWritten");
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
      LOG.warn("wide-ec background caps: DataNodeMetrics has no {} on this Hadoop version ({}); the back-off sees"
          + " only the degraded reads this node serves", name, e.toString());
      return null;
    }
  }

  private void sample() {
    try {
      long now = System.nanoTime();
      long fg = foregroundBytes();
      if (lastForeground >= 0) {
        backoff.sample(fg - lastForeground, now - lastNanos);
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

  /** What this DataNode served its users since it started: HDFS's reads and writes, and degraded reads' slices. */
  private long foregroundBytes() throws IllegalAccessException {
    DataNodeMetrics m = dn.getMetrics();
    long b = foregroundSlices.getAsLong();
    if (m != null && bytesRead != null) {
      b += ((MutableCounterLong) bytesRead.get(m)).value();
    }
    if (m != null && bytesWritten != null) {
      b += ((MutableCounterLong) bytesWritten.get(m)).value();
    }
    return b;
  }

  private int liveNodesInOwnRack() throws java.io.IOException {
    String self = WideEcDataNodePlugin.nameOf(dn);
    List<DatanodeInfo> nodes = live.get();
    String rack = nodes.stream().filter(d -> d.getXferAddr().equals(self)).map(DatanodeInfo::getNetworkLocation)
        .findFirst().orElse(null);
    return rack == null ? nodesInRack : (int) nodes.stream().filter(d -> rack.equals(d.getNetworkLocation())).count();
  }

  private void apply() {
    BackgroundCaps c = caps;
    throttle.set(c.nodeCap(backoff.factor()), c.rackShare(nodesInRack));
  }

  /** Sets the node cap from the next slice on (bytes/s, 0: none). */
  public void setNodeCap(long bytesPerSecond) {
    caps = caps.withNode(bytesPerSecond);
    apply();
    LOG.info("wide-ec background caps of {}: node cap set to {} bytes/s", WideEcDataNodePlugin.nameOf(dn),
        bytesPerSecond);
  }

  /** Sets the rack's uplink cap (this node takes its share) from the next slice on (bytes/s, 0: none). */
  public void setRackCap(long bytesPerSecond) {
    caps = caps.withRack(bytesPerSecond);
    apply();
    LOG.info("wide-ec background caps of {}: rack uplink cap set to {} bytes/s ({} live nodes share it)",
        WideEcDataNodePlugin.nameOf(dn), bytesPerSecond, nodesInRack);
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

  int nodesInRack() {
    return nodesInRack;
  }

  void close() {
    sampler.shutdownNow();
  }
}
