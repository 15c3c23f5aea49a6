package org.wideec.engine;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.gf.RegionKernels;
import org.wideec.protocol.EncodeTreeRequest;
import org.wideec.protocol.RackSumRequest;
import org.wideec.protocol.RapidRaidStepRequest;
import org.wideec.protocol.RequestLimits;
import org.wideec.protocol.StepRequest;
import org.wideec.protocol.SummaryRequest;
import org.wideec.repair.BlockRef;
import org.wideec.repair.ReplicaAccess;
import org.wideec.repair.SliceSink;
import org.wideec.repair.UnitStore;
import org.wideec.scrub.UnitSummary;
import org.wideec.transport.Downstream;
import org.wideec.transport.Frame;
import org.wideec.transport.PeerFailure;
import org.wideec.transport.PeerStream;
import org.wideec.transport.RequestHandler;
import org.wideec.transport.SliceTransport;

/**
 * Runs one step of any plan on a node's slice port: a helper of a repair (ECPipe §3.2, ECWide §4.1), a multi-row
 * step of an encode (ECWide §4.2) or a position of RapidRAID's pipeline (RapidRAID §IV, a two-row step whose second
 * row goes to a local sink). Each request becomes a {@link SliceStep}, checked before anything is read or dialled:
 * the service asks its upstreams, then slice by slice computes the rows from its local units and adds what arrived,
 * forwards its rows and writes a sink row locally. A scrub's summary request folds a local unit into one page and
 * sends only that ({@link SummaryRequest}); a rack sum adds the rack's other holders' pages in first, one page per
 * check row ({@link RackSumRequest}). Memory is one frame plus the transport's window per upstream,
 * whatever the block size. Nothing is thrown into the transport's thread: every failure ends the stream with an
 * ERROR naming the node to blame (and aborts a sink).
 */
public final class StepService implements RequestHandler {
  private static final Logger LOG = LoggerFactory.getLogger(StepService.class);
  private final SliceTransport transport;
  private final UnitStore store;
  private final ReplicaAccess access;
  private final CodewordSinks sinks;
  private final RepairCounters counters;
  private final ScrubThrottle scrubReads;

  /** A helper that serves every replica it holds (block tokens off, or tests), and no pipeline position. */
  public StepService(SliceTransport transport, UnitStore store, RepairCounters counters) {
    this(transport, store, ReplicaAccess.OPEN, null, counters);
  }

  /** @param sinks where a RapidRAID position's codeword goes; null: this node runs no position */
  public StepService(SliceTransport transport, UnitStore store, ReplicaAccess access, CodewordSinks sinks,
      RepairCounters counters) {
    this(transport, store, access, sinks, counters, ScrubThrottle.NONE);
  }

  /** @param scrubReads paces the reads of summary requests (the other steps are a repair's or an encode's) */
  public StepService(SliceTransport transport, UnitStore store, ReplicaAccess access, CodewordSinks sinks,
      RepairCounters counters, ScrubThrottle scrubReads) {
    this.scrubReads = scrubReads;
    this.transport = transport;
    this.store = store;
    this.access = access;
    this.sinks = sinks;
    this.counters = counters;
  }

