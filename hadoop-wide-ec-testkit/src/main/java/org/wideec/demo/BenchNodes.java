package org.wideec.demo;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.wideec.engine.CodewordSinks;
import org.wideec.protocol.RapidRaidStepRequest;
import org.wideec.topology.Site;
import org.wideec.repair.EndpointResolver;
import org.wideec.engine.StepService;
import org.wideec.repair.MemoryUnitStore;
import org.wideec.engine.RepairCounters;
import org.wideec.repair.ReplicaAccess;
import org.wideec.repair.SliceSink;
import org.wideec.repair.UnitStore;
import org.wideec.topology.Endpoint;
import org.wideec.transport.SliceTransport;
import org.wideec.transport.TransportConf;

/**
 * In-process nodes of the encode, archive and update benchmarks: a real slice transport each, serving steps
 * (StepService) and RapidRAID pipeline positions (their codewords are kept nowhere: the position reports each one's
 * CRC32C, which the benchmark checks), units in memory, bytes counted in and across racks.
 */
final class BenchNodes implements AutoCloseable {
  private final TransportConf conf;
  private final Map<String, SliceTransport> transports = new LinkedHashMap<>();
  private final ExecutorService workers = Executors.newCachedThreadPool();
  final AtomicLong crossRack = new AtomicLong();
  final AtomicLong inRack = new AtomicLong();
  private final RepairCounters counters = new RepairCounters() {
    @Override
    public void sliceSent(int bytes, boolean cross) {
      (cross ? crossRack : inRack).addAndGet(bytes);
    }
  };

  /** A codeword stored nowhere (its position reports its CRC32C). */
  private static final CodewordSinks DISCARD = step -> SliceSink.DISCARD;

  BenchNodes(TransportConf conf) {
    this.conf = conf;
  }

  void start(Site site, Map<Long, byte[]> units) throws IOException {
    SliceTransport t = new SliceTransport(conf, site.node(), counters, workers);
    transports.put(site.node(), t);
    UnitStore store = new MemoryUnitStore(site.node(), units);
    t.start(new StepService(t, store, ReplicaAccess.OPEN, DISCARD, counters));
  }

  SliceTransport transport(String node) throws IOException {
    SliceTransport t = transports.get(node);
    if (t == null) {
      throw new IOException("no node " + node);
    }
    return t;
  }

  EndpointResolver resolver() {
    return loc -> new Endpoint("127.0.0.1", transport(loc.node()).port(), loc.site());
  }

  void resetCounters() {
    crossRack.set(0);
    inRack.set(0);
  }

  @Override
  public void close() {
    transports.values().forEach(SliceTransport::close);
    workers.shutdownNow();
  }
}
