package org.wideec.engine;

import io.netty.buffer.ByteBuf;
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
import org.wideec.repair.ReplicaAccess;
import org.wideec.repair.SliceSink;
import org.wideec.repair.UnitStore;
import org.wideec.transport.Downstream;
import org.wideec.transport.Frame;
import org.wideec.transport.PeerFailure;
import org.wideec.transport.PeerStream;
import org.wideec.transport.RequestHandler;
import org.wideec.transport.SliceTransport;
import org.wideec.protocol.EncodeTreeRequest;
import org.wideec.protocol.RapidRaidStepRequest;

/**
 * Serves one position of RapidRAID's pipeline ({@link RapidRaidStepRequest}) on a node's slice port: checks the
 * READ token of every local piece before anything is read or dialled, asks the upstream position, then slice by
 * slice computes x_i and c_i in one pass of the coding kernel (a 2-row matrix over [x_{i-1}, pieces]; ISA-L on
 * direct buffers when loaded), forwards x_i and writes c_i to the node's {@link CodewordSinks}. Memory is one slice
 * of each input and output plus the transport's window, whatever the piece size. Nothing is thrown into the
 * transport's thread: every failure ends the stream with an ERROR naming the node to blame, and aborts the sink.
 */
public final class RapidRaidStepService implements RequestHandler {
  private static final Logger LOG = LoggerFactory.getLogger(RapidRaidStepService.class);
  private final SliceTransport transport;
  private final UnitStore store;
  private final ReplicaAccess access;
  private final CodewordSinks sinks;
  private final RepairCounters counters;

  public RapidRaidStepService(SliceTransport transport, UnitStore store, ReplicaAccess access, CodewordSinks sinks,
      RepairCounters counters) {
    this.transport = transport;
    this.store = store;
    this.access = access;
    this.sinks = sinks;
    this.counters = counters;
  }