  @Override
  public void onRequest(long repairId, byte[] body, Downstream downstream) {
    boolean position = RapidRaidStepRequest.isOne(body);
    String label = position ? "rapidraid" : "repair";
    String me = downstream.selfNode();
    try {
      if (position) {
        run(repairId, downstream, admitPosition(RapidRaidStepRequest.parse(body)));
        return;
      }
      if (RackSumRequest.isOne(body)) {
        rackSum(repairId, admitRackSum(body), downstream);
        return;
      }
      if (SummaryRequest.isOne(body)) {
        summary(admitSummary(body), downstream);
        return;
      }
      StepRequest req = admit(body);
      if (req.digest()) {
        digest(req, downstream);
      } else {
        run(repairId, downstream, SliceStep.of(req));
      }
    } catch (PeerFailure e) {
      LOG.debug("{} {} at {}: {}", label, repairId, me, e.getMessage());
      // A failure nobody is blamed for while this node's own transport shuts down (it can no longer reach its
      // upstreams) is this node going away: blame it, so the requestor replaces it rather than guessing.
      downstream.fail(e.culprit() == null && transport.closing() ? me : e.culprit(), e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      downstream.fail(me, me + " was interrupted");
    } catch (ReplicaAccess.DeniedException e) {
      // The asker lacks authority: no helper is to blame (replacing this one would not help).
      LOG.warn("{} {}: {} refused {}: {}", label, repairId, me, downstream.node(), e.getMessage());
      downstream.fail(null, me + (position ? " refused the rapidraid step: " : " refused access: ") + e.getMessage());
    } catch (IOException | RuntimeException e) { // DESIGN.md §2: nothing of ours escapes into the transport's thread
      LOG.warn("{} {}: {} failed: {}", label, repairId, me, e.toString());
      downstream.fail(me, (position ? "rapidraid position at " : "helper ") + me + " failed: " + e.getMessage());
    }
  }

  @Override
  public void screen(byte[] body) throws IOException {
    screen(body, false);
  }

  /**
   * A step's bounds and READ token, checked before a helper thread is taken. Returns the client whose token the step
   * carries: what it holds here, and what it relays, count under that client. A position is admitted on its thread
   * (its host screens the authority to store its codeword first, see the DataNode's wrapper).
   */
  @Override
  public String screen(byte[] body, boolean clusterPeer) throws IOException {
    if (RapidRaidStepRequest.isOne(body)) {
      return null;
    }
    if (RackSumRequest.isOne(body)) {
      return access.clientOf(admitRackSum(body).fold().unit());
    }
    if (SummaryRequest.isOne(body)) {
      return access.clientOf(admitSummary(body).unit());
    }
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

  /** A summary request, once its page and slices fit a frame and its asker may read its unit. */
  private SummaryRequest admitSummary(byte[] body) throws IOException {
    SummaryRequest req = SummaryRequest.parse(body);
    req.checkFits(transport.conf().maxFrameBytes());
    access.checkRead(req.unit());
    return req;
  }

  /**
   * A rack sum, once its answer and slices fit a frame, its upstreams are DataNodes' ports and its asker may read its
   * unit; each upstream checks its own unit's token when this node asks it.
   */
  private RackSumRequest admitRackSum(byte[] body) throws IOException {
    RackSumRequest req = RackSumRequest.parse(body);
    req.checkFits(transport.conf().maxFrameBytes());
    access.checkRead(req.fold().unit());
    return req;
  }

  /** A position's step, once its slices fit a frame, its pieces may be read and its upstream is a DataNode's port. */
  private SliceStep admitPosition(RapidRaidStepRequest req) throws IOException {
    if (sinks == null) {
      throw new IOException("this node runs no rapidraid pipeline position");
    }
    if (req.sliceBytes() > transport.conf().maxFrameBytes()) {
      throw new ReplicaAccess.DeniedException("slices of " + req.sliceBytes() + " bytes; at most "
          + transport.conf().maxFrameBytes() + " (wide-ec.transport.max-frame.bytes)");
    }
    for (RapidRaidStepRequest.Piece p : req.pieces()) {
      if (!SliceStep.virtual(p.block())) {
        access.checkRead(p.block());
      }
    }
    if (req.upstream() != null) {
      try {
        RequestLimits.checkAddress(req.upstream().endpoint());
      } catch (IOException e) {
        throw new ReplicaAccess.DeniedException(e.getMessage());
      }
    }
    return SliceStep.of(req);
  }

  /** Carries out a step: upstreams asked first, then every slice it carries, then its sink's report, then END. */
  private void run(long repairId, Downstream downstream, SliceStep step) throws IOException, InterruptedException {
    String me = downstream.selfNode();
    List<PeerStream> ups = new ArrayList<>();
    List<UnitStore.Reader> readers = new ArrayList<>();
    SliceSink sink = null;
    boolean finished = false;
    try {
      List<SliceTransport.Ask> asks = new ArrayList<>(step.upstreams().size());
      for (SliceStep.Upstream u : step.upstreams()) {
        asks.add(new SliceTransport.Ask(u.endpoint(), u.body(), transport.ownCredential(),
            transport.windowFor(repairId, step.rows() * step.sliceBytes(),
                !downstream.selfRack().equals(u.endpoint().rack()))));
      }
      // A step of several upstreams (a tree's inner node) asks them all at once, as a requestor asks its helpers.
      ups.addAll(transport.openAll(me, downstream.selfRack(), repairId, asks));
      for (BlockRef local : step.locals()) {
        readers.add(step.padsShortLocals() && SliceStep.virtual(local) ? null : store.open(local));
      }
      SliceStep.Arithmetic rows = step.arithmetic();
      CRC32C crc = new CRC32C();
      for (int s = step.firstSlice(); s < step.slices(); s += step.stride()) {
        int n = step.sliceLength(s);
        int bytes = step.rows() * n; // RequestLimits and the frame bound above bounded it
        ByteBuf out = downstream.alloc().heapBuffer(bytes, bytes);
        try {
          byte[] a = out.array();
          int off = out.arrayOffset() + out.writerIndex();
          combine(step, rows, s, n, readers, ups, a, off);
          if (step.sinks()) {
            int row = off + (step.rows() - 1) * n;
            crc.update(a, row, n);
            if (sink == null) {
              sink = sinks.open(step.position());
            }
            sink.write((long) s * step.sliceBytes(), a, row, n);
          }
          out.writerIndex(out.writerIndex() + step.forwardRows() * n);
        } catch (Throwable t) {
          out.release();
          throw t;
        }
        downstream.send(s, out);
      }
      byte[] report = step.sinks() ? report(step, ups, crc.getValue()) : null;
      for (PeerStream up : ups) {
        up.awaitEnd();
      }
      if (step.sinks()) {
        sink.finish();
        finished = true;
        downstream.send(step.slices(), downstream.alloc().heapBuffer(report.length, report.length).writeBytes(report));
        LOG.debug("rapidraid {}: {} stored c_{} of {}", repairId, me, step.position().position(),
            step.position().object());
      }
      downstream.end();
    } finally {
      if (sink != null && !finished) {
        sink.abort();
      }
      for (UnitStore.Reader r : readers) {
        close(r, me);
      }
      ups.forEach(PeerStream::close);
    }
  }

  /**
   * Slice {@code s} ({@code n} bytes a row) of the step's rows into {@code a} at {@code off}: its locals read and
   * multiplied, then each upstream's rows added in.
   */
  private void combine(SliceStep step, SliceStep.Arithmetic rows, int s, int n, List<UnitStore.Reader> readers,
      List<PeerStream> ups, byte[] a, int off) throws IOException, InterruptedException {
    for (int t = 0; t < readers.size(); t++) {
      read(readers.get(t), step, t, s, rows.input(t), n);
    }
    rows.compute(a, off, n);
    for (int u = 0; u < ups.size(); u++) {
      step.upstreams().get(u).addInto(ups.get(u), s, n, a, off, step.rows());
    }
  }

  /** The codewords stored so far: the upstream positions' report, then this position's (length and CRC32C). */
  private static byte[] report(SliceStep step, List<PeerStream> ups, long crc) throws IOException,
      InterruptedException {
    List<EncodeTreeRequest.Stored> reports = new ArrayList<>();
    if (!ups.isEmpty()) {
      reports.addAll(step.upstreams().get(0).report(ups.get(0), step));
    }
    reports.add(new EncodeTreeRequest.Stored(step.position().position(), step.length(), crc));
    return EncodeTreeRequest.resultBytes(reports);
  }

  /** Slice s of local t, read through its verified path; a short or virtual piece reads as zeros past its end. */
  private void read(UnitStore.Reader reader, SliceStep step, int t, int slice, byte[] dst, int n) throws IOException {
    long at = step.offset() + (long) slice * step.sliceBytes();
    int have = step.padsShortLocals() ? (int) Math.max(0, Math.min(n, step.locals().get(t).numBytes() - at)) : n;
    if (have > 0) {
      reader.read(at, dst, 0, have);
      counters.readLocally(have);
    }
    java.util.Arrays.fill(dst, have, n, (byte) 0);
  }

  private static void close(UnitStore.Reader r, String me) {
    try {
      if (r != null) {
        r.close();
      }
    } catch (IOException e) {
      LOG.debug("closing a reader at {}: {}", me, e.toString());
    }
  }

  /**
   * The CRC32C of the unit instead of its bytes: how a requestor confirms that a rebuilt block was stored as
   * sent, read back through the same verified path.
   */
  private void digest(StepRequest req, Downstream downstream) throws IOException, InterruptedException {
    CRC32C crc = new CRC32C();
    byte[] buf = new byte[req.sliceBytes()];
    try (UnitStore.Reader reader = store.open(req.unit())) {
      for (int s = 0; s < req.slices(); s++) {
        int n = req.sliceLength(s);
        reader.read(req.offset() + (long) s * req.sliceBytes(), buf, 0, n);
        counters.readLocally(n);
        crc.update(buf, 0, n);
      }
    }
    ByteBuf out = downstream.alloc().heapBuffer(8);
    out.writeLong(crc.getValue());
    downstream.send(0, out);
    downstream.end();
  }

  /**
   * The unit's linear summary instead of its bytes: a scrub checks the code's parity relations on one page per unit,
   * so one page leaves this node whatever the block size.
   */
  private void summary(SummaryRequest req, Downstream downstream) throws IOException, InterruptedException {
    byte[] page = fold(req);
    ByteBuf out = downstream.alloc().heapBuffer(page.length);
    out.writeBytes(page);
    downstream.send(0, out);
    downstream.end();
    counters.summaryServed();
  }

  /**
   * A rack's share of each check row instead of one page per unit (ECWide §4.1's in-rack aggregation): the other
   * holders of the rack are asked first, so they fold while this node folds, then this node's page times each
   * coefficient and every upstream's rows are added, and one frame of rows goes on.
   */
  private void rackSum(long id, RackSumRequest req, Downstream downstream) throws IOException, InterruptedException {
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
      downstream.end();
      counters.summaryServed();
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
