package org.wideec.engine;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.coder.CodingKernel;
import org.wideec.coder.CodingMatrix;
import org.wideec.coder.Kernels;
import org.wideec.gf.Gf256;
import org.wideec.gf.Matrix;
import org.wideec.gf.RegionKernels;
import org.wideec.transport.Downstream;
import org.wideec.transport.PeerFailure;
import org.wideec.transport.PeerStream;
import org.wideec.transport.RequestHandler;
import org.wideec.transport.SliceTransport;
import org.wideec.protocol.StepRequest;
import org.wideec.protocol.RequestLimits;
import org.wideec.repair.ReplicaAccess;
import org.wideec.repair.UnitStore;

/**
 * A helper's part of a repair (ECPipe §3.2, ECWide §4.1): asks its upstream helpers for their partial sums,
 * then slice by slice reads its own unit (verified against its checksums), multiplies, adds what arrived and
 * forwards the sum; a multi-row step (an encode, ECWide §4.2) multiplies the slice by one coefficient per row and
 * forwards all rows in one frame. Memory is one slice in hand plus the transport's window per upstream, whatever the block
 * size. Any failure goes downstream as an ERROR naming the node to blame.
 */
public final class HelperService implements RequestHandler {
  private static final Logger LOG = LoggerFactory.getLogger(HelperService.class);
  private final SliceTransport transport;
  private final UnitStore store;
  private final ReplicaAccess access;
  private final RepairCounters counters;

  /** A helper that serves every replica it holds (block tokens off, or tests). */
  public HelperService(SliceTransport transport, UnitStore store, RepairCounters counters) {
    this(transport, store, ReplicaAccess.OPEN, counters);
  }

  public HelperService(SliceTransport transport, UnitStore store, ReplicaAccess access, RepairCounters counters) {
    this.transport = transport;
    this.store = store;
    this.access = access;
    this.counters = counters;
  }

