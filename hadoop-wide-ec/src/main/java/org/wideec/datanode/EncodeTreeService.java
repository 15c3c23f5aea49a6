package org.wideec.datanode;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.util.DataChecksum;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.engine.EncodeExecutor;
import org.wideec.engine.TaskFailure;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.protocol.EncodeTreeRequest;
import org.wideec.archive.encode.ParitySinks;
import org.wideec.repair.BlockRef;
import org.wideec.repair.EndpointResolver;
import org.wideec.repair.ReplicaAccess;
import org.wideec.protocol.RequestLimits;
import org.wideec.repair.SliceSink;
import org.wideec.topology.Site;
import org.wideec.transport.Downstream;
import org.wideec.topology.Endpoint;
import org.wideec.transport.PeerFailure;
import org.wideec.transport.SliceTransport;

/**
 * Collects one tree of a chain encode on this DataNode (the archiver's {@code --encoder chain}; ECWide §4.2): the archiver asks the
 * tree's collector with an {@link EncodeTreeRequest}; this node plans the same chain, asks the tree's heads for their
 * partial sums over its slice transport (each holder verifies the archiver's READ token for its block; the chain
 * runs as {@link EncodeExecutor} runs it), and writes each finished parity row into the block the NameNode allocated
 * for it, on its target, by DataTransferProtocol with the archiver's WRITE token and the data's checksum type and
 * bytes per checksum. It answers with the length and CRC32C of every parity it stored; the archiver completes the
 * parity files and checks what the targets read back before the stripe advances.
 *
 * <p>All or nothing: a parity block is finished (finalized on its target) only once every row of the tree is
 * computed, and any failure aborts every write (a replica that never finalized is dropped by its target; one
 * finalized for an encode that failed elsewhere belongs to a file the archiver never completes, and the rerun
 * deletes that file). Nothing here throws into a DataNode thread: every failure ends the stream with an ERROR.
 */
final class EncodeTreeService {
  private static final Logger LOG = LoggerFactory.getLogger(EncodeTreeService.class);
  private final DataNode dn;
  private final SliceTransport transport;
  private final ReplicaAccess access;
  private final RepairMetrics metrics;
  private final ClusterDataNodes members;

  EncodeTreeService(DataNode dn, SliceTransport transport, ReplicaAccess access, RepairMetrics metrics,
      ClusterDataNodes members) {
    this.dn = dn;
    this.members = members;
    this.transport = transport;
    this.access = access;
    this.metrics = metrics;
  }

