package org.wideec.engine;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.coder.CodingKernel;
import org.wideec.coder.CodingMatrix;
import org.wideec.coder.Kernels;
import org.wideec.gf.Gf256;
import org.wideec.gf.Matrix;
import org.wideec.protocol.EncodeTreeRequest;
import org.wideec.protocol.UpdateFetchRequest;
import org.wideec.protocol.UpdateRoleRequest;
import org.wideec.repair.BlockRef;
import org.wideec.repair.SliceSink;
import org.wideec.repair.UnitStore;
import org.wideec.transport.Downstream;
import org.wideec.transport.Frame;
import org.wideec.transport.PeerFailure;
import org.wideec.transport.PeerStream;
import org.wideec.transport.SliceTransport;

/**
 * One role of a parity update as it runs on a node ({@link UpdateRoleService} admitted it): its slice loop, with its
 * inputs, readers, outboxes and arithmetic, released whatever happens. Per slice it computes its own delta from local
 * reads, sends each output once the rows it combines are here, takes the rest of its inputs, and at a parity's node
 * writes old parity plus delta (RackCU Eq. 2) into the new block.
 */
final class UpdateRole {
  private static final Logger LOG = LoggerFactory.getLogger(UpdateRole.class);
  private final SliceTransport transport;
  private final UnitStore store;
  private final UpdateRoleService.ParityTargets targets;
  private final RepairCounters counters;
  private final UpdateOutboxes outboxes;
  private final long id;
  private final UpdateRoleRequest req;
  private final Downstream downstream;
  private final String me;
  private final long stall;
  private final CodingKernel kernel = Kernels.best();
  private final List<PeerStream> inputs = new ArrayList<>();
  private final List<UpdateOutboxes.Outbox> boxes = new ArrayList<>();
  private final List<UnitStore.Reader> readers = new ArrayList<>();
  private final ByteBuffer[] held;
  private final byte[] buf;
  private final byte[] other;
  private SliceSink sink;
  private int frame;
  private long lastFrame = System.nanoTime();

  UpdateRole(SliceTransport transport, UnitStore store, UpdateRoleService.ParityTargets targets,
      RepairCounters counters, UpdateOutboxes outboxes, long id, UpdateRoleRequest req, Downstream downstream) {
    this.transport = transport;
    this.store = store;
    this.targets = targets;
    this.counters = counters;
    this.outboxes = outboxes;
    this.id = id;
    this.req = req;
    this.downstream = downstream;
    this.me = downstream.selfNode();
    this.stall = transport.conf().stallTimeoutMs();
    this.held = new ByteBuffer[req.heldRows() + (req.oldParity() == null ? 0 : 1)]; // the old parity last
    for (int j = 0; j < held.length; j++) {
      held[j] = ByteBuffer.allocateDirect(req.sliceBytes());
    }
    this.buf = new byte[req.sliceBytes()];
    this.other = new byte[req.sliceBytes()];
  }

  void run() throws IOException, InterruptedException {
    boolean done = false;
    try {
      sink = req.parityDelta() == null ? null : targets.open(req); // its WRITE authority checked before any dial
      for (UpdateRoleRequest.Output o : req.outputs()) {
        boxes.add(outboxes.register(req.updateKey(), o.transfer(), o.rowCount(), req.slices(), o.consumer(),
            o.key()));
      }
      for (UpdateRoleRequest.Input in : req.inputs()) {
        inputs.add(transport.open(in.from(), me, downstream.selfRack(), id, new UpdateFetchRequest(req.updateKey(),
            in.transfer(), in.rows(), req.sliceBytes(), req.length(), in.key()).toBytes()));
      }
      for (BlockRef b : new BlockRef[] {req.oldData(), req.newData(), req.oldParity()}) {
        readers.add(b == null ? null : store.open(b));
      }
      long crc = slices();
      finish(crc);
      done = true;
    } finally {
      close(done);
    }
  }

