package org.wideec.client;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.WideEcClientAccess;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.datanode.GroupRepair;
import org.wideec.datanode.JmxEndpointResolver;
import org.wideec.repair.DegradedReadShape;
import org.wideec.repair.EndpointResolver;
import org.wideec.engine.ChainWarmup;
import org.wideec.engine.RepairCounters;
import org.wideec.engine.RepairEngine;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.SliceSink;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;
import org.wideec.config.ConfigValues;
import org.wideec.topology.Endpoint;
import org.wideec.topology.hdfs.DataNodeSites;
import org.wideec.transport.SliceTransport;
import org.wideec.transport.TransportConf;

/**
 * The client's side of pipelined degraded reads (ECPipe §3.2): the client is the requestor of a repair of just the
 * rows it reads. The lost unit's helpers (its local group first, as the code's repair plan says) form one chain,
 * grouped by rack so that partial sums are added inside each rack before they cross (ECWide §4.1); each helper reads
 * its rows, multiplies, adds what its upstream sent and forwards, slice by slice, and the client receives the rebuilt
 * rows once, from the chain's end: one range's worth of bytes on its link instead of one per helper. When the helpers
 * sit in at most two racks besides the client's, each rack's chain sends its partial sum straight to the client
 * instead (a rack star, {@link DegradedReadShape}; {@link #RACK_STAR} turns it off). Every helper is asked with the
 * block token the NameNode gave this client for its replica (a client holds no cluster secret).
 *
 * <p>One per FileSystem; its slice transport starts with the first chain and stops with the FileSystem. Any
 * failure is an IOException, and the caller then reads by direct decode.
 */
