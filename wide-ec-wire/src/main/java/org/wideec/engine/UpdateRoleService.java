package org.wideec.engine;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.protocol.RequestLimits;
import org.wideec.protocol.UpdateFetchRequest;
import org.wideec.protocol.UpdateRoleRequest;
import org.wideec.repair.BlockRef;
import org.wideec.repair.ReplicaAccess;
import org.wideec.repair.SliceSink;
import org.wideec.repair.UnitStore;
import org.wideec.transport.Downstream;
import org.wideec.transport.PeerFailure;
import org.wideec.transport.RequestHandler;
import org.wideec.transport.SliceTransport;

/**
 * Admits a node's roles in stripe parity updates ({@link UpdateRoleRequest}), runs each ({@link UpdateRole}: a
 * collector fanning out to several parity racks reads its inputs once, relays that feed each other never wait on
 * each other, a parity's node writes old parity plus delta into the new block the updater allocated) and serves the
 * rows they send ({@link UpdateFetchRequest}) to the consumer each transfer is bound to. Memory is a few slices per
 * transfer whatever the block size, and
 * bounded before anything is allocated: a role's rows by a stripe's units, its buffered bytes by
 * {@link UpdateRoleBudget#roleBudget} and every role of this node together by {@link #MEMORY_KEY}. Nothing is thrown into the
 * transport's thread, not even an OutOfMemoryError: every failure ends the stream with an ERROR naming the node to
 * blame, and fails the role's outboxes so its consumers stop too.
 */
public final class UpdateRoleService implements RequestHandler {
  private static final Logger LOG = LoggerFactory.getLogger(UpdateRoleService.class);
  /** Bytes of slices every update role of a DataNode may buffer at once; a role past it is refused as busy. */
  public static final String MEMORY_KEY = "wide-ec.update.datanode.memory.bytes";
  public static final long MEMORY_DEFAULT = 256L << 20;

  /** Where a parity role's new parity is written: the block the updater allocated, on the target its request names. */
  @FunctionalInterface
  public interface ParityTargets {
    /**
     * @throws ReplicaAccess.DeniedException when the request lacks the authority to write it
     */
    SliceSink open(UpdateRoleRequest req) throws IOException;
  }

  /** The nodes a role may dial: the cluster's DataNodes (as the NameNode lists them). */
  @FunctionalInterface
  public interface Peers {
    /** @throws IOException naming an endpoint that is not a slice port of one of the cluster's DataNodes */
    void check(List<org.wideec.topology.Endpoint> named) throws IOException;
  }

  private final SliceTransport transport;
  private final UnitStore store;
  private final ReplicaAccess access;
  private final ParityTargets targets;
  private final RepairCounters counters;
  private final Peers peers;
  private final long memory;
  private final java.util.concurrent.atomic.AtomicLong reserved = new java.util.concurrent.atomic.AtomicLong();
  private final UpdateOutboxes outboxes = new UpdateOutboxes();

  /** @param memory bytes every role here may buffer together ({@link #MEMORY_KEY}) */
  public UpdateRoleService(SliceTransport transport, UnitStore store, ReplicaAccess access, ParityTargets targets,
      RepairCounters counters, Peers peers, long memory) {
    this.transport = transport;
    this.store = store;
    this.access = access;
    this.targets = targets;
    this.counters = counters;
    this.peers = peers;
    this.memory = memory;
  }

  private long footprint(UpdateRoleRequest req) {
    return UpdateRoleBudget.footprint(req, transport.conf().window());
  }