  /** Every slice through the role; returns the CRC32C of the new parity written (0 without one). */
  private long slices() throws IOException, InterruptedException {
    CodingMatrix[] outs = new CodingMatrix[req.outputs().size()];
    for (int o = 0; o < outs.length; o++) {
      outs[o] = new CodingMatrix(Matrix.of(Gf256.INSTANCE, req.outputs().get(o).rows())); // copied once per role
    }
    CodingMatrix parity = null;
    if (req.parityDelta() != null) {
      int[] row = java.util.Arrays.copyOf(req.parityDelta(), held.length);
      if (req.oldParity() != null) {
        row[held.length - 1] = 1; // new parity = old parity + its delta (RackCU Eq. 2); a zero old parity adds nothing
      }
      parity = new CodingMatrix(Matrix.of(Gf256.INSTANCE, new int[][] {row}));
    }
    int[] needs = new int[outs.length]; // per output, the held rows it combines (it waits for those only)
    for (int o = 0; o < outs.length; o++) {
      for (int[] r : req.outputs().get(o).rows()) {
        for (int j = 0; j < r.length; j++) {
          needs[o] = r[j] != 0 ? Math.max(needs[o], j + 1) : needs[o];
        }
      }
    }
    ByteBuffer rows = ByteBuffer.allocateDirect(Math.max(1, maxRows()) * req.sliceBytes());
    CRC32C crc = new CRC32C();
    for (int s = 0; s < req.slices(); s++) {
      int n = req.sliceLength(s);
      int ready = ownDelta(s, n);
      int taken = 0;
      // Each output goes once the rows it combines are here, not after every input: places that feed each other
      // (CAU's racks holding both data and parities) would otherwise each wait for the other's slice first.
      for (int o = 0; o < outs.length; o++) {
        while (ready < needs[o]) {
          ready += take(taken++, s, n, ready);
        }
        byte[] out = new byte[outs[o].rows() * n];
        multiply(outs[o], heldRows(false), rows, n, out);
        boxes.get(o).put(out, stall, req + " transfer " + req.outputs().get(o).transfer());
      }
      while (taken < inputs.size()) {
        ready += take(taken++, s, n, ready);
      }
      if (req.oldParity() != null) {
        read(2, req.oldParity(), (long) s * req.sliceBytes(), n, buf);
        held[ready].clear().put(buf, 0, n).flip();
      }
      if (parity != null) {
        multiply(parity, heldRows(req.oldParity() != null), rows, n, buf);
        crc.update(buf, 0, n);
        sink.write((long) s * req.sliceBytes(), buf, 0, n);
      }
      beat();
    }
    return crc.getValue();
  }

  /**
   * Slice s of the own delta into the first held row (old XOR new, or the new block of a slot that was zeros);
   * returns the rows it filled. Each input's rows follow it ({@link #take}), the old parity last.
   */
  private int ownDelta(int s, int n) throws IOException {
    long at = (long) s * req.sliceBytes();
    if (req.oldData() != null) {
      read(0, req.oldData(), at, n, buf);
      if (req.newData() != null) {
        read(1, req.newData(), at, n, other);
        for (int b = 0; b < n; b++) {
          buf[b] ^= other[b];
        }
      }
    } else if (req.oldDataZero()) { // a filled slot was zeros: its delta is its new block (seed Eq. 3, old unit zero)
      read(1, req.newData(), at, n, buf);
    } else {
      return 0;
    }
    held[0].clear().put(buf, 0, n).flip();
    return 1;
  }

  /** Slice s of input i into the held rows from {@code first}; returns the rows it filled. */
  private int take(int i, int s, int n, int first) throws IOException, InterruptedException {
    int r = req.inputs().get(i).rows();
    awaitInput(inputs.get(i), s);
    Frame f = inputs.get(i).next(s, r * n);
    try {
      for (int row = 0; row < r; row++) {
        f.payload().getBytes(f.payload().readerIndex() + row * n, buf, 0, n);
        held[first + row].clear().put(buf, 0, n).flip();
      }
    } finally {
      f.release();
    }
    inputs.get(i).credit();
    return r;
  }

  /** Bytes [at, at + n) of a local block; zeros past its end (a shorter unit is zero-padded in its stripe). */
  private void read(int reader, BlockRef b, long at, int n, byte[] dst) throws IOException {
    int have = (int) Math.max(0, Math.min(n, b.numBytes() - at));
    if (have > 0) {
      readers.get(reader).read(at, dst, 0, have);
      counters.readLocally(have);
    }
    java.util.Arrays.fill(dst, have, n, (byte) 0);
  }