  @Override
  public void onRequest(long repairId, byte[] body, Downstream downstream) {
    String me = downstream.selfNode();
    List<PeerStream> ups = new ArrayList<>();
    try {
      StepRequest req = admit(body);
      if (req.digest()) {
        digest(repairId, req, downstream);
        return;
      }
      for (StepRequest.Upstream u : req.upstreams()) {
        ups.add(transport.open(u.endpoint(), me, downstream.selfRack(), repairId, u.request().toBytes()));
      }
      int rows = req.rows();
      RowSpread spread = rows == 1 ? null : new RowSpread(req.coefficients(), req.sliceBytes());
      try (UnitStore.Reader reader = store.open(req.unit())) {
        for (int s = req.firstSlice(); s < req.slices(); s += req.stride()) {
          int n = req.sliceLength(s);
          int bytes = rows * n; // RequestLimits bounded it by the frame size
          ByteBuf out = downstream.alloc().heapBuffer(bytes, bytes);
          try {
            byte[] a = out.array();
            int off = out.arrayOffset() + out.writerIndex();
            if (spread == null) {
              read(reader, req, s, a, off, n);
              if (req.coefficient() != 1) {
                RegionKernels.mul(req.coefficient(), a, off, a, off, n);
              }
            } else {
              read(reader, req, s, spread.slice, 0, n);
              spread.into(a, off, n);
            }
            out.writerIndex(out.writerIndex() + bytes);
            for (PeerStream up : ups) {
              RepairEngine.take(up, s, bytes, a, off);
            }
          } catch (Throwable t) {
            out.release();
            throw t;
          }
          downstream.send(s, out);
        }
      }
      for (PeerStream up : ups) {
        up.awaitEnd();
      }
      downstream.end();
    } catch (PeerFailure e) {
      LOG.debug("repair {} at {}: {}", repairId, me, e.getMessage());
      // A failure nobody is blamed for while this node's own transport shuts down (it can no longer reach its
      // upstreams) is this node going away: blame it, so the requestor replaces it rather than guessing.
      downstream.fail(e.culprit() == null && transport.closing() ? me : e.culprit(), e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      downstream.fail(me, me + " was interrupted");
    } catch (ReplicaAccess.DeniedException e) {
      // The asker lacks authority: no helper is to blame (replacing this one would not help).
      LOG.warn("repair {}: {} refused {}: {}", repairId, me, downstream.node(), e.getMessage());
      downstream.fail(null, me + " refused access: " + e.getMessage());
    } catch (IOException | RuntimeException e) {
      LOG.warn("repair {}: helper {} failed: {}", repairId, me, e.toString());
      downstream.fail(me, "helper " + me + " failed: " + e.getMessage());
    } finally {
      ups.forEach(PeerStream::close);
    }
  }

  @Override
  public void screen(byte[] body) throws IOException {
    admit(body);
  }

  /** The client whose token the step carries: what it holds here, and what it relays, count under that client. */
  @Override
  public String screen(byte[] body, boolean clusterPeer) throws IOException {
    return access.clientOf(admit(body).unit());
  }

  /** The request, once it is within every bound and its asker may read its unit; each upstream checks its own. */
  private StepRequest admit(byte[] body) throws IOException {
    StepRequest req = StepRequest.parse(body);
    RequestLimits.forFrames(transport.conf().maxFrameBytes()).check(req);
    // Authorized before anything is read or dialled; each upstream checks its own unit's token in turn.
    access.checkRead(req.unit());
    return req;
  }

  /**
   * The CRC32C of the unit instead of its bytes: how a requestor confirms that a rebuilt block was stored as
   * sent, read back through the same verified path.
   */
  private void digest(long repairId, StepRequest req, Downstream downstream) throws IOException, InterruptedException {
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    byte[] buf = new byte[req.sliceBytes()];
    try (UnitStore.Reader reader = store.open(req.unit())) {
      for (int s = 0; s < req.slices(); s++) {
        int n = req.sliceLength(s);
        read(reader, req, s, buf, 0, n);
        crc.update(buf, 0, n);
      }
    }
    ByteBuf out = downstream.alloc().heapBuffer(8);
    out.writeLong(crc.getValue());
    downstream.send(0, out);
    downstream.end();
  }

  private void read(UnitStore.Reader reader, StepRequest req, int slice, byte[] a, int off, int n) throws IOException {
    reader.read(req.offset() + (long) slice * req.sliceBytes(), a, off, n);
    counters.readLocally(n);
  }

  /**
   * A multi-row step's arithmetic (ECWide §4.2): one slice of the unit, read once, times each row's coefficient into
   * the rows of the outgoing frame, by the fastest coding kernel (one column, p rows; ISA-L when loaded, which codes
   * direct buffers, so the slice and its rows pass through two direct buffers of this step's own).
   */
  private static final class RowSpread {
    final byte[] slice;
    private final CodingMatrix column;
    private final CodingKernel kernel = Kernels.best();
    private final ByteBuffer in;
    private final ByteBuffer rows;

    RowSpread(int[] coefficients, int sliceBytes) {
      int[][] m = new int[coefficients.length][];
      for (int r = 0; r < m.length; r++) {
        m[r] = new int[] {coefficients[r]};
      }
      column = new CodingMatrix(Matrix.of(Gf256.INSTANCE, m));
      slice = new byte[sliceBytes];
      in = ByteBuffer.allocateDirect(sliceBytes);
      rows = ByteBuffer.allocateDirect(coefficients.length * sliceBytes);
    }

    /** Rows r = 0..p-1 of {@code dst}, each n bytes from {@code off + r n}, become coefficient r times the slice. */
    void into(byte[] dst, int off, int n) {
      in.clear().put(slice, 0, n).flip();
      ByteBuffer[] outs = new ByteBuffer[column.rows()];
      for (int r = 0; r < outs.length; r++) {
        outs[r] = rows.slice(r * n, n);
      }
      kernel.multiply(column, new ByteBuffer[] {in}, outs, n);
      rows.get(0, dst, off, outs.length * n);
    }
  }
}
