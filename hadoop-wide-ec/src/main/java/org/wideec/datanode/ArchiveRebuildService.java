package org.wideec.datanode;

import io.netty.buffer.ByteBuf;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo.DatanodeInfoBuilder;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.security.token.SecretManager;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.util.DataChecksum;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.repair.BlockRef;
import org.wideec.repair.DigestRequest;
import org.wideec.repair.EndpointResolver;
import org.wideec.repair.RebuildRequest;
import org.wideec.repair.RepairEngine;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.SliceSink;
import org.wideec.repair.UnitLocation;
import org.wideec.transport.Downstream;
import org.wideec.transport.Endpoint;
import org.wideec.transport.SliceTransport;

/**
 * Serves the NameNode's {@link RebuildRequest}s (issue 13 item 5): this DataNode rebuilds a lost unit of an archived
 * stripe with the repair engine, as requestor, and stores it on itself through DataTransferProtocol under the block's
 * original id, generation stamp and length ({@link BlockTargetWriter}), with the NameNode's WRITE token. The rebuilt
 * bytes must have the manifest's CRC32C before the last packet goes out; otherwise the temporary replica is dropped
 * and the request fails, naming the block. Only a peer that proved the cluster secret may ask, and the WRITE token is
 * checked here as DataXceiver checks it, before any helper is asked for a byte.
 *
 * <p>While it works it sends one small frame (bytes rebuilt so far) every third of the stall timeout, so the
 * NameNode's stream never stalls on a large block; the stream ends once the target confirmed the block by
 * reading it back, or fails with the reason.
 */
final class ArchiveRebuildService {
  private static final Logger LOG = LoggerFactory.getLogger(ArchiveRebuildService.class);
  private final DataNode dn;
  private final SliceTransport transport;
  private final RepairEngine.Builder engines;
  private final RepairScheme scheme;
  private final DataChecksum checksum;
  private final boolean blockTokens;

  ArchiveRebuildService(DataNode dn, SliceTransport transport, RepairEngine.Builder engines, RepairScheme scheme,
      DataChecksum checksum) {
    this.dn = dn;
    this.transport = transport;
    this.engines = engines;
    this.scheme = scheme;
    this.checksum = checksum;
    this.blockTokens = BlockTokenAccess.enabled(dn);
  }

  void onRequest(long repairId, byte[] body, Downstream downstream) {
    String me = downstream.selfNode();
    if (!downstream.clusterPeer()) {
      LOG.warn("wide-ec: {} refused a rebuild request from {}: it did not prove the cluster secret", me,
          downstream.node());
      downstream.fail(null, me + " refused: only a peer that proved the cluster secret may order a rebuild");
      return;
    }
    if (transport.conf().secret() == null && !blockTokens) {
      // auth=none makes every caller a "peer", and without block tokens no WRITE token proves the order is the
      // NameNode's: anyone could have a block stored under any id. Refused, so repair needs one of the two.
      LOG.warn("wide-ec: {} refused a rebuild request from {}: {}=none and block tokens are off", me, downstream.node(),
          org.wideec.transport.TransportConf.AUTH);
      downstream.fail(null, me + " refused: with " + org.wideec.transport.TransportConf.AUTH + "=none a rebuild order"
          + " needs block tokens (dfs.block.access.token.enable) to prove it comes from the NameNode");
      return;
    }
    RebuildRequest req;
    Token<BlockTokenIdentifier> token;
    try {
      req = RebuildRequest.parse(body, scheme);
      token = checkWriteToken(req.target());
    } catch (IOException e) {
      LOG.warn("wide-ec: {} refused a rebuild request from {}: {}", me, downstream.node(), e.getMessage());
      downstream.fail(null, me + " refused: " + e.getMessage());
      return;
    }
    AtomicLong progress = new AtomicLong();
    Heartbeat beat = new Heartbeat(downstream, progress, Math.max(100, transport.conf().stallTimeoutMs() / 3));
    beat.start();
    String failure = null;
    try {
      rebuild(req, token, downstream, progress);
    } catch (Throwable e) { // nothing escapes into the transport's worker; the NameNode is told why
      failure = e.getMessage() == null ? e.toString() : e.getMessage();
      if (!(e instanceof IOException)) {
        LOG.error("wide-ec: rebuild of {} failed unexpectedly", req.repair().name(), e);
      }
    } finally {
      beat.halt();
    }
    if (failure == null) {
      downstream.end();
    } else {
      LOG.warn("wide-ec: {} on {}: {}", req.repair().name(), me, failure);
      downstream.fail(null, failure);
    }
  }

