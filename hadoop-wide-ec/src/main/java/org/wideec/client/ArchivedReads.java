package org.wideec.client;

import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.protocol.ArchivedReadRequest;
import org.wideec.repair.BlockRef;
import org.wideec.repair.UnitLocation;
import org.wideec.config.ConfigValues;
import org.wideec.topology.Endpoint;
import org.wideec.topology.hdfs.DataNodeSites;
import org.wideec.transport.Frame;
import org.wideec.transport.PeerFailure;
import org.wideec.transport.PeerStream;
import org.wideec.transport.SliceTransport;
import org.wideec.transport.hdfs.TokenBytes;
import org.wideec.transport.TransportConf;

/**
 * The client's side of degraded reads of archived files (DESIGN.md §3.2): a range of a block the NameNode lists with
 * no replica is asked of one DataNode, with the READ token the NameNode gave this client for that block; the
 * DataNode rebuilds it through a chain of the stripe's other members and sends the range once. The client never
 * learns the stripe: it may not read the other members (other users' files, parity in the owner-only system
 * directory), and a reader of k - 1 members and a parity could solve for a member it may not read.
 *
 * <p>The DataNode asked is one holding another block of the same file (the NameNode sorted those nearest first), else
 * a live one from the NameNode's web UI, this client's rack first. A DataNode that cannot be reached is replaced
 * (at most {@link #DATANODES_TRIED}); a refusal or a failed rebuild is final. One per FileSystem.
 */
