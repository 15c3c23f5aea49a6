package org.wideec.datanode;

import io.netty.buffer.ByteBuf;
import java.io.Closeable;
import java.io.IOException;
import java.util.zip.CRC32C;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.StripeMember;
import org.wideec.protocol.ArchivedReadRequest;
import org.wideec.archive.ArchivedReadRepair;
import org.wideec.repair.BlockRef;
import org.wideec.engine.RepairEngine;
import org.wideec.repair.ReplicaAccess;
import org.wideec.repair.SliceSink;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Site;
import org.wideec.transport.Downstream;
import org.wideec.transport.SliceTransport;

/**
 * Serves degraded reads of archived files (DESIGN.md §3.2) on a DataNode's slice port: a client that lost the only
 * replica of a block of an archived file asks this DataNode for a range of it with its READ token for that block.
 * This DataNode checks the token as DataTransferProtocol would, finds the block's stripe in the manifest itself
 * ({@link ArchivedStripeLookup}), mints READ tokens for the other members (a client may not read them: other users'
 * files, parity in the owner-only system directory), rebuilds the range through a chain of them as requestor
 * (ECPipe §3.2) and forwards it to the client slice by slice as it arrives. The client receives that range of the
 * block it may read and nothing else. A retried chain resends nothing already forwarded (the rebuilt bytes are the
 * same); any failure after bytes went out ends the stream with an ERROR, and the client keeps nothing of it.
 *
 * <p>What is checked: every helper verifies its replica's HDFS checksums as it reads and every frame is MACed; a
 * sample of the range is decoded a second time from other helpers (the repair worker's validation); a request for
 * the whole block is compared with the manifest's CRC32C before its stream ends. Members whose block changed since
 * archival are never helpers ({@link ArchivedReadRepair}).
 */