  /** The target's WRITE token, checked as DataTransferProtocol would (null when block tokens are off). */
  private Token<BlockTokenIdentifier> checkWriteToken(BlockRef target) throws IOException {
    if (target.token().length == 0) {
      if (blockTokens) {
        throw new IOException("no WRITE token for " + target + " (dfs.block.access.token.enable is on)");
      }
      return null;
    }
    Token<BlockTokenIdentifier> token = new Token<>();
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(target.token()))) {
      token.readFields(in);
    }
    if (blockTokens) {
      try {
        dn.getBlockPoolTokenSecretManager().checkAccess(token, null, extended(target),
            BlockTokenIdentifier.AccessMode.WRITE);
      } catch (SecretManager.InvalidToken e) {
        throw new IOException("WRITE token refused for " + target + ": " + e.getMessage(), e);
      }
    }
    return token;
  }

  private void rebuild(RebuildRequest req, Token<BlockTokenIdentifier> token, Downstream downstream,
      AtomicLong progress) throws IOException {
    String selfNode = downstream.selfNode();
    String selfRack = downstream.selfRack();
    UnitLocation requestor = new UnitLocation(-1, selfNode, selfRack);
    Map<String, Endpoint> endpoints = new HashMap<>(req.endpoints());
    Endpoint self = new Endpoint(dn.getDatanodeId().getIpAddr(), transport.port(), selfNode, selfRack);
    endpoints.put(selfNode, self);
    EndpointResolver resolver = loc -> {
      Endpoint e = endpoints.get(loc.node());
      if (e == null) {
        throw new IOException("no slice endpoint named for " + loc.node());
      }
      return e;
    };
    ExtendedBlock block = extended(req.target());
    DatanodeInfo target = new DatanodeInfoBuilder().setNodeID(dn.getDatanodeId()).setNetworkLocation(selfRack).build();
    StorageType type = StorageType.parseStorageType(req.storageType());
    BlockRef readBack = new BlockRef(block.getBlockPoolId(), block.getBlockId(), block.getGenerationStamp(),
        block.getNumBytes(), BlockTokenAccess.readToken(dn, block));
    RepairEngine.Result r = engines.create(resolver).repair(req.repair(), requestor, (unit, len) -> new Progress(
        new BlockTargetWriter(dn, block, target, type, req.storageId(), checksum,
            b -> DigestRequest.crcOf(transport, self, requestor, readBack, transport.conf().sliceBytes()), token,
            req.expectedCrc()), progress));
    LOG.info("wide-ec: {} rebuilt on {} as blk_{}_{} ({} bytes, CRC32C matches the manifest; {} helpers, attempt {})",
        req.repair().name(), selfNode, block.getBlockId(), block.getGenerationStamp(), block.getNumBytes(), r.helpers(),
        r.attempts());
  }

  private static ExtendedBlock extended(BlockRef b) {
    return new ExtendedBlock(b.pool(), b.blockId(), b.numBytes(), b.genStamp());
  }

  /** Counts the bytes written through a sink, for the heartbeat. */
  private record Progress(SliceSink sink, AtomicLong bytes) implements SliceSink {
    @Override
    public void write(long offset, byte[] data, int off, int len) throws IOException {
      sink.write(offset, data, off, len);
      bytes.set(offset + len);
    }

    @Override
    public void finish() throws IOException {
      sink.finish();
    }

    @Override
    public void abort() {
      sink.abort();
    }
  }

  /** Sends the bytes rebuilt so far every period until halted, so the asker's stream never stalls. */
  private static final class Heartbeat extends Thread {
    private final Downstream downstream;
    private final AtomicLong progress;
    private final long periodMs;
    private volatile boolean halted;
    private int slice;

    Heartbeat(Downstream downstream, AtomicLong progress, long periodMs) {
      super("wide-ec-rebuild-heartbeat");
      setDaemon(true);
      this.downstream = downstream;
      this.progress = progress;
      this.periodMs = periodMs;
    }

    @Override
    public void run() {
      try {
        while (!halted) {
          Thread.sleep(periodMs);
          if (halted) {
            return;
          }
          ByteBuf b = downstream.alloc().heapBuffer(8);
          b.writeLong(progress.get());
          downstream.send(slice++, b);
        }
      } catch (InterruptedException e) {
        // halted
      } catch (IOException e) {
        LOG.debug("wide-ec rebuild heartbeat to {} stopped: {}", downstream.node(), e.getMessage());
      }
    }

    /** Stops the heartbeat and waits for it, so the stream's END or ERROR follows its last frame. */
    void halt() {
      halted = true;
      interrupt();
      try {
        join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
