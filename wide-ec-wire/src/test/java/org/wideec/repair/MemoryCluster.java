package org.wideec.repair;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;
import org.wideec.transport.SliceTransport;
import org.wideec.transport.TransportConf;
import org.wideec.engine.StepService;
import org.wideec.engine.RepairEngine;
import org.wideec.engine.RepairCounters;

/** Real slice transports on loopback, one per node, each serving units held in memory (block id = unit). */
final class MemoryCluster implements AutoCloseable {
  static final String POOL = "BP-test";

  /** One node's counters. */
  static final class Counters implements RepairCounters {
    final AtomicLong inRack = new AtomicLong();
    final AtomicLong crossRack = new AtomicLong();
    final AtomicLong slices = new AtomicLong();
    final AtomicLong localReads = new AtomicLong();

    @Override
    public void sliceSent(int bytes, boolean cross) {
      (cross ? crossRack : inRack).addAndGet(bytes);
      slices.incrementAndGet();
    }

    @Override
    public void readLocally(long bytes) {
      localReads.addAndGet(bytes);
    }
  }

  final Map<String, SliceTransport> transports = new HashMap<>();
  final Map<String, StepService> steps = new HashMap<>();
  final Map<String, String> racks = new HashMap<>();
  final Map<String, Counters> counters = new HashMap<>();
  final Map<String, Map<Long, byte[]>> stored = new HashMap<>();
  private final ExecutorService workers = Executors.newCachedThreadPool();
  private final TransportConf conf;

  MemoryCluster(TransportConf conf) {
    this.conf = conf;
  }

  /** Starts a node holding the given units (unit -> bytes). */
  void node(String node, String rack, Map<Integer, byte[]> units) throws IOException {
    start(node, rack, units, null, workers, ReplicaAccess.OPEN);
  }

  /** Starts a node holding the given units that serves only what {@code access} lets a peer read. */
  void node(String node, String rack, Map<Integer, byte[]> units, ReplicaAccess access) throws IOException {
    start(node, rack, units, null, workers, access);
  }

  /** Starts a node holding the given units whose requests run on {@code helpers}. */
  void node(String node, String rack, Map<Integer, byte[]> units, ExecutorService helpers) throws IOException {
    start(node, rack, units, null, helpers, ReplicaAccess.OPEN);
  }

  /**
   * Starts a node that also serves RapidRAID pipeline positions (pieces by block id = piece), storing codewords in
   * {@code sinks}.
   */
  void rapidRaidNode(String node, String rack, Map<Integer, byte[]> pieces,
      org.wideec.engine.CodewordSinks sinks) throws IOException {
    start(node, rack, pieces, sinks, workers, ReplicaAccess.OPEN);
  }

  /** A node's transport serving its units by block id = unit; RapidRAID positions too when {@code sinks} is set. */
  private void start(String node, String rack, Map<Integer, byte[]> units, org.wideec.engine.CodewordSinks sinks,
      ExecutorService helpers, ReplicaAccess access) throws IOException {
    Map<Long, byte[]> blocks = new ConcurrentHashMap<>();
    units.forEach((u, b) -> blocks.put((long) u, b));
    stored.put(node, blocks);
    Counters c = new Counters();
    counters.put(node, c);
    SliceTransport t = new SliceTransport(conf, node, c, helpers);
    racks.put(node, rack);
    UnitStore store = new MemoryUnitStore(node, blocks);
    StepService service = new StepService(t, store, access, sinks, c);
    t.start(service);
    transports.put(node, t);
    steps.put(node, service);
  }

  EndpointResolver resolver() {
    return loc -> {
      SliceTransport t = transports.get(loc.node());
      if (t == null) {
        throw new IOException("no node " + loc.node());
      }
      return new Endpoint("127.0.0.1", t.port(), loc.site());
    };
  }

  RepairEngine engine(String node, int attempts) {
    return new RepairEngine(transports.get(node), resolver(), counters.get(node), attempts);
  }

  UnitLocation where(String node) {
    return new UnitLocation(-1, new Site(node, racks.get(node)));
  }

  void kill(String node) {
    transports.get(node).close();
  }

  long crossRackBytes() {
    return counters.values().stream().mapToLong(c -> c.crossRack.get()).sum();
  }

  long inRackBytes() {
    return counters.values().stream().mapToLong(c -> c.inRack.get()).sum();
  }

  static Map<Integer, BlockRef> blocks(int n, int length) {
    Map<Integer, BlockRef> m = new HashMap<>();
    for (int u = 0; u < n; u++) {
      m.put(u, new BlockRef(POOL, u, 1, length));
    }
    return m;
  }

  /** Sink collecting the unit in memory. */
  static class MemorySink implements SliceSink {
    final byte[] bytes;
    final List<Long> offsets = new ArrayList<>();
    boolean finished;
    boolean aborted;

    MemorySink(long length) {
      bytes = new byte[(int) length];
    }

    @Override
    public void write(long offset, byte[] data, int off, int len) {
      offsets.add(offset);
      System.arraycopy(data, off, bytes, (int) offset, len);
    }

    @Override
    public void finish() {
      finished = true;
    }

    @Override
    public void abort() {
      aborted = true;
    }
  }

  @Override
  public void close() {
    transports.values().forEach(SliceTransport::close);
    workers.shutdownNow();
  }
}
