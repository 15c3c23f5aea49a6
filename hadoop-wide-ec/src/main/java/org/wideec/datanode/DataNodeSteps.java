package org.wideec.datanode;

import java.io.IOException;
import java.util.concurrent.Semaphore;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.protocol.EncodeTreeRequest;
import org.wideec.protocol.RapidRaidStepRequest;
import org.wideec.engine.StepService;
import org.wideec.repair.ReplicaAccess;
import org.wideec.repair.SliceSink;
import org.wideec.config.ConfigValues;
import org.wideec.transport.Downstream;
import org.wideec.transport.RequestHandler;
import org.wideec.transport.SliceTransport;

/**
 * The step service ({@link StepService}) as this DataNode runs it: every step of a repair or encode, and every
 * position of a RapidRAID pipeline ({@code --encoder rapidraid}). A position's pieces are read through
 * {@link FsDatasetUnitStore} (checksum-verified) against their READ tokens, and its codeword c_i, the step's sink row,
 * goes into the block the archiver allocated for it (the request's output, on this node as the favored one), written
 * by DataTransferProtocol with the archiver's WRITE token and the request's checksum type, as a client's write is.
 *
 * <p>Before anything is read or dialled the request must name that block with a WRITE token (block tokens on: this
 * node never mints one for an asker) and a checksum HDFS writes. A position holds a helper thread for the whole
 * encode while it waits on its upstream, so at most {@link #MAX_KEY} positions run at once: one more is refused
 * at once, with an error that says so, leaving the rest of the pool to repairs and reads (the pool has no queue, so
 * nothing ever waits for a thread).
 */
final class DataNodeSteps implements RequestHandler {
  /** Pipeline positions one DataNode runs at once. */
  static final String MAX_KEY = "wide-ec.archive.rapidraid.max-positions";
  private static final Logger LOG = LoggerFactory.getLogger(DataNodeSteps.class);
  private final DataNode dn;
  private final ReplicaAccess access;
  private final StepService steps;
  private final Semaphore slots;
  private final int max;

  DataNodeSteps(DataNode dn, SliceTransport transport, ReplicaAccess access, RepairMetrics metrics,
      int helperThreads) {
    this.dn = dn;
    this.access = access;
    this.max = maxPositions(dn.getConf(), helperThreads);
    this.slots = new Semaphore(max);
    this.steps = new StepService(transport, new FsDatasetUnitStore(dn), access, this::open, metrics,
        new VolumeScrubRate(dn, VolumeScrubRate.bytesPerSecond(dn.getConf())));
  }

  /**
   * Half the helper threads by default, so repairs and degraded reads always keep the other half.
   *
   * @throws IllegalArgumentException naming the key when it is not 1..helper threads
   */
  static int maxPositions(Configuration conf, int helperThreads) {
    return ConfigValues.intIn(conf, MAX_KEY, Math.max(1, helperThreads / 2), 1, helperThreads);
  }

  /** Streams started ahead of their steps' requests on this DataNode, and those a request took: {started, taken}. */
  long[] startedAheadCounts() {
    return steps.startedAheadCounts();
  }

  @Override
  public void onRequest(long id, byte[] body, Downstream downstream) {
    if (!RapidRaidStepRequest.isOne(body)) {
      steps.onRequest(id, body, downstream);
      return;
    }
    String me = downstream.selfNode();
    try {
      authorize(RapidRaidStepRequest.parse(body));
    } catch (ReplicaAccess.DeniedException e) {
      LOG.warn("rapidraid {}: {} refused {}: {}", id, me, downstream.node(), e.getMessage());
      downstream.fail(null, me + " refused the rapidraid step: " + e.getMessage());
      return;
    } catch (IOException | RuntimeException e) { // DESIGN.md §2: nothing escapes into the transport's thread
      downstream.fail(me, me + " cannot run the rapidraid step: " + e.getMessage());
      return;
    }
    if (!slots.tryAcquire()) {
      LOG.warn("rapidraid {}: {} refused a pipeline position for {}: {} already run ({})", id, me, downstream.node(),
          max, MAX_KEY);
      downstream.fail(me, me + " already runs " + max + " rapidraid pipeline positions (" + MAX_KEY
          + "); retry the archival later");
      return;
    }
    try {
      steps.onRequest(id, body, downstream);
    } finally {
      slots.release();
    }
  }

  /**
   * The screen before a helper thread is taken (on the transport's event loop): a step's bounds and READ token, or a
   * position's {@link #authorize}. Returns the client whose token the request carries (a position's WRITE token):
   * what it relays counts under that client too.
   */
  @Override
  public String screen(byte[] body, boolean clusterPeer) throws IOException {
    if (!RapidRaidStepRequest.isOne(body)) {
      return steps.screen(body, clusterPeer);
    }
    RapidRaidStepRequest req = RapidRaidStepRequest.parse(body);
    authorize(req);
    return access.clientOf(req.output().block());
  }

  private void authorize(RapidRaidStepRequest req) throws IOException {
    EncodeTreeRequest.ParityOutput o = req.output();
    if (o == null) {
      throw new IOException(req + " names no block for its codeword; a DataNode stores c_" + req.position()
          + " only into a block the archiver allocated");
    }
    if (o.block().numBytes() != req.length()) {
      throw new IOException(req + ": its codeword block " + o.block() + " is not " + req.length() + " bytes");
    }
    // The archiver's WRITE token for exactly this block, verified before the upstream is dialled or a piece read;
    // a request whose pieces are all virtual carries no other proof.
    try {
      BlockTokenAccess.checkWrite(dn, o.block());
    } catch (ReplicaAccess.DeniedException e) {
      throw new ReplicaAccess.DeniedException("codeword " + o.unit() + ": " + e.getMessage());
    }
    AllocatedOutputs.checksum(req, req.checksumType(), req.bytesPerChecksum());
  }

  /** c_i's sink: its allocated block, written on its target (this node, unless the NameNode placed it elsewhere). */
  private SliceSink open(RapidRaidStepRequest req) throws IOException {
    return AllocatedOutputs.writer(dn, req.output(), req.length(),
        AllocatedOutputs.checksum(req, req.checksumType(), req.bytesPerChecksum()));
  }
}
