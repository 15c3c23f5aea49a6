package org.wideec.engine;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.wideec.gf.RegionKernels;
import org.wideec.protocol.StepRequest;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;
import org.wideec.transport.BackgroundWork;
import org.wideec.transport.Frame;
import org.wideec.transport.PeerFailure;
import org.wideec.transport.PeerStream;
import org.wideec.transport.SliceTransport;
import org.wideec.transport.TransportFaultInjector;

/**
 * The requestor's streams from the helpers of one plan: asks each helper for its stream, then combines slice s of
 * every stream into slice s of each lost unit as the slices arrive (ECPipe §3.2: the requestor only adds what the
 * helpers send, with the plan's coefficients), and hands each rebuilt slice on in order.
 */
final class HelperStreams {
  private final SliceTransport transport;
  private final boolean background;
  private final DialAhead ahead;

  /** @param background whether the streams carry background work, which helpers send under their caps */
  HelperStreams(SliceTransport transport, boolean background) {
    this.transport = transport;
    this.background = background;
    this.ahead = new DialAhead(transport);
  }

  /** A helper's stream failed while opening: it could not be reached, or refused this node (a wrong secret). */
  static final class Unreachable extends PeerFailure {
    Unreachable(PeerFailure f) {
      super(f.culprit(), f.getMessage(), f);
    }
  }

  /**
   * Receives each rebuilt slice in order: out[o][0..n) is slice s, at offset within the range, of lost unit o. Slices
   * that no stream of the plan carries are skipped.
   */
  @FunctionalInterface
  interface RebuiltSlices {
    void accept(int s, long offset, int n, byte[][] out) throws IOException;
  }

  /** Runs once every stream of an attempt is open. */
  @FunctionalInterface
  interface StreamsOpen {
    void run() throws IOException;
  }

  /** Streams bytes [rangeOffset, rangeOffset + length) of the lost units as the plan rebuilds them. */
  void stream(StripeRepair r, UnitLocation requestor, StreamPlan plan, int sliceBytes, long rangeOffset,
      long length, StreamsOpen opened, RebuiltSlices consumer) throws IOException, InterruptedException {
    long repairId = BackgroundWork.id(background);
    TransportFaultInjector.get().onRepairAttempt(requestor.node(), repairId);
    List<PeerStream> streams = new ArrayList<>();
    try {
      open(r, requestor, plan, repairId, rangeOffset, length, sliceBytes, streams);
      opened.run();
      int slices = StepRequest.slices(length, sliceBytes);
      byte[][] out = new byte[r.lost().length][sliceBytes];
      for (int s = 0; s < slices; s++) {
        if (!carried(plan, s)) {
          continue; // a plan asking for a sample of slices (a validation's) has nothing of the others
        }
        long offset = (long) s * sliceBytes;
        int n = (int) Math.min(sliceBytes, length - offset);
        for (byte[] o : out) {
          Arrays.fill(o, 0, n, (byte) 0);
        }
        for (int j = 0; j < streams.size(); j++) {
          if (plan.streams.get(j).request().carries(s)) {
            take(streams.get(j), s, n, plan.coefficients, j, out);
          }
        }
        consumer.accept(s, offset, n, out);
      }
      for (PeerStream s : streams) {
        s.awaitEnd();
      }
    } finally {
      streams.forEach(PeerStream::close);
    }
  }

  /** Whether some stream carries slice s; a plan of no streams (every input a zero unit) rebuilds zeros for all. */
  private static boolean carried(StreamPlan plan, int s) {
    if (plan.streams.isEmpty()) {
      return true;
    }
    for (StreamPlan.Stream st : plan.streams) {
      if (st.request().carries(s)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Opens one stream per helper of the plan, each asking for the range, all at once ({@link SliceTransport#openAll}:
   * on cold connections a star's k handshakes cost about one, not k in turn); a helper that fails here is Unreachable,
   * the first in the plan's order when several do, and then no stream of the attempt is left open.
   */
  private void open(StripeRepair r, UnitLocation requestor, StreamPlan plan, long repairId, long rangeOffset,
      long length, int sliceBytes, List<PeerStream> streams) throws IOException {
    boolean whole = rangeOffset == 0 && length == r.length();
    try {
      List<SliceTransport.Ask> asks = new ArrayList<>(plan.streams.size());
      List<StepRequest.Upstream> heads = new ArrayList<>(plan.streams.size());
      for (StreamPlan.Stream s : plan.streams) {
        StepRequest req = whole ? s.request() : s.request().range(rangeOffset, length);
        heads.add(new StepRequest.Upstream(s.endpoint(), req));
        // A DataNode proves the cluster secret; a client proves the block token of the helper it asks.
        asks.add(new SliceTransport.Ask(s.endpoint(), req.toBytes(), transport.credentialFor(req.unit().token()),
            transport.windowFor(repairId, sliceBytes, !requestor.rack().equals(s.endpoint().rack()))));
      }
      // The inner helpers dial their upstreams while the heads are asked, not each after its downstream.
      ahead.tell(requestor.node(), requestor.rack(), repairId, heads);
      streams.addAll(transport.openAll(requestor.node(), requestor.rack(), repairId, asks));
    } catch (PeerFailure f) {
      throw f.culprit() == null ? f : new Unreachable(f);
    }
  }

  /** Adds coefficient[o][j] times slice s of stream j into out[o], for every lost unit o. */
  private static void take(PeerStream stream, int s, int n, int[][] coefficients, int j, byte[][] out)
      throws PeerFailure, InterruptedException {
    Frame f = stream.next(s, n);
    try {
      ByteBuffer in = f.payload().nioBuffer();
      for (int o = 0; o < out.length; o++) {
        RegionKernels.mulAdd(coefficients[o][j], in, 0, ByteBuffer.wrap(out[o]), 0, n);
      }
    } finally {
      f.release();
    }
    stream.credit();
  }
}
