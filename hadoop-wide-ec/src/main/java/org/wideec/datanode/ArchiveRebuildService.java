package org.wideec.datanode;

import io.netty.buffer.ByteBuf;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
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
import org.wideec.engine.DigestRequest;
import org.wideec.engine.SliceDial;
import org.wideec.repair.EndpointResolver;
import org.wideec.protocol.RebuildRequest;
import org.wideec.engine.RepairEngine;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.SliceSink;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Site;
import org.wideec.transport.Downstream;
import org.wideec.topology.Endpoint;
import org.wideec.transport.SliceTransport;

/**
 * Serves the NameNode's {@link RebuildRequest}s: this DataNode rebuilds lost units of an archived
 * stripe with the repair engine, as requestor (several units of one stripe by one decode), and stores each through
 * DataTransferProtocol under its block's original id, generation stamp and length ({@link BlockTargetWriter}), on
 * itself or on the target the order names, with the NameNode's WRITE token. Each unit's rebuilt bytes must have the
 * manifest's CRC32C before its last packet goes out; otherwise its temporary replica is dropped and the request fails,
 * naming that block, while the units that passed stay stored. Only a peer that proved the cluster secret may ask, and
 * every WRITE token is checked here as DataXceiver checks it, before any helper is asked for a byte.
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
  private final EndpointResolver current;

  /** @param current where a DataNode listens now ({@link ClusterDataNodes#current}), for a helper that moved */
  ArchiveRebuildService(DataNode dn, SliceTransport transport, RepairEngine.Builder engines, RepairScheme scheme,
      DataChecksum checksum, EndpointResolver current) {
    this.dn = dn;
    this.transport = transport;
    this.engines = engines;
    this.current = current;
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
    Map<Integer, Token<BlockTokenIdentifier>> tokens = new HashMap<>();
    try {
      req = RebuildRequest.parse(body, scheme);
      for (RebuildRequest.Target t : req.targets()) {
        tokens.put(t.unit(), checkWriteToken(t.block()));
      }
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
      rebuild(req, tokens, downstream, progress);
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
    return BlockTokenAccess.checkWrite(dn, target);
  }

  private void rebuild(RebuildRequest req, Map<Integer, Token<BlockTokenIdentifier>> tokens, Downstream downstream,
      AtomicLong progress) throws IOException {
    String selfNode = downstream.selfNode();
    String selfRack = downstream.selfRack();
    UnitLocation requestor = new UnitLocation(-1, new Site(selfNode, selfRack));
    Map<String, Endpoint> endpoints = new HashMap<>(req.endpoints());
    Endpoint self = new Endpoint(dn.getDatanodeId().getIpAddr(), transport.port(), new Site(selfNode, selfRack));
    endpoints.put(selfNode, self);
    req.targets().stream().filter(t -> t.at() != null).forEach(t -> endpoints.put(t.at().slice().node(),
        t.at().slice()));
    EndpointResolver resolver = new NamedEndpoints(endpoints, current,
        node -> new IOException("no slice endpoint named for " + node));
    Map<Integer, RebuildRequest.Target> byUnit = new HashMap<>();
    req.targets().forEach(t -> byUnit.put(t.unit(), t));
    Map<Integer, Outcome> outcomes = new java.util.TreeMap<>();
    RepairEngine.Result r = engines.create(resolver).repair(req.repair(), requestor, (unit, len) -> {
      RebuildRequest.Target t = byUnit.get(unit);
      ExtendedBlock block = extended(t.block());
      DatanodeInfo target = t.at() == null ? self(selfRack) : remote(t.at());
      Endpoint readFrom = t.at() == null ? self : t.at().slice();
      BlockRef readBack = new BlockRef(block.getBlockPoolId(), block.getBlockId(), block.getGenerationStamp(),
          block.getNumBytes(), BlockTokenAccess.readToken(dn, block));
      Outcome o = new Outcome(new Progress(new BlockTargetWriter(dn, block, target,
          StorageType.parseStorageType(t.storageType()), t.storageId(), checksum,
          b -> SliceDial.following(readFrom, resolver, at -> DigestRequest.crcOf(transport, at, requestor, readBack,
              transport.conf().sliceBytes())),
          tokens.get(unit), t.expectedCrc()), progress));
      outcomes.put(unit, o); // a new attempt replaces the last one's
      return o;
    });
    List<String> failed = new ArrayList<>();
    List<Integer> stored = new ArrayList<>();
    outcomes.forEach((unit, o) -> {
      if (o.failure != null) {
        failed.add("unit " + unit + ": " + o.failure.getMessage());
      } else {
        stored.add(unit);
      }
    });
    LOG.info("wide-ec: {} rebuilt on {}: units {} stored under their own ids {}{} ({} helpers, attempt {})",
        req.repair().name(), selfNode, stored, req.expectedCrc() == RebuildRequest.NO_CRC
            ? "after a second decode agreed" : "with the CRC32C the NameNode named", failed.isEmpty() ? ""
            : ", " + failed.size() + " refused", r.helpers(), r.attempts());
    if (!failed.isEmpty()) {
      // Each refused unit is named with its block (blk_...), so the NameNode backs off exactly those; units stored
      // are listed by unit number only.
      throw new IOException(failed.size() + " of " + req.targets().size() + " rebuilt units not stored: "
          + String.join("; ", failed) + (stored.isEmpty() ? "" : "; units " + stored + " were stored"));
    }
  }

  private DatanodeInfo self(String rack) {
    return new DatanodeInfoBuilder().setNodeID(dn.getDatanodeId()).setNetworkLocation(rack).build();
  }

  private static DatanodeInfo remote(RebuildRequest.RemoteNode n) {
    return new DatanodeInfoBuilder().setIpAddr(n.ipAddr()).setHostName(n.hostName()).setDatanodeUuid(n.datanodeUuid())
        .setXferPort(n.xferPort()).setInfoPort(n.infoPort()).setInfoSecurePort(n.infoSecurePort())
        .setIpcPort(n.ipcPort()).setNetworkLocation(n.slice().rack()).build();
  }

  /**
   * One unit's sink that keeps its own failure to store (its CRC is not the manifest's, say) rather than failing the
   * others of a joint decode: each unit is checked on its own, so one refused unit never stops the storing of one
   * that passed. The underlying writer has already dropped the refused unit's temporary replica.
   */
  private static final class Outcome implements SliceSink {
    private final SliceSink sink;
    private IOException failure;

    Outcome(SliceSink sink) {
      this.sink = sink;
    }

    @Override
    public void write(long offset, byte[] data, int off, int len) throws IOException {
      sink.write(offset, data, off, len);
    }

    @Override
    public void finish() {
      try {
        sink.finish();
      } catch (IOException e) {
        failure = e;
      }
    }

    @Override
    public void abort() {
      sink.abort();
    }
  }

  private static ExtendedBlock extended(BlockRef b) {
    return new ExtendedBlock(b.pool(), b.blockId(), b.numBytes(), b.genStamp());
  }

  /** Counts the bytes written through a sink, for the heartbeat. */
  private record Progress(SliceSink sink, AtomicLong bytes) implements SliceSink {
    @Override
    public void write(long offset, byte[] data, int off, int len) throws IOException {
      sink.write(offset, data, off, len);
      bytes.accumulateAndGet(offset + len, Math::max);
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