  void onRequest(long repairId, byte[] body, Downstream downstream) {
    String me = downstream.selfNode();
    EncodeTreeRequest req = null;
    try {
      req = EncodeTreeRequest.parse(body);
      authorize(req);
      // Asks the NameNode and the DataNodes' pages (cached), so on this thread, never on the event loop: before any dial.
      members.check(req.endpoints());
      EncodePlan plan = plan(req, me);
      int[] frame = {0}; // the reply's next frame: empty ones while the tree runs, the result last
      List<EncodeTreeRequest.Stored> stored = run(repairId, req, plan, downstream, frame);
      byte[] result = EncodeTreeRequest.resultBytes(stored);
      ByteBuf b = downstream.alloc().heapBuffer(result.length, result.length);
      b.writeBytes(result);
      downstream.send(frame[0], b);
      downstream.end();
      // Deliveries go by DataTransferProtocol, outside the slice port's counters: counted here, per target's rack.
      Site here = plan.trees().get(0).collector();
      long crossRack = stored.stream().filter(x -> !plan.stripe().targets().get(x.unit()).sameRack(here))
          .mapToLong(EncodeTreeRequest.Stored::length).sum();
      metrics.encodeTreeCollected(stored.stream().mapToLong(EncodeTreeRequest.Stored::length).sum(), crossRack);
      LOG.debug("encode {}: {} collected {} for {}", repairId, me, req, downstream.node());
      return;
    } catch (ReplicaAccess.DeniedException e) {
      LOG.warn("encode {}: {} refused {}: {}", repairId, me, downstream.node(), e.getMessage());
      downstream.fail(null, me + " refused the encode: " + e.getMessage());
    } catch (PeerFailure e) {
      LOG.warn("encode {} at {}: {}", repairId, me, e.getMessage());
      downstream.fail(e.culprit(), e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      downstream.fail(me, me + " was interrupted");
    } catch (IOException | RuntimeException e) { // DESIGN.md §2: nothing of ours escapes into a DataNode thread
      LOG.warn("encode {} at {} for {} failed: {}", repairId, me, downstream.node(), e.toString());
      downstream.fail(me, me + " could not collect " + (req == null ? "the encode tree" : req.toString()) + ": "
          + e.getMessage());
    }
    metrics.encodeTreeFailed();
  }

  /**
   * The screen before a helper thread is taken (on the transport's event loop): {@link #authorize}. The tree runs on
   * its asker's authority (null); the steps it dials carry the asker's READ tokens, so they count under the asker.
   */
  String screen(byte[] body, boolean clusterPeer) throws IOException {
    authorize(EncodeTreeRequest.parse(body));
    return null;
  }

  /**
   * Whether the asker proved authority for every block the request names: a READ token for each data block (each
   * holder checks its own again) and a WRITE token for each parity block (its target checks it, as for any client's
   * write; with block tokens on, one must be there: this node never mints a WRITE token for an asker); and whether
   * every slice port it names is one this node may dial (the same check as a repair step's upstreams).
   */
  private void authorize(EncodeTreeRequest req) throws IOException {
    if (req.sliceBytes() > transport.conf().maxFrameBytes()) {
      throw new ReplicaAccess.DeniedException("slices of " + req.sliceBytes() + " bytes; at most "
          + transport.conf().maxFrameBytes() + " (" + org.wideec.transport.TransportConf.MAX_FRAME + ")");
    }
    for (BlockRef b : req.blocks().values()) {
      access.checkRead(b);
    }
    boolean tokens = BlockTokenAccess.enabled(dn);
    for (EncodeTreeRequest.ParityOutput o : req.outputs()) {
      if (tokens && o.block().token().length == 0) {
        throw new ReplicaAccess.DeniedException("no WRITE token for parity unit " + o.unit() + " (" + o.block()
            + "; dfs.block.access.token.enable is on)");
      }
    }
    for (Endpoint e : req.endpoints()) {
      RequestLimits.checkAddress(e);
    }
  }

  /** The request's tree, which this node must collect. */
  private EncodePlan plan(EncodeTreeRequest req, String me) throws IOException {
    EncodePlan plan = req.plan(transport.conf().maxFrameBytes());
    EncodePlan.Tree tree = plan.trees().get(0);
    if (!tree.collector().node().equals(me)) {
      throw new IOException(req + ": its collector is " + tree.collector() + ", not " + me);
    }
    for (EncodeTreeRequest.ParityOutput o : req.outputs()) {
      if (Arrays.stream(tree.rows()).noneMatch(r -> r == o.unit())) {
        throw new IOException(req + ": parity unit " + o.unit() + " is not a row of the tree (rows "
            + Arrays.toString(tree.rows()) + ")");
      }
      if (o.block().numBytes() != plan.unitBytes()) {
        throw new IOException(req + ": parity unit " + o.unit() + " is " + plan.unitBytes() + " bytes, its block "
            + o.block() + " says " + o.block().numBytes());
      }
    }
    for (EncodePlan.Step s : tree.steps()) {
      if (!req.blocks().containsKey(s.unit())) {
        throw new IOException(req + ": no block named for data unit " + s.unit());
      }
    }
    return plan;
  }

  /** Runs the tree on a thread of its own; this thread sends an empty frame whenever a quarter stall passes. */
  private List<EncodeTreeRequest.Stored> run(long repairId, EncodeTreeRequest req, EncodePlan plan,
      Downstream downstream, int[] frame) throws IOException, InterruptedException {
    DataChecksum checksum = AllocatedOutputs.checksum(req, req.checksumType(), req.bytesPerChecksum());
    Map<String, Endpoint> endpoints = new HashMap<>();
    req.endpoints().forEach(e -> endpoints.put(e.node(), e));
    EndpointResolver resolver = new NamedEndpoints(endpoints, members.current(),
        node -> new PeerFailure(node, "the encode request names no slice port for " + node));
    Map<Integer, BlockTargetWriter> writers = new LinkedHashMap<>();
    ParitySinks sinks = (parity, length, collector, target) -> open(req, parity, length, checksum, writers);
    EncodeExecutor executor = new EncodeExecutor(site -> transport, resolver);
    FutureTask<EncodeExecutor.Result> task = new FutureTask<>(() -> executor.run(plan, req.blocks(), sinks));
    Thread t = new Thread(task, "wide-ec-encode-" + repairId);
    t.setDaemon(true);
    t.start();
    long beat = Math.max(100, transport.conf().stallTimeoutMs() / 4);
    try {
      while (true) {
        try {
          task.get(beat, TimeUnit.MILLISECONDS);
          break;
        } catch (TimeoutException e) {
          downstream.send(frame[0]++, downstream.alloc().heapBuffer(0, 0));
        }
      }
    } catch (ExecutionException e) {
      throw TaskFailure.cause(e, "encode tree step");
    } finally {
      task.cancel(true); // the asker left (a heartbeat failed) or this thread was interrupted: the tree stops too
    }
    List<EncodeTreeRequest.Stored> out = new ArrayList<>();
    writers.forEach((unit, w) -> out.add(new EncodeTreeRequest.Stored(unit, w.bytesWritten(), w.crc32c())));
    return out;
  }

  /** The sink of one parity row: its block on its target, or nothing for a virtual parity (zeros, never stored). */
  private SliceSink open(EncodeTreeRequest req, int parity, long length, DataChecksum checksum,
      Map<Integer, BlockTargetWriter> writers) throws IOException {
    EncodeTreeRequest.ParityOutput o = req.outputs().stream().filter(x -> x.unit() == parity).findFirst().orElse(null);
    if (o == null) {
      return VIRTUAL;
    }
    BlockTargetWriter w = AllocatedOutputs.writer(dn, o, length, checksum);
    synchronized (writers) {
      writers.put(parity, w);
    }
    return w;
  }

  /** A virtual parity's row: zeros that nothing stores. */
  private static final SliceSink VIRTUAL = SliceSink.DISCARD;
}