  private ByteBuffer[] heldRows(boolean withOldParity) {
    int count = req.heldRows() + (withOldParity ? 1 : 0);
    ByteBuffer[] in = new ByteBuffer[count];
    for (int j = 0; j < count; j++) {
      in[j] = held[j].duplicate();
    }
    return in;
  }

  private void multiply(CodingMatrix m, ByteBuffer[] in, ByteBuffer rows, int n, byte[] dst) {
    ByteBuffer[] outs = new ByteBuffer[m.rows()];
    for (int r = 0; r < outs.length; r++) {
      outs[r] = rows.slice(r * n, n);
    }
    kernel.multiply(m, in, outs, n);
    rows.get(0, dst, 0, m.rows() * n);
  }

  private int maxRows() {
    return req.outputs().stream().mapToInt(UpdateRoleRequest.Output::rowCount).max().orElse(1);
  }

  /**
   * Waits for an input's next slice, keeping the updater's stream alive meanwhile: upstream hops (a slow disk, a
   * relay that waits on its own inputs, a write pipeline slow to open here first) add up before the first slice
   * arrives, and a role silent for the updater's stall timeout would look dead. A producer silent for this node's
   * stall timeout still fails as a stall.
   */
  private void awaitInput(PeerStream in, int s) throws IOException, InterruptedException {
    long start = System.nanoTime();
    beat();
    while (!in.await(Math.max(1, stall / 4))) {
      if (System.nanoTime() - start >= java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(stall)) {
        throw new PeerFailure(in.peer().node(), in.peer() + " stalled: no slice " + s + " within " + stall + " ms");
      }
      beat();
    }
  }

  /** Whether a consumer took every slice within the stall timeout; keeps the updater's stream alive meanwhile. */
  private boolean awaitDelivered(UpdateOutboxes.Outbox box) throws IOException, InterruptedException {
    long until = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(stall);
    while (!box.awaitDelivered(Math.max(1, stall / 4))) {
      if (System.nanoTime() - until > 0) {
        return false;
      }
      beat();
    }
    return true;
  }

  /** An empty frame to the updater when a quarter of its stall timeout passed since the last one. */
  private void beat() throws IOException, InterruptedException {
    if (System.nanoTime() - lastFrame > java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(stall / 4)) {
      downstream.send(frame++, downstream.alloc().heapBuffer(0, 0));
      lastFrame = System.nanoTime();
    }
  }

  /** Every consumer took its rows, every input ended, the parity stored; then the result and END. */
  private void finish(long crc) throws IOException, InterruptedException {
    for (int o = 0; o < boxes.size(); o++) {
      if (!awaitDelivered(boxes.get(o))) {
        throw new PeerFailure(null, req + ": transfer " + req.outputs().get(o).transfer() + " was not fetched"
            + " within " + stall + " ms");
      }
    }
    for (PeerStream in : inputs) {
      in.awaitEnd();
    }
    List<EncodeTreeRequest.Stored> stored = new ArrayList<>();
    if (sink != null) {
      sink.finish();
      stored.add(new EncodeTreeRequest.Stored(0, req.length(), crc));
    }
    byte[] result = EncodeTreeRequest.resultBytes(stored);
    downstream.send(frame, downstream.alloc().heapBuffer(result.length, result.length).writeBytes(result));
    downstream.end();
    LOG.debug("update {}: {} played {}", id, me, req);
  }

  private void close(boolean done) {
    for (int o = 0; o < boxes.size(); o++) {
      if (!done) {
        boxes.get(o).fail(new PeerFailure(me, req + " failed at " + me));
      }
      outboxes.remove(req.updateKey(), req.outputs().get(o).transfer());
    }
    if (sink != null && !done) {
      sink.abort();
    }
    for (UnitStore.Reader r : readers) {
      try {
        if (r != null) {
          r.close();
        }
      } catch (IOException e) {
        LOG.debug("closing a reader at {}: {}", me, e.toString());
      }
    }
    inputs.forEach(PeerStream::close);
  }
}
