package org.wideec.engine;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.wideec.coder.CodingKernel;
import org.wideec.coder.CodingMatrix;
import org.wideec.coder.Kernels;
import org.wideec.gf.Gf256;
import org.wideec.gf.Matrix;
import org.wideec.gf.RegionKernels;
import org.wideec.protocol.EncodeTreeRequest;
import org.wideec.protocol.RapidRaidStepRequest;
import org.wideec.protocol.StepRequest;
import org.wideec.repair.BlockRef;
import org.wideec.topology.Endpoint;
import org.wideec.transport.Frame;
import org.wideec.transport.PeerFailure;
import org.wideec.transport.PeerStream;

/**
 * One step of a plan as the {@link StepService} runs it: for each slice it carries, rows = coefficients times its
 * local units' slices, plus every upstream's frame added into each group of rows it spans; the first
 * {@code forwardRows} go downstream, and with a sink the last row is written locally. A helper's step (ECPipe §3.2)
 * is p rows of one unit, all forwarded, each upstream carrying the same p rows. A RapidRAID position (RapidRAID §IV,
 * eqs. 3-4) is the two rows x_i = x_{i-1} + sum psi_t o_t and c_i = x_{i-1} + sum xi_t o_t over its one or two
 * pieces: x_i forwarded (none at the last position), c_i to the local sink, the upstream's x_{i-1} added into both.
 *
 * @param coefficients rows by locals
 * @param position the RapidRAID request whose codeword the last row is; null: no sink
 */
