package org.wideec.engine;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.wideec.gf.RegionKernels;
import org.wideec.protocol.RackSumRequest;
import org.wideec.protocol.SummaryRequest;
import org.wideec.repair.ReplicaAccess;
import org.wideec.repair.UnitStore;
import org.wideec.scrub.UnitSummary;
import org.wideec.transport.Downstream;
import org.wideec.transport.Frame;
import org.wideec.transport.PeerStream;
import org.wideec.transport.SliceTransport;

/**
 * A scrub's steps on a node's slice port: a unit folded into its one-page linear summary ({@link SummaryRequest}), and
 * a rack's sum of its holders' pages per check row ({@link RackSumRequest}, ECWide §4.1's in-rack aggregation), so
 * about one page per unit crosses racks whatever the block size. Reads are paced by the scrub's throttle.
 */
final class SummarySteps {
  private final SliceTransport transport;
  private final UnitStore store;
  private final ReplicaAccess access;
  private final RepairCounters counters;
  private final ScrubThrottle scrubReads;

  SummarySteps(SliceTransport transport, UnitStore store, ReplicaAccess access, RepairCounters counters,
      ScrubThrottle scrubReads) {
    this.transport = transport;
    this.store = store;
    this.access = access;
    this.counters = counters;
    this.scrubReads = scrubReads;
  }

  /** A summary request, once its page and slices fit a frame and its asker may read its unit. */
  SummaryRequest admitSummary(byte[] body) throws IOException {
    SummaryRequest req = SummaryRequest.parse(body);
    req.checkFits(transport.conf().maxFrameBytes());
    access.checkRead(req.unit());
    return req;
  }

  /**
   * A rack sum, once its answer and slices fit a frame, its upstreams are DataNodes' ports and its asker may read its
   * unit; each upstream checks its own unit's token when this node asks it.
   */
  RackSumRequest admitRackSum(byte[] body) throws IOException {
    RackSumRequest req = RackSumRequest.parse(body);
    req.checkFits(transport.conf().maxFrameBytes());
    access.checkRead(req.fold().unit());
    return req;
  }

  /**
   * The unit's linear summary instead of its bytes: a scrub checks the code's parity relations on one page per unit,
   * so one page leaves this node whatever the block size.
   */
  void summary(SummaryRequest req, Downstream downstream) throws IOException, InterruptedException {
    byte[] page = fold(req);
    ByteBuf out = downstream.alloc().heapBuffer(page.length);
    out.writeBytes(page);
    downstream.send(0, out);
    counters.summaryServed(); // before the end: once the asker has it all, the count says so
    downstream.end();
  }

  /**
   * A rack's share of each check row instead of one page per unit (ECWide §4.1's in-rack aggregation): the other
   * holders of the rack are asked first, so they fold while this node folds, then this node's page times each
   * coefficient and every upstream's rows are added, and one frame of rows goes on.
   */
  void rackSum(long id, RackSumRequest req, Downstream downstream) throws IOException, InterruptedException {
    String me = downstream.selfNode();
    List<PeerStream> ups = new ArrayList<>();
    try {
      for (RackSumRequest.Upstream u : req.upstreams()) {
        ups.add(transport.open(u.endpoint(), me, downstream.selfRack(), id, u.request().toBytes()));
      }
      byte[] page = fold(req.fold());
      int bytes = req.answerBytes();
      ByteBuf out = downstream.alloc().heapBuffer(bytes, bytes);
      try {
        byte[] a = out.array();
        int off = out.arrayOffset() + out.writerIndex();
        int[] c = req.coefficients();
        for (int i = 0; i < c.length; i++) {
          RegionKernels.mul(c[i], page, 0, a, off + i * page.length, page.length);
        }
        for (PeerStream up : ups) {
          Frame f = up.next(0, bytes);
          try {
            RegionKernels.xor(f.payload().nioBuffer(), 0, ByteBuffer.wrap(a, off, bytes).slice(), 0, bytes);
          } finally {
            f.release();
          }
          up.credit();
        }
        out.writerIndex(out.writerIndex() + bytes);
      } catch (Throwable t) {
        out.release();
        throw t;
      }
      downstream.send(0, out);
      for (PeerStream up : ups) {
        up.awaitEnd();
      }
      counters.summaryServed(); // before the end, as above
      downstream.end();
    } finally {
      ups.forEach(PeerStream::close);
    }
  }

  /** Folds a local replica into its one-page summary, read through its verified path at the scrub's pace. */
  private byte[] fold(SummaryRequest req) throws IOException, InterruptedException {
    UnitSummary fold = new UnitSummary(req.pageSize(), req.multiplier());
    long length = req.unit().numBytes();
    byte[] buf = new byte[(int) Math.min(req.sliceBytes(), Math.max(1, length))];
    try (UnitStore.Reader reader = store.open(req.unit())) {
      for (long at = 0; at < length; at += buf.length) {
        int n = (int) Math.min(buf.length, length - at);
        scrubReads.acquire(req.unit(), n);
        reader.read(at, buf, 0, n);
        counters.readLocally(n);
        fold.update(buf, 0, n);
      }
    }
    return fold.summary();
  }
}