final class RepairChains implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(RepairChains.class);
  /** How a client reads a lost unit's range: {@code pipelined} (default) or {@code direct}. */
  static final String MODE = "wide-ec.client.degraded-read";

  enum Mode {
    PIPELINED, DIRECT
  }

  /** A pipelined chain ordered rack by rack, the requestor's rack last (ECPipe §3.2 with ECWide §4.1's in-rack sums). */
  static final RepairScheme SCHEME = RepairScheme.RACK_AGGREGATED;
  /**
   * Whether a read whose helpers sit in at most two racks besides the client's has each rack send its partial sum
   * straight to the client ({@link DegradedReadShape}) instead of one chain through every rack; a flat network,
   * where the client's NIC is no faster than a rack's uplink, keeps the chain.
   */
  static final String RACK_STAR = "wide-ec.client.degraded-read.rack-star";
  static final boolean RACK_STAR_DEFAULT = true;
  /** The first chain, and one restart without the helper to blame (ECPipe §3.2); then direct decode. */
  static final int ATTEMPTS = 2;
  /**
   * A chain of m helpers moving a range in s slices takes (1 + (m - 1) / s) times as long as reading the range from
   * one node (ECPipe §3.2): every hop after the first waits for a whole slice before it adds and forwards it, so the
   * chain fills in (m - 1) slice times. 32 slices (32 KiB for a 1 MiB cell) keep a five-helper local group within
   * about 1.13 of a normal read on paper. On the real-process cluster (six-helper Azure-LRC 12+2+2 chains over 25 MB/s
   * node links, steady state) 32 and 64 slices took the same time (132 and 129-131 ms) while the host's CPU during a
   * read fell from 74-76% to 62%, every hop handling half the frames, MACs and credits; 16 slices took 144 ms at 52%,
   * 128 slices of 8 KiB were slower again (benchmarks/HISTORY.md, 2026-11-27).
   */
  static final String SLICES = "wide-ec.client.degraded-read.slices";
  static final int TARGET_SLICES = 32;
  /** Smaller slices cost more per byte than they save in fill time (a frame, its MAC and a credit each). */
  static final int MIN_SLICE = 8 * 1024;
  /** How long a DataNode whose slice port could not be found is left out of chains. */
  static final long UNREACHABLE_MS = 60_000;
  /**
   * How long a degraded read waits for its chain before it also reads the range by direct decode, and takes whichever
   * answers first (HDFS's hedged reads, dfs.client.hedged.read.threshold.millis, race a slow replica the same way); 0
   * waits for the chain. A chain's hops run one after another, so when recovery traffic queues on the rack uplinks
   * every hop's connection set-up and every slice pays those queues in turn, while direct decode pays them once, in
   * parallel: on the real-process cluster a chain of 12 helpers over five racks took 11 to 15 s during a rack's
   * recovery, where the stock client's direct decode took 1.2 to 2.0 s.
   */
  static final String HEDGE_MS = "wide-ec.client.degraded-read.hedge.ms";
  static final long HEDGE_MS_DEFAULT = 500;

  private final Configuration conf;
  private final DegradedReadWarmup warmup;
  private final long hedgeMs;
  private final boolean rackStar;
  private final int slices;
  private final ChainOutlook outlook;
  private final Map<String, Long> unreachable = new ConcurrentHashMap<>();
  private final AtomicBoolean fellBackBefore = new AtomicBoolean();
  private final ClientSlicePort port;

  RepairChains(Configuration conf) {
    this.conf = new Configuration(conf);
    this.port = new ClientSlicePort(this.conf);
    this.hedgeMs = ConfigValues.longAtLeast(conf, HEDGE_MS, HEDGE_MS_DEFAULT, 0);
    this.rackStar = ConfigValues.bool(conf, RACK_STAR, RACK_STAR_DEFAULT);
    this.slices = ConfigValues.intIn(conf, SLICES, TARGET_SLICES, 1, 1 << 20);
    this.outlook = new ChainOutlook(ConfigValues.longAtLeast(conf, ChainOutlook.DIRECT_AFTER_OVERTAKEN_MS,
        ChainOutlook.DIRECT_AFTER_OVERTAKEN_MS_DEFAULT, 0), System::nanoTime);
    this.warmup = DegradedReadWarmup.start(this.conf);
  }

  /** The warm-up's result, waiting up to {@code timeoutMs} for it; null when it is off, failed or still running. */
  ChainWarmup.Result warmup(long timeoutMs) throws InterruptedException {
    return warmup == null ? null : warmup.await(timeoutMs);
  }

  /** Whether degraded reads ask a chain first now, from how the last chain fared. */
  ChainOutlook outlook() {
    return outlook;
  }

  /** Milliseconds a degraded read gives its chain before it also reads by direct decode; 0: no hedging. */
  long hedgeMs() {
    return hedgeMs;
  }

  static Mode mode(Configuration conf) {
    return ConfigValues.oneOf(conf, MODE, Mode.PIPELINED);
  }

  /**
   * Rebuilds rows [rowFrom, rowTo) of lost unit {@code unit} of a block group through a chain of DataNodes.
   *
   * @return exactly those rows
   * @throws IOException when no chain can be run or the chain fails (the caller reads by direct decode)
   */
  ByteBuffer rebuild(StripedFile file, LocatedStripedBlock group, int unit, long rowFrom, long rowTo) throws IOException {
    return rebuild(file, group, unit, rowFrom, rowTo, new ChainProgress());
  }

  /** The same, telling {@code progress} when the helpers are asked and as the rebuilt rows arrive. */
  ByteBuffer rebuild(StripedFile file, LocatedStripedBlock group, int unit, long rowFrom, long rowTo,
      ChainProgress progress) throws IOException {
    BlockGroupLayout layout = file.layout(group);
    // Helpers read whole checksum chunks (they verify them): widen the rows to chunks, trim after.
    int chunk = Math.max(1, file.client().getConf().getDefaultChecksumOpt().getBytesPerChecksum());
    long offset = rowFrom / chunk * chunk;
    long end = Math.min(layout.internalLength(unit), (rowTo + chunk - 1) / chunk * chunk);
    if (rowFrom < 0 || rowTo > end || rowFrom >= rowTo) {
      throw new IllegalArgumentException(file.src() + ": rows [" + rowFrom + ", " + rowTo + ") of unit " + unit
          + " are outside its " + layout.internalLength(unit) + " bytes");
    }
    if (!hasTokens(group) && !conf.getTrimmed(TransportConf.AUTH, "hmac").equalsIgnoreCase("none")) {
      throw new IOException("block tokens are off (dfs.block.access.token.enable), so this client has nothing to "
          + "prove to the DataNodes' slice ports (" + TransportConf.AUTH + "=hmac)");
    }
    long began = System.nanoTime();
    SliceTransport t = port.transport();
    List<IOException> unreachableHelpers = new ArrayList<>();
    StripeRepair repair = reachableRepair(file, group, unit, unreachableHelpers);
    if (rackStar) {
      repair = repair.withScheme(DegradedReadShape.of(repair, port.self().node(), port.self().rack()));
    }
    int length = (int) (end - offset);
    int slice = sliceBytes(length, slices, chunk, t.conf().sliceBytes());
    RangeSink sink = new RangeSink(new byte[length], progress);
    RepairEngine engine = new RepairEngine(t, resolver(nodesOf(group)), RepairCounters.NONE, ATTEMPTS);
    long planned = System.nanoTime();
    RepairEngine.Result result;
    progress.asked(length);
    try {
      result = engine.repair(repair, port.self(), (u, len) -> sink.open(len), slice, offset, length);
    } catch (IOException e) {
      unreachableHelpers.forEach(e::addSuppressed);
      throw e;
    }
    long done = System.nanoTime();
    ChainTiming timing = new ChainTiming(result.helpers(), result.attempts(), planned - began,
        sink.firstSliceAt - began, done - began);
    timing.countInto(file.counters());
    LOG.debug("{}: rows [{}, {}) of unit {} of block group {} rebuilt by a chain: {}", file.src(), rowFrom, rowTo, unit,
        group.getBlock(), timing);
    file.counters().bytesFromChains.addAndGet(length);
    return ByteBuffer.wrap(sink.bytes, (int) (rowFrom - offset), (int) (rowTo - rowFrom)).slice();
  }

  /** Whether the NameNode gave block tokens with the group (it does whenever block tokens are on). */
  private static boolean hasTokens(LocatedStripedBlock group) {
    org.apache.hadoop.security.token.Token<?>[] tokens = group.getBlockTokens();
    return tokens != null && tokens.length > 0 && tokens[0] != null && tokens[0].getIdentifier().length > 0;
  }

  /** Logs a read that fell back to direct decode: the first at INFO, the rest at DEBUG (the counters count them all). */
  void fellBack(String src, LocatedStripedBlock group, int unit, Exception why) {
    if (!fellBackBefore.getAndSet(true)) {
      LOG.info("{}: pipelined degraded read of unit {} of block group {} failed, reading it by direct decode ({}); "
          + "later fallbacks are logged at DEBUG and counted in ReadPathCounters.pipelinedFallbacks", src, unit,
          group.getBlock(), why.toString());
    } else {
      LOG.debug("{}: pipelined degraded read of unit {} of block group {} failed, reading it by direct decode", src,
          unit, group.getBlock(), why);
    }
  }

  /** The slice for a range: about {@code slices} of them, whole checksum chunks, within the transport's. */
  static int sliceBytes(long length, int slices, int chunk, int max) {
    long want = Math.max(MIN_SLICE, (length + slices - 1) / slices);
    long slice = (want + chunk - 1) / chunk * chunk;
    return (int) Math.max(chunk, Math.min(slice, max / chunk * chunk));
  }

  /**
   * The repair of {@code unit} with only the survivors whose slice port is known: a DataNode without one (no worker,
   * an older version) cannot be a helper, and planning around it up front costs no failed attempt.
   */
  private StripeRepair reachableRepair(StripedFile file, LocatedStripedBlock group, int unit,
      List<IOException> unreachableHelpers) throws IOException {
    byte[] indices = group.getBlockIndices();
    DatanodeInfo[] locations = group.getLocations();
    // Every survivor's /jmx page at once: one after another, a wide group's look-ups cost a dozen round trips through
    // the rack uplinks, seconds while a recovery fills them (they are remembered afterwards).
    ExecutorService pool = WideEcClientAccess.stripedReadsPool(file.client());
    Map<Integer, Future<Endpoint>> lookups = new LinkedHashMap<>();
    for (int i = 0; i < indices.length; i++) {
      if (indices[i] != unit) {
        DatanodeInfo dn = locations[i];
        lookups.put(i, pool.submit(() -> endpoint(dn)));
      }
    }
    List<Integer> units = new ArrayList<>();
    List<DatanodeInfo> at = new ArrayList<>();
    for (Map.Entry<Integer, Future<Endpoint>> l : lookups.entrySet()) {
      try {
        l.getValue().get();
        units.add((int) indices[l.getKey()]);
        at.add(locations[l.getKey()]);
      } catch (ExecutionException e) {
        unreachableHelpers.add(e.getCause() instanceof IOException io ? io : new IOException(e.getCause()));
      } catch (InterruptedException e) {
        lookups.values().forEach(f -> f.cancel(true));
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while finding the slice ports of " + group.getBlock());
      }
    }
    if (units.isEmpty()) {
      IOException none = new IOException(file.src() + ": no DataNode of block group " + group.getBlock()
          + " has a slice port this client can find");
      unreachableHelpers.forEach(none::addSuppressed);
      throw none;
    }
    GroupRepair g = GroupRepair.of(group.getBlock(), file.policy(), units.stream().mapToInt(Integer::intValue).toArray(),
        at.toArray(new DatanodeInfo[0]), new int[] {unit}, SCHEME, GroupRepair.tokensOf(group));
    if (g.repair() == null) {
      throw new IOException(file.src() + ": unit " + unit + " of block group " + group.getBlock() + " is not lost");
    }
    return g.repair();
  }

  private static Map<String, DatanodeInfo> nodesOf(LocatedStripedBlock group) {
    Map<String, DatanodeInfo> m = new HashMap<>();
    for (DatanodeInfo d : group.getLocations()) {
      m.put(d.getXferAddr(), d);
    }
    return m;
  }

  /** Slice endpoints from the DataNodes' /jmx pages, with failures remembered for {@link #UNREACHABLE_MS}. */
  private EndpointResolver resolver(Map<String, DatanodeInfo> nodes) {
    return new EndpointResolver() {
      @Override
      public Endpoint resolve(UnitLocation loc) throws IOException {
        DatanodeInfo dn = nodes.get(loc.node());
        if (dn == null) {
          throw new IOException("no DataNode known at " + loc.node());
        }
        return endpoint(dn, loc);
      }

      @Override
      public void forget(String node) {
        JmxEndpointResolver e = port.endpointsOrNull();
        if (e != null) {
          e.forget(node);
        }
      }
    };
  }

  private Endpoint endpoint(DatanodeInfo dn) throws IOException {
    return endpoint(dn, new UnitLocation(-1, DataNodeSites.of(dn)));
  }

  private Endpoint endpoint(DatanodeInfo dn, UnitLocation loc) throws IOException {
    Long until = unreachable.get(dn.getXferAddr());
    if (until != null && until > System.currentTimeMillis()) {
      throw new IOException("the slice port of DataNode " + dn.getXferAddr() + " was not found less than "
          + UNREACHABLE_MS / 1000 + " s ago");
    }
    try {
      Endpoint e = port.endpoints().resolve(loc, dn);
      unreachable.remove(dn.getXferAddr());
      return e;
    } catch (IOException e) {
      unreachable.put(dn.getXferAddr(), System.currentTimeMillis() + UNREACHABLE_MS);
      throw e;
    }
  }

  @Override
  public void close() {
    port.close();
  }

  /** Collects one attempt's rebuilt range; complete only when every byte arrived. */
  private static final class RangeSink implements SliceSink {
    final byte[] bytes;
    /** When the first slice of the last attempt arrived (System.nanoTime). */
    volatile long firstSliceAt;
    private final ChainProgress progress;
    private long expected;
    private long next;

    RangeSink(byte[] bytes, ChainProgress progress) {
      this.bytes = bytes;
      this.progress = progress;
    }

    SliceSink open(long length) throws IOException {
      if (length != bytes.length) {
        throw new IOException("the chain offered " + length + " bytes for a range of " + bytes.length);
      }
      expected = length;
      next = 0;
      return this;
    }

    @Override
    public void write(long offset, byte[] data, int off, int len) throws IOException {
      if (offset != next || offset + len > expected) {
        throw new IOException("the chain sent bytes [" + offset + ", " + (offset + len) + ") after " + next + " of "
            + expected);
      }
      long now = System.nanoTime();
      if (offset == 0) {
        firstSliceAt = now;
      }
      System.arraycopy(data, off, bytes, (int) offset, len);
      next = offset + len;
      progress.arrived(offset, len, now);
    }

    @Override
    public void finish() throws IOException {
      if (next != expected) {
        throw new IOException("the chain ended after " + next + " of " + expected + " bytes");
      }
    }

    @Override
    public void abort() {
      next = 0;
    }
  }
}