  @Override
  public void onRequest(long repairId, byte[] body, Downstream downstream) {
    String me = downstream.selfNode();
    PeerStream up = null;
    SliceSink sink = null;
    List<UnitStore.Reader> readers = new ArrayList<>();
    boolean finished = false;
    try {
      RapidRaidStepRequest req = RapidRaidStepRequest.parse(body);
      if (req.sliceBytes() > transport.conf().maxFrameBytes()) {
        throw new ReplicaAccess.DeniedException("slices of " + req.sliceBytes() + " bytes; at most "
            + transport.conf().maxFrameBytes() + " (wide-ec.transport.max-frame.bytes)");
      }
      for (RapidRaidStepRequest.Piece p : req.pieces()) {
        if (!virtual(p)) {
          access.checkRead(p.block());
        }
      }
      if (req.upstream() != null) {
        try {
          org.wideec.protocol.RequestLimits.checkAddress(req.upstream().endpoint());
        } catch (IOException e) {
          throw new ReplicaAccess.DeniedException(e.getMessage());
        }
        up = transport.open(req.upstream().endpoint(), me, downstream.selfRack(), repairId,
            req.upstream().request().toBytes());
      }
      for (RapidRaidStepRequest.Piece p : req.pieces()) {
        readers.add(virtual(p) ? null : store.open(p.block()));
      }
      Step step = new Step(req, up != null);
      CRC32C crc = new CRC32C();
      byte[] c = new byte[req.sliceBytes()];
      for (int s = 0; s < req.slices(); s++) {
        int n = req.sliceLength(s);
        for (int t = 0; t < readers.size(); t++) {
          readPiece(readers.get(t), req.pieces().get(t), (long) s * req.sliceBytes(), step.slice, n);
          step.in[step.pieceColumn + t].clear().put(step.slice, 0, n).flip();
        }
        if (up != null) {
          Frame f = up.next(s, n);
          try {
            step.in[0].clear().limit(n);
            f.payload().getBytes(f.payload().readerIndex(), step.in[0]);
            step.in[0].flip();
          } finally {
            f.release();
          }
          up.credit();
        }
        step.compute(n);
        step.out[step.codewordRow].get(0, c, 0, n);
        crc.update(c, 0, n);
        if (sink == null) {
          sink = sinks.open(req);
        }
        sink.write((long) s * req.sliceBytes(), c, 0, n);
        int bytes = req.frameBytes(s);
        ByteBuf frame = downstream.alloc().heapBuffer(bytes, bytes);
        if (bytes > 0) {
          frame.writeBytes(step.out[0].duplicate().position(0).limit(n));
        }
        downstream.send(s, frame);
      }
      List<EncodeTreeRequest.Stored> reports = new ArrayList<>();
      if (up != null) {
        int expected = EncodeTreeRequest.resultLength(req.position());
        Frame f = up.next(req.slices(), expected);
        try {
          byte[] b = new byte[expected];
          f.payload().getBytes(f.payload().readerIndex(), b);
          reports.addAll(EncodeTreeRequest.parseResult(b));
        } catch (IOException e) {
          throw new PeerFailure(req.upstream().endpoint().node(), "position " + (req.position() - 1) + " of "
              + req.object() + " sent a malformed report: " + e.getMessage(), e);
        } finally {
          f.release();
        }
        up.credit();
        up.awaitEnd();
      }
      sink.finish();
      finished = true;
      reports.add(new EncodeTreeRequest.Stored(req.position(), req.length(), crc.getValue()));
      byte[] report = EncodeTreeRequest.resultBytes(reports);
      ByteBuf b = downstream.alloc().heapBuffer(report.length, report.length);
      b.writeBytes(report);
      downstream.send(req.slices(), b);
      downstream.end();
      LOG.debug("rapidraid {}: {} stored c_{} of {}", repairId, me, req.position(), req.object());
    } catch (PeerFailure e) {
      LOG.debug("rapidraid {} at {}: {}", repairId, me, e.getMessage());
      downstream.fail(e.culprit(), e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      downstream.fail(me, me + " was interrupted");
    } catch (ReplicaAccess.DeniedException e) {
      LOG.warn("rapidraid {}: {} refused {}: {}", repairId, me, downstream.node(), e.getMessage());
      downstream.fail(null, me + " refused the rapidraid step: " + e.getMessage());
    } catch (IOException | RuntimeException e) { // DESIGN.md §2: nothing of ours escapes into the transport's thread
      LOG.warn("rapidraid {}: {} failed: {}", repairId, me, e.toString());
      downstream.fail(me, "rapidraid position at " + me + " failed: " + e.getMessage());
    } finally {
      if (sink != null && !finished) {
        sink.abort();
      }
      for (UnitStore.Reader r : readers) {
        try {
          if (r != null) {
            r.close();
          }
        } catch (IOException e) {
          LOG.debug("closing a piece reader at {}: {}", me, e.toString());
        }
      }
      if (up != null) {
        up.close();
      }
    }
  }

  /**
   * A piece of no bytes is a short last stripe's virtual zero piece (RapidRAID's pipeline still runs through its
   * positions): nothing is stored, so there is nothing to authorize or open, and it reads as zeros.
   */
  static boolean virtual(RapidRaidStepRequest.Piece p) {
    return p.block().numBytes() == 0;
  }

  /** A piece shorter than the codewords reads as zeros past its end. */
  private void readPiece(UnitStore.Reader reader, RapidRaidStepRequest.Piece p, long offset, byte[] dst, int n)
      throws IOException {
    int have = (int) Math.max(0, Math.min(n, p.block().numBytes() - offset));
    if (have > 0) {
      reader.read(offset, dst, 0, have);
      counters.readLocally(have);
    }
    java.util.Arrays.fill(dst, have, n, (byte) 0);
  }

  /**
   * One position's arithmetic (RapidRAID eqs. 3-4): row 0 = x_i = x_{i-1} + sum psi_t o_t, row 1 = c_i = x_{i-1} +
   * sum xi_t o_t, over the inputs [x_{i-1} when there is an upstream, o_0, o_1]; the last position computes c_i only.
   */
  private static final class Step {
    final byte[] slice;
    final ByteBuffer[] in;
    final ByteBuffer[] out;
    final int pieceColumn;
    final int codewordRow;
    private final CodingMatrix matrix;
    private final CodingKernel kernel = Kernels.best();

    Step(RapidRaidStepRequest req, boolean upstream) {
      pieceColumn = upstream ? 1 : 0;
      int cols = pieceColumn + req.pieces().size();
      List<int[]> rows = new ArrayList<>();
      if (req.forward()) {
        rows.add(row(req, upstream, cols, true));
      }
      rows.add(row(req, upstream, cols, false));
      codewordRow = rows.size() - 1;
      matrix = new CodingMatrix(Matrix.of(Gf256.INSTANCE, rows.toArray(new int[0][])));
      slice = new byte[req.sliceBytes()];
      in = new ByteBuffer[cols];
      for (int c = 0; c < cols; c++) {
        in[c] = ByteBuffer.allocateDirect(req.sliceBytes());
      }
      out = new ByteBuffer[rows.size()];
      for (int r = 0; r < out.length; r++) {
        out[r] = ByteBuffer.allocateDirect(req.sliceBytes());
      }
    }

    private static int[] row(RapidRaidStepRequest req, boolean upstream, int cols, boolean psi) {
      int[] r = new int[cols];
      int c = 0;
      if (upstream) {
        r[c++] = 1;
      }
      for (RapidRaidStepRequest.Piece p : req.pieces()) {
        r[c++] = psi ? p.psi() : p.xi();
      }
      return r;
    }

    void compute(int n) {
      for (ByteBuffer b : in) {
        b.position(0).limit(n);
      }
      for (ByteBuffer b : out) {
        b.clear().limit(n);
      }
      kernel.multiply(matrix, in, out, n);
    }
  }
}