  @Override
  public void onRequest(long id, byte[] body, Downstream downstream) {
    String me = downstream.selfNode();
    try {
      if (UpdateRoleRequest.isOne(body)) {
        play(id, admit(UpdateRoleRequest.parse(body)), downstream);
      } else {
        fetch(UpdateFetchRequest.parse(body), downstream);
      }
    } catch (ReplicaAccess.DeniedException e) {
      LOG.warn("update {}: {} refused {}: {}", id, me, downstream.node(), e.getMessage());
      downstream.fail(null, me + " refused the update role: " + e.getMessage());
    } catch (PeerFailure e) {
      LOG.debug("update {} at {}: {}", id, me, e.getMessage());
      downstream.fail(e.culprit() == null && transport.closing() ? me : e.culprit(), e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      downstream.fail(me, me + " was interrupted");
    } catch (IOException | RuntimeException e) { // DESIGN.md §2: nothing of ours escapes into the transport's thread
      LOG.warn("update {} at {} failed: {}", id, me, e.toString());
      downstream.fail(me, "update role at " + me + " failed: " + e.getMessage());
    } catch (OutOfMemoryError e) { // the budgets should prevent it; an Error must not end the transport's thread
      LOG.warn("update {} at {}: out of memory", id, me);
      downstream.fail(me, "update role at " + me + " failed: out of memory (" + e.getMessage() + ")");
    }
  }

  /** Runs a role once its buffers fit this node's budget of update memory, released whatever happens. */
  private void play(long id, UpdateRoleRequest req, Downstream downstream) throws IOException, InterruptedException {
    long need = footprint(req);
    long now = reserved.addAndGet(need);
    try {
      if (now > memory) {
        throw new ReplicaAccess.DeniedException("busy: " + req + " needs " + need + " bytes of slices; update roles"
            + " here already hold " + (now - need) + " of " + memory + " (" + MEMORY_KEY + ")");
      }
      UpdateRole role;
      try {
        role = new UpdateRole(transport, store, targets, counters, outboxes, id, req, downstream);
      } catch (OutOfMemoryError e) {
        throw new IOException(req + ": no memory for its " + need + " bytes of slices at " + downstream.selfNode());
      }
      role.run();
    } finally {
      reserved.addAndGet(-need);
    }
  }

  /**
   * A role's bounds, READ tokens and dialled nodes before it takes a helper thread. A fetch carries no token: only a
   * DataNode (a role's node, which dials with the cluster's credential) may ask, and its outbox checks it whole.
   */
  @Override
  public String screen(byte[] body, boolean clusterPeer) throws IOException {
    if (UpdateRoleRequest.isOne(body)) {
      return access.clientOf(admit(UpdateRoleRequest.parse(body)).readTokens().get(0));
    }
    UpdateFetchRequest.parse(body);
    if (!clusterPeer) {
      throw new IOException("only a DataNode that proved the cluster secret (" + org.wideec.transport.TransportConf.SECRET
          + ") may fetch an update role's rows");
    }
    return null;
  }

  /**
   * The request, once its frames and buffers fit, its asker may read every block it names (a relay: the block of its
   * stripe it carries) and every node it would dial is one of the cluster's DataNodes.
   */
  private UpdateRoleRequest admit(UpdateRoleRequest req) throws IOException {
    int rows = Math.max(req.inputs().stream().mapToInt(UpdateRoleRequest.Input::rows).max().orElse(1),
        req.outputs().stream().mapToInt(UpdateRoleRequest.Output::rowCount).max().orElse(1));
    int maxFrame = transport.conf().maxFrameBytes();
    if ((long) rows * req.sliceBytes() > maxFrame) {
      throw new ReplicaAccess.DeniedException(req + ": frames of " + rows + " rows of " + req.sliceBytes()
          + " bytes; at most " + maxFrame + " bytes (" + org.wideec.transport.TransportConf.MAX_FRAME + ")");
    }
    long need = footprint(req);
    if (need > UpdateRoleBudget.roleBudget(maxFrame)) {
      throw new ReplicaAccess.DeniedException(req + ": buffers " + need + " bytes of slices; a role at most "
          + UpdateRoleBudget.roleBudget(maxFrame) + " (" + UpdateRoleBudget.ROLE_FRAMES + " frames of " + org.wideec.transport.TransportConf.MAX_FRAME
          + ")");
    }
    for (BlockRef b : req.readTokens()) {
      access.checkRead(b);
    }
    List<org.wideec.topology.Endpoint> dialled = new ArrayList<>();
    for (UpdateRoleRequest.Input in : req.inputs()) {
      try {
        RequestLimits.checkAddress(in.from());
      } catch (IOException e) {
        throw new ReplicaAccess.DeniedException(e.getMessage());
      }
      dialled.add(in.from());
    }
    try {
      peers.check(dialled);
    } catch (IOException e) {
      throw new ReplicaAccess.DeniedException(req + ": " + e.getMessage());
    }
    return req;
  }

  /** Streams one transfer's rows to the role that fetches them, as its producing role leaves them. */
  private void fetch(UpdateFetchRequest req, Downstream downstream) throws IOException, InterruptedException {
    String me = downstream.selfNode();
    long stall = transport.conf().stallTimeoutMs();
    String what = "transfer " + req.transfer() + " of an update at " + me; // the key is the authority: never shown
    UpdateOutboxes.Outbox box;
    try {
      box = outboxes.claim(req.updateKey(), req.transfer(), req.rows(), req.slices(), downstream.node(),
          req.consumerKey(), stall);
    } catch (UpdateOutboxes.Refused e) {
      throw new PeerFailure(me, what + " refused to " + downstream.node() + ": " + e.getMessage());
    }
    boolean cross = !downstream.rack().equals(downstream.selfRack());
    for (int s = 0; s < box.slices; s++) {
      byte[] rows = box.take(stall, what);
      ByteBuf b = downstream.alloc().heapBuffer(rows.length, rows.length).writeBytes(rows);
      downstream.send(s, b);
      counters.updateRowsSent(rows.length, cross);
    }
    box.delivered();
    downstream.end();
  }
}