final class ArchivedReads implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(ArchivedReads.class);
  /** Whether WideEcFileSystem reads missing blocks of archived files through a DataNode (default true). */
  static final String ENABLED = "wide-ec.client.archived-reads";
  static final int DATANODES_TRIED = 3;
  /** The slice the range comes back in (whole checksum chunks of the default 512 bytes). */
  static final int SLICE = 64 * 1024;

  private final Configuration conf;
  private final URI fsUri;
  private final AtomicBoolean toldOff = new AtomicBoolean();
  private final ClientSlicePort port;
  private LiveDataNodes live;
  private org.apache.hadoop.hdfs.DFSClient failFast;

  ArchivedReads(Configuration conf, URI fsUri) {
    this.conf = new Configuration(conf);
    this.fsUri = fsUri;
    this.port = new ClientSlicePort(this.conf);
  }

  static boolean enabled(Configuration conf) {
    return ConfigValues.bool(conf, ENABLED, true);
  }

  /**
   * Bytes [offset, offset + length) of a block listed with no replica, rebuilt by a DataNode.
   *
   * @param nearby DataNodes holding other blocks of the file, nearest first
   * @throws IOException naming the file and block when no DataNode could rebuild it (the caller reads as stock)
   */
  ByteBuffer read(String src, long fileInode, LocatedBlock block, long offset, int length, List<DatanodeInfo> nearby,
      ReadPathCounters counters) throws IOException {
    ExtendedBlock b = block.getBlock();
    byte[] token = TokenBytes.of(block.getBlockToken());
    String where = src + ": block " + b.getBlockId() + " (no live replica)";
    if (token.length == 0 && !conf.getTrimmed(TransportConf.AUTH, "hmac").equalsIgnoreCase("none")) {
      throw new IOException(where + ": block tokens are off (dfs.block.access.token.enable), so this client has nothing"
          + " to prove to a DataNode's slice port (" + TransportConf.AUTH + "=hmac)");
    }
    ArchivedReadRequest req = new ArchivedReadRequest(fileInode, new BlockRef(b.getBlockPoolId(), b.getBlockId(),
        b.getGenerationStamp(), b.getNumBytes(), token), offset, length, SLICE);
    SliceTransport t = transport();
    List<IOException> tried = new ArrayList<>();
    for (DatanodeInfo dn : candidates(nearby)) {
      if (tried.size() >= DATANODES_TRIED) {
        break;
      }
      try {
        ByteBuffer out = ask(t, dn, req);
        counters.archivedReads.incrementAndGet();
        counters.bytesFromArchivedReads.addAndGet(length);
        return out;
      } catch (PeerFailure e) {
        if (e.culprit() == null || !e.culprit().equals(dn.getXferAddr())) {
          IOException refused = new IOException(where + ": DataNode " + dn.getXferAddr() + " did not rebuild bytes ["
              + offset + ", +" + length + "): " + e.getMessage(), e);
          tried.forEach(refused::addSuppressed);
          throw refused;
        }
        port.endpoints().forget(dn.getXferAddr());
        tried.add(e);
      } catch (IOException e) {
        tried.add(e);
      }
    }
    IOException none = new IOException(where + ": no DataNode could be asked to rebuild it (tried " + tried.size() + ")");
    tried.forEach(none::addSuppressed);
    throw none;
  }

  /** Asks the DataNode where it listens; where it listens now if that moved (it restarted on a new slice port). */
  private ByteBuffer ask(SliceTransport t, DatanodeInfo dn, ArchivedReadRequest req) throws IOException {
    try {
      return port.endpoints().dial(dn, DataNodeSites.of(dn), at -> ask(t, dn, at, req));
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted reading " + req.block() + " from " + dn.getXferAddr());
    }
  }

  private ByteBuffer ask(SliceTransport t, DatanodeInfo dn, Endpoint e, ArchivedReadRequest req) throws IOException {
    UnitLocation self = port.self();
    long id = ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
    byte[] out = new byte[(int) req.length()];
    try (PeerStream s = t.open(e, self.node(), self.rack(), id, req.toBytes(), t.credentialFor(req.block().token()),
        t.windowFor(id, req.sliceBytes(), !self.rack().equals(e.rack())))) {
      for (int i = 0; i < req.slices(); i++) {
        int n = req.sliceLength(i);
        Frame f = s.next(i, n);
        try {
          f.payload().getBytes(f.payload().readerIndex(), out, i * req.sliceBytes(), n);
        } finally {
          f.release();
        }
        s.credit();
      }
      s.awaitEnd(); // bytes count only once the DataNode ended cleanly (a late ERROR voids them)
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted reading " + req.block() + " from " + dn.getXferAddr());
    }
    return ByteBuffer.wrap(out);
  }

  /** The file's own DataNodes first, then the live ones (this client's rack first), each once. */
  private List<DatanodeInfo> candidates(List<DatanodeInfo> nearby) {
    Map<String, DatanodeInfo> out = new LinkedHashMap<>();
    nearby.forEach(d -> out.putIfAbsent(d.getXferAddr(), d));
    if (out.size() < DATANODES_TRIED) {
      try {
        List<DatanodeInfo> all = new ArrayList<>(live().get());
        java.util.Collections.shuffle(all);
        String rack = port.self().rack();
        all.sort(java.util.Comparator.comparing(d -> !d.getNetworkLocation().equals(rack)));
        all.forEach(d -> out.putIfAbsent(d.getXferAddr(), d));
      } catch (IOException e) {
        LOG.debug("no live DataNode list: {}", e.toString());
      }
    }
    return new ArrayList<>(out.values());
  }

  /**
   * Opens {@code src} again through a client whose stock reads give up on a block after its listed holders failed
   * once, without the stock reader's rounds of asking the NameNode again (several seconds: a random wait of up to
   * 3 s, then 3-9 s, then 6-15 s). An archived block has one holder, and the NameNode keeps listing a DataNode that
   * died for 10.5 minutes with Hadoop's defaults, so those rounds only delay the rebuild; HDFS's striped reader, too,
   * moves to the other units as soon as one fails.
   */
  org.apache.hadoop.hdfs.DFSInputStream openFailFast(String src, int bufferSize) throws IOException {
    org.apache.hadoop.hdfs.DFSClient c;
    synchronized (this) {
      if (failFast == null) {
        Configuration ff = new Configuration(conf);
        ff.setInt(org.apache.hadoop.hdfs.client.HdfsClientConfigKeys.DFS_CLIENT_MAX_BLOCK_ACQUIRE_FAILURES_KEY, 0);
        failFast = new org.apache.hadoop.hdfs.DFSClient(fsUri, ff);
      }
      c = failFast;
    }
    return c.open(src, bufferSize, true);
  }

  /** Logs, once per FileSystem, that missing archived blocks are read as stock. */
  void fellBack(String src, long blockId, IOException why) {
    if (!toldOff.getAndSet(true)) {
      LOG.warn("{}: block {} has no live replica and could not be rebuilt through a DataNode ({}); reading it as stock"
          + " HDFS (a missing block). Later failures are logged at DEBUG.", src, blockId, why.getMessage());
    } else {
      LOG.debug("{}: block {} could not be rebuilt through a DataNode", src, blockId, why);
    }
  }

  private synchronized LiveDataNodes live() {
    return live;
  }

  /** The slice port, started on first use, and with it the list of live DataNodes. */
  private synchronized SliceTransport transport() throws IOException {
    SliceTransport t = port.transport();
    if (live == null) {
      live = new LiveDataNodes(conf, fsUri, t.conf().connectTimeoutMs());
    }
    return t;
  }

  @Override
  public synchronized void close() {
    port.close();
    if (failFast != null) {
      try {
        failFast.close();
      } catch (IOException e) {
        LOG.debug("closing the fail-fast client: {}", e.toString());
      }
      failFast = null;
    }
    if (live != null) {
      live.close();
      live = null;
    }
  }
}