record SliceStep(List<BlockRef> locals, int[][] coefficients, long offset, long length, int sliceBytes,
    int firstSlice, int stride, List<Upstream> upstreams, int forwardRows, RapidRaidStepRequest position) {

  /** An upstream step, what to ask it, and how many rows each of its frames carries. */
  record Upstream(Endpoint endpoint, byte[] body, int rows) {
    /** Adds slice s of this upstream (its rows) into each group of as many rows of a[off, off + rows * n). */
    void addInto(PeerStream stream, int s, int n, byte[] a, int off, int ownRows) throws PeerFailure,
        InterruptedException {
      int bytes = rows * n;
      Frame f = stream.next(s, bytes);
      try {
        ByteBuffer in = f.payload().nioBuffer();
        for (int at = 0; at < ownRows * n; at += bytes) {
          RegionKernels.xor(in, 0, ByteBuffer.wrap(a, off + at, bytes).slice(), 0, bytes);
        }
      } finally {
        f.release();
      }
      stream.credit();
    }

    /** The upstream position's report of the codewords stored before this one, after its last slice. */
    List<EncodeTreeRequest.Stored> report(PeerStream stream, SliceStep step) throws IOException,
        InterruptedException {
      RapidRaidStepRequest req = step.position();
      int expected = EncodeTreeRequest.resultLength(req.position());
      Frame f = stream.next(step.slices(), expected);
      try {
        byte[] b = new byte[expected];
        f.payload().getBytes(f.payload().readerIndex(), b);
        return EncodeTreeRequest.parseResult(b);
      } catch (IOException e) {
        throw new PeerFailure(endpoint.node(), "position " + (req.position() - 1) + " of " + req.object()
            + " sent a malformed report: " + e.getMessage(), e);
      } finally {
        f.release();
        stream.credit();
      }
    }
  }

  /** A helper's step of a repair or encode as asked, every upstream a stream: its unit times each row's coefficient. */
  static SliceStep of(StepRequest req) {
    return of(req, null);
  }

  /**
   * A helper's step of a repair or encode at {@code selfNode}: its unit times each row's coefficient, and each upstream
   * step of the same node ({@link #folds}) read here as one more local unit, its own upstreams asked by this step
   * instead. A node holding several units of a chain adds them itself before it sends (ECWide §4.2: a chain's traffic
   * is one stream per node, not per unit), so no stream runs from a node to itself: the bytes, MACs and threads of
   * such a stream were the host's CPU and nothing else.
   *
   * @param selfNode the node running the step; null folds nothing
   */
  static SliceStep of(StepRequest req, String selfNode) {
    List<BlockRef> locals = new ArrayList<>();
    List<int[]> columns = new ArrayList<>();
    List<Upstream> ups = new ArrayList<>();
    fold(req, selfNode, locals, columns, ups);
    int[][] m = new int[req.rows()][locals.size()];
    for (int t = 0; t < locals.size(); t++) {
      int[] c = columns.get(t);
      for (int r = 0; r < c.length; r++) {
        m[r][t] = c[r];
      }
    }
    return new SliceStep(List.copyOf(locals), m, req.offset(), req.length(), req.sliceBytes(), req.firstSlice(),
        req.stride(), List.copyOf(ups), req.rows(), null);
  }

  private static void fold(StepRequest req, String selfNode, List<BlockRef> locals, List<int[]> columns,
      List<Upstream> ups) {
    locals.add(req.unit());
    columns.add(req.coefficients());
    for (StepRequest.Upstream u : req.upstreams()) {
      if (folds(req, u, selfNode)) {
        fold(u.request(), selfNode, locals, columns, ups);
      } else {
        ups.add(new Upstream(u.endpoint(), u.request().toBytes(), u.request().rows()));
      }
    }
  }

  /**
   * Whether a step running at {@code node} reads its upstream {@code u}'s unit itself rather than asking it for a
   * stream: {@code u} is on the same node and carries the same rows over the same slices (a chain's or tree's
   * steps always do; a digest never folds).
   */
  static boolean folds(StepRequest step, StepRequest.Upstream u, String node) {
    StepRequest r = u.request();
    return node != null && u.endpoint().node().equals(node) && !step.digest() && !r.digest()
        && r.rows() == step.rows() && r.offset() == step.offset() && r.length() == step.length()
        && r.sliceBytes() == step.sliceBytes() && r.firstSlice() == step.firstSlice() && r.stride() == step.stride();
  }

  /** A RapidRAID position: x_i (when it forwards) and c_i over its pieces, c_i to the sink. */
  static SliceStep of(RapidRaidStepRequest req) {
    List<RapidRaidStepRequest.Piece> pieces = req.pieces();
    int[] psi = pieces.stream().mapToInt(RapidRaidStepRequest.Piece::psi).toArray();
    int[] xi = pieces.stream().mapToInt(RapidRaidStepRequest.Piece::xi).toArray();
    int[][] m = req.forward() ? new int[][] {psi, xi} : new int[][] {xi};
    List<Upstream> ups = req.upstream() == null ? List.of()
        : List.of(new Upstream(req.upstream().endpoint(), req.upstream().request().toBytes(), 1));
    return new SliceStep(pieces.stream().map(RapidRaidStepRequest.Piece::block).toList(), m, 0, req.length(),
        req.sliceBytes(), 0, 1, ups, req.forward() ? 1 : 0, req);
  }

  /**
   * A piece of no bytes is a short last stripe's virtual zero piece (RapidRAID's pipeline still runs through its
   * positions): nothing is stored, so there is nothing to authorize or open, and it reads as zeros.
   */
  static boolean virtual(BlockRef b) {
    return b.numBytes() == 0;
  }

  int rows() {
    return coefficients.length;
  }

  boolean sinks() {
    return position != null;
  }

  /** A position's pieces may be shorter than its codeword: they read as zeros past their end. */
  boolean padsShortLocals() {
    return position != null;
  }

  int slices() {
    return StepRequest.slices(length, sliceBytes);
  }

  int sliceLength(int slice) {
    return StepRequest.sliceLength(length, sliceBytes, slice);
  }

  Arithmetic arithmetic() {
    return new Arithmetic(coefficients, locals.size(), sliceBytes);
  }

  /**
   * The rows from the local slices, by the fastest coding kernel (ISA-L when loaded, which codes direct buffers, so
   * the slices and rows pass through direct buffers of this step's own); one row of one unit is a region multiply.
   */
  static final class Arithmetic {
    private final byte[][] inputs;
    private final int[][] coefficients;
    private final CodingMatrix matrix;
    private final CodingKernel kernel;
    private final ByteBuffer[] in;
    private final ByteBuffer rows;

    Arithmetic(int[][] coefficients, int locals, int sliceBytes) {
      this.coefficients = coefficients;
      inputs = new byte[locals][sliceBytes];
      boolean single = coefficients.length == 1 && locals == 1;
      matrix = single ? null : new CodingMatrix(Matrix.of(Gf256.INSTANCE, coefficients));
      kernel = single ? null : Kernels.best();
      in = new ByteBuffer[single ? 0 : locals];
      for (int t = 0; t < in.length; t++) {
        in[t] = ByteBuffer.allocateDirect(sliceBytes);
      }
      rows = single ? null : ByteBuffer.allocateDirect(coefficients.length * sliceBytes);
    }

    /** Where local t's slice is read to. */
    byte[] input(int t) {
      return inputs[t];
    }

    /** Rows r = 0..p-1 of {@code dst}, each n bytes from {@code off + r n}. */
    void compute(byte[] dst, int off, int n) {
      if (matrix == null) {
        int c = coefficients[0][0];
        if (c == 1) {
          System.arraycopy(inputs[0], 0, dst, off, n);
        } else {
          RegionKernels.mul(c, inputs[0], 0, dst, off, n);
        }
        return;
      }
      for (int t = 0; t < in.length; t++) {
        in[t].clear().put(inputs[t], 0, n).flip();
      }
      ByteBuffer[] outs = new ByteBuffer[coefficients.length];
      for (int r = 0; r < outs.length; r++) {
        outs[r] = rows.slice(r * n, n);
      }
      kernel.multiply(matrix, in, outs, n);
      rows.get(0, dst, off, outs.length * n);
    }
  }
}