final class ArchivedReadService implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(ArchivedReadService.class);
  private final DataNode dn;
  private final SliceTransport transport;
  private final ReplicaAccess access;
  private final RepairWorkerConf conf;
  private final JmxEndpointResolver endpoints;
  private final RepairMetrics metrics;
  private final ArchivedStripeLookup lookup;
  private final int chunk;
  private final org.wideec.repair.UnusableHelpers unusable;

  ArchivedReadService(DataNode dn, SliceTransport transport, ReplicaAccess access, RepairWorkerConf conf,
      JmxEndpointResolver endpoints, RepairMetrics metrics, org.wideec.repair.UnusableHelpers unusable) {
    this.dn = dn;
    this.unusable = unusable;
    this.transport = transport;
    this.access = access;
    this.conf = conf;
    this.endpoints = endpoints;
    this.metrics = metrics;
    this.lookup = new ArchivedStripeLookup(dn.getConf());
    this.chunk = Math.max(1, dn.getConf().getInt(DFSConfigKeys.DFS_BYTES_PER_CHECKSUM_KEY,
        DFSConfigKeys.DFS_BYTES_PER_CHECKSUM_DEFAULT));
  }

  void onRequest(long repairId, byte[] body, Downstream downstream) {
    String me = downstream.selfNode();
    ArchivedReadRequest req = null;
    try {
      req = admit(body);
      serve(repairId, req, downstream);
      downstream.end();
    } catch (ReplicaAccess.DeniedException e) {
      LOG.warn("archived read {}: {} refused {}: {}", repairId, me, downstream.node(), e.getMessage());
      downstream.fail(null, me + " refused the archived read: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      downstream.fail(me, me + " was interrupted");
    } catch (IOException | RuntimeException e) { // DESIGN.md §2: nothing of ours escapes into a DataNode thread
      if (req != null) {
        lookup.forget(req.fileInode(), req.block().blockId());
      }
      LOG.warn("archived read {} at {} for {} failed: {}", repairId, me, downstream.node(), e.toString());
      downstream.fail(null, me + " cannot rebuild the archived block: " + e.getMessage());
    }
  }

  /**
   * The screen before a helper thread is taken (on the transport's event loop): returns the client whose READ token
   * the read carries, whom its helpers' steps are minted for ({@link #helperRef}).
   */
  String screen(byte[] body, boolean clusterPeer) throws IOException {
    return access.clientOf(admit(body).block());
  }

  /** The request, once its slices fit a frame and its asker holds a READ token for this very block. */
  private ArchivedReadRequest admit(byte[] body) throws IOException {
    ArchivedReadRequest req = ArchivedReadRequest.parse(body);
    if (req.sliceBytes() > transport.conf().maxFrameBytes()) {
      throw new ReplicaAccess.DeniedException("slices of " + req.sliceBytes() + " bytes; at most "
          + transport.conf().maxFrameBytes() + " (" + org.wideec.transport.TransportConf.MAX_FRAME + ")");
    }
    // The asker's authority for this very block, before anything is looked up or read.
    access.checkRead(req.block());
    return req;
  }

  private void serve(long repairId, ArchivedReadRequest req, Downstream downstream)
      throws IOException, InterruptedException {
    BlockRef asked = req.block();
    String client = access.clientOf(asked);
    ArchivedStripeLookup.Found found = lookup.find(req.fileInode(), asked.blockId());
    if (found.pool() != null && !found.pool().equals(asked.pool())) {
      throw new ReplicaAccess.DeniedException(asked + " is not in block pool " + found.pool() + " of this DataNode's"
          + " file system");
    }
    ArchivedReadRepair.Current now = found.current().values().stream()
        .filter(c -> c.blockId() == asked.blockId()).findFirst().orElse(null);
    if (now == null || now.genStamp() != asked.genStamp() || now.length() != asked.numBytes()) {
      throw new ReplicaAccess.DeniedException(asked + " is not block " + asked.blockId() + " of inode "
          + req.fileInode() + " as the NameNode lists it now");
    }
    ArchivedReadRepair.Plan plan = ArchivedReadRepair.plan("inode " + req.fileInode() + " block "
        + asked.blockId(), found.stripe(), asked, found.current(), id -> helperRef(asked.pool(), id, client),
        conf.scheme());
    // Helpers read whole checksum chunks: rebuild the range widened to chunks, forward only what was asked.
    long from = req.offset() / chunk * chunk;
    long to = Math.min(asked.numBytes(), (req.offset() + req.length() + chunk - 1) / chunk * chunk);
    int slice = Math.max(chunk, transport.conf().sliceBytes() / chunk * chunk);
    UnitLocation requestor = new UnitLocation(-1, new Site(downstream.selfNode(), downstream.selfRack()));
    Forwarder out = new Forwarder(downstream, req, req.offset() - from, plan.lost());
    RepairEngine engine = new RepairEngine(transport, endpoints.over(found.nodes()::get), metrics, conf.maxAttempts(),
        conf.validation(), unusable);
    try {
      engine.repair(plan.repair(), requestor, (unit, len) -> out.open(), slice, from, to - from);
    } catch (RepairEngine.RepairFailedException e) {
      throw new IOException(e.getMessage() + " (members left out: " + ArchivedReadRepair.describe(plan.leftOut())
          + ")", e);
    }
    if (out.delivered < req.length()) {
      throw new IOException("the chain rebuilt " + out.delivered + " of " + req.length() + " bytes");
    }
    LOG.debug("archived read {}: {} bytes [{}, +{}) of {} rebuilt for {}", repairId, req.length(), req.offset(),
        req.length(), asked, downstream.node());
  }

  /**
   * A member's reference for a helper: its READ token minted for the client that asked (the read runs on its
   * authority, so each helper counts its step under that client, not under this DataNode's share).
   */
  private BlockRef helperRef(String pool, long blockId, String client) {
    BlockRef ref = new BlockRef(pool, blockId, 0, 0);
    if (!BlockTokenAccess.enabled(dn)) {
      return ref;
    }
    // A READ token names the block, not its stamp or length, so one minted per block id serves the member.
    return ref.withToken(BlockTokenAccess.readToken(dn, new ExtendedBlock(pool, blockId), client));
  }

  /** Stripe lookups this service asked the NameNode for since start. */
  long stripeLookups() {
    return lookup.lookups();
  }

  @Override
  public void close() throws IOException {
    lookup.close();
  }

  /**
   * Re-slices the rebuilt (chunk-widened) range into the client's slices and sends each as soon as it is whole.
   * Bytes before the high-water mark are dropped: a retried attempt restarts from the range's start and rebuilds
   * the same bytes, which the client already has.
   */
  private static final class Forwarder implements SliceSink {
    private final Downstream downstream;
    private final ArchivedReadRequest req;
    private final long lead;
    private final StripeMember lost;
    private final boolean wholeBlock;
    private final CRC32C crc = new CRC32C();
    private final byte[] pending;
    private int filled;
    long delivered;
    private int next;

    Forwarder(Downstream downstream, ArchivedReadRequest req, long lead, StripeMember lost) {
      this.downstream = downstream;
      this.req = req;
      this.lead = lead;
      this.lost = lost;
      this.wholeBlock = req.offset() == 0 && req.length() == lost.length() && lost.hasCrc();
      this.pending = new byte[req.sliceBytes()];
    }

    SliceSink open() {
      return this;
    }

    @Override
    public void write(long offset, byte[] data, int off, int len) throws IOException {
      long start = Math.max(offset - lead, delivered + filled);
      long end = Math.min(offset - lead + len, req.length());
      if (start >= end) {
        return;
      }
      if (offset - lead > delivered + filled) {
        throw new IOException("the chain skipped bytes [" + (delivered + filled) + ", " + (offset - lead) + ")");
      }
      int at = (int) (start - (offset - lead)) + off;
      int n = (int) (end - start);
      while (n > 0) {
        int room = req.sliceLength(next) - filled;
        int take = Math.min(room, n);
        System.arraycopy(data, at, pending, filled, take);
        if (wholeBlock) {
          crc.update(data, at, take);
        }
        filled += take;
        at += take;
        n -= take;
        if (filled == req.sliceLength(next)) {
          send();
        }
      }
    }

    private void send() throws IOException {
      if (wholeBlock && delivered + filled == req.length() && crc.getValue() != lost.crc32c()) {
        throw new IOException("the rebuilt block " + lost.blockId() + " has CRC32C " + Long.toHexString(crc.getValue())
            + ", the manifest records " + Long.toHexString(lost.crc32c()));
      }
      ByteBuf b = downstream.alloc().heapBuffer(filled, filled);
      b.writeBytes(pending, 0, filled);
      try {
        downstream.send(next, b);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while sending to " + downstream.node(), e);
      }
      delivered += filled;
      filled = 0;
      next++;
    }

    @Override
    public void finish() {}

    @Override
    public void abort() {}
  }
}
