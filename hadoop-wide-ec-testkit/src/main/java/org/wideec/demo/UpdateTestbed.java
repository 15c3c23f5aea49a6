package org.wideec.demo;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.wideec.coder.ErasureCoder;
import org.wideec.placement.PlacementPlan;
import org.wideec.protocol.StepRequest;
import org.wideec.repair.BlockRef;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;
import org.wideec.transport.Frame;
import org.wideec.transport.PeerStream;
import org.wideec.transport.SliceTransport;
import org.wideec.transport.TrafficShaper;
import org.wideec.transport.TransportConf;

/**
 * The seed's testbed in one process (RackCU §V-C): one node per unit of a stripe, each a real slice transport
 * serving steps from the chunks it holds in memory, racks as the placement gives them. A chunk crosses from one node
 * to another only as a step stream the receiver asks for, so the transport's counters see every byte an update moves
 * and the shaper delays it on the emulated node and rack links.
 */
final class UpdateTestbed implements AutoCloseable {
  private static final long TEMP_IDS = 1L << 48;
  private final PlacementPlan placement;
  private final int chunkBytes;
  private final BenchNodes nodes;
  private final Site[] siteOfUnit;
  private final Map<String, Map<Long, byte[]>> stores = new ConcurrentHashMap<>();
  private final AtomicLong nextTemp = new AtomicLong(TEMP_IDS);

  UpdateTestbed(PlacementPlan placement, int chunkBytes) throws IOException {
    this.placement = placement;
    this.chunkBytes = chunkBytes;
    // Frames of one chunk; the window lets a multi-chunk transfer stream without waiting for credits.
    this.nodes = new BenchNodes(new TransportConf("127.0.0.1", 0, null, chunkBytes, 16, 4 << 20, 300_000, 10_000,
        TrafficShaper.OFF, null));
    int n = placement.code().n();
    siteOfUnit = new Site[n];
    try {
      for (int u = 0; u < n; u++) {
        siteOfUnit[u] = new Site("n" + u, "/r" + placement.rackOf(u));
        Map<Long, byte[]> store = new ConcurrentHashMap<>();
        stores.put(siteOfUnit[u].node(), store);
        nodes.start(siteOfUnit[u], store);
      }
    } catch (IOException | RuntimeException e) {
      nodes.close();
      throw e;
    }
  }

  PlacementPlan placement() {
    return placement;
  }

  int chunkBytes() {
    return chunkBytes;
  }

  Site siteOf(int unit) {
    return siteOfUnit[unit];
  }

  /** A rack's relay (RackCU §IV's proxy): the node of the rack's first unit. */
  Site relayOf(int rack) {
    return siteOfUnit[placement.units(rack)[0]];
  }

  /** Bytes of slices the transports sent across racks since the last reset. */
  long crossRackBytes() {
    return nodes.crossRack.get();
  }

  long inRackBytes() {
    return nodes.inRack.get();
  }

  void resetCounters() {
    nodes.resetCounters();
  }

  /** Drops every chunk (before the next volume's stripes). */
  void clear() {
    stores.values().forEach(Map::clear);
  }

  /** Every unit of a stripe: random data, parities encoded, each on its own node. */
  void writeStripe(long stripe, Random rnd) {
    int k = placement.code().k();
    int n = placement.code().n();
    byte[][] units = new byte[n][chunkBytes];
    for (int d = 0; d < k; d++) {
      rnd.nextBytes(units[d]);
    }
    encode(units);
    for (int u = 0; u < n; u++) {
      put(siteOfUnit[u], unitId(stripe, u), units[u]);
    }
  }

  /** The stripe's units as their nodes hold them now. */
  byte[][] stripe(long stripe) {
    byte[][] units = new byte[placement.code().n()][];
    for (int u = 0; u < units.length; u++) {
      units[u] = get(siteOfUnit[u], unitId(stripe, u));
    }
    return units;
  }

  /** Whether every parity of the stripe equals a fresh encode of its data as the nodes hold it. */
  boolean consistent(long stripe) {
    byte[][] units = stripe(stripe);
    byte[][] fresh = new byte[units.length][];
    for (int u = 0; u < units.length; u++) {
      fresh[u] = u < placement.code().k() ? units[u] : new byte[chunkBytes];
    }
    encode(fresh);
    for (int p = placement.code().k(); p < units.length; p++) {
      if (!java.util.Arrays.equals(units[p], fresh[p])) {
        return false;
      }
    }
    return true;
  }

  private void encode(byte[][] units) {
    int k = placement.code().k();
    ByteBuffer[] data = new ByteBuffer[k];
    ByteBuffer[] parity = new ByteBuffer[units.length - k];
    for (int u = 0; u < units.length; u++) {
      if (u < k) {
        data[u] = ByteBuffer.wrap(units[u]);
      } else {
        parity[u - k] = ByteBuffer.wrap(units[u]);
      }
    }
    ErasureCoder.best(placement.code()).encode(data, parity);
  }

  static long unitId(long stripe, int unit) {
    return stripe * 256 + unit;
  }

  byte[] get(Site node, long id) {
    byte[] b = stores.get(node.node()).get(id);
    if (b == null) {
      throw new IllegalStateException(node.node() + " holds no chunk " + id);
    }
    return b;
  }

  void put(Site node, long id, byte[] chunk) {
    stores.get(node.node()).put(id, chunk);
  }

  /**
   * Moves chunks from one node to another as the receiver asks for them: the sender keeps them, back to back, as one
   * temporary replica, and the receiver reads it as a one-row step of one slice per chunk (a step of coefficient 1,
   * so the bytes arrive as sent). Returns the chunks as received.
   */
  List<byte[]> move(Site from, Site to, List<byte[]> chunks) throws IOException, InterruptedException {
    if (from.node().equals(to.node())) {
      return chunks;
    }
    byte[] replica = new byte[chunks.size() * chunkBytes];
    for (int i = 0; i < chunks.size(); i++) {
      System.arraycopy(chunks.get(i), 0, replica, i * chunkBytes, chunkBytes);
    }
    long id = nextTemp.getAndIncrement();
    Map<Long, byte[]> store = stores.get(from.node());
    store.put(id, replica);
    try {
      SliceTransport t = nodes.transport(to.node());
      Endpoint source = new Endpoint("127.0.0.1", nodes.transport(from.node()).port(), from);
      StepRequest ask = new StepRequest(new BlockRef("bench", id, 1, replica.length), 1, replica.length, chunkBytes, 0,
          1, List.of());
      List<byte[]> received = new ArrayList<>(chunks.size());
      try (PeerStream s = t.open(source, to.node(), to.rack(), id, ask.toBytes())) {
        for (int i = 0; i < chunks.size(); i++) {
          Frame f = s.next(i, chunkBytes);
          try {
            byte[] c = new byte[chunkBytes];
            f.payload().getBytes(f.payload().readerIndex(), c);
            received.add(c);
          } finally {
            f.release();
          }
          s.credit();
        }
        s.awaitEnd();
      }
      return received;
    } finally {
      store.remove(id);
    }
  }

  @Override
  public void close() {
    nodes.close();
  }
}
