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
import org.wideec.protocol.DialAheadRequest;
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
import org.wideec.transport.BackgroundWork;
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
  private final SummarySteps summaries;
  private final StartedAhead ahead;

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
    this.summaries = new SummarySteps(transport, store, access, counters, scrubReads);
    this.transport = transport;
    this.store = store;
    this.access = access;
    this.sinks = sinks;
    this.counters = counters;
    this.ahead = new StartedAhead(transport);
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
        summaries.rackSum(repairId, summaries.admitRackSum(body), downstream);
        return;
      }
      if (SummaryRequest.isOne(body)) {
        summaries.summary(summaries.admitSummary(body), downstream);
        return;
      }
      if (DialAheadRequest.isOne(body)) {
        startAhead(repairId, stepOf(admit(DialAheadRequest.parse(body).step()), me), downstream);
        return;
      }
      StepRequest req = admit(StepRequest.parse(body));
      if (req.digest()) {
        digest(req, downstream);
      } else {
        run(repairId, downstream, stepOf(req, me));
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
      return access.clientOf(summaries.admitRackSum(body).fold().unit());
    }
    if (SummaryRequest.isOne(body)) {
      return access.clientOf(summaries.admitSummary(body).unit());
    }
    StepRequest step = DialAheadRequest.isOne(body) ? DialAheadRequest.parse(body).step() : StepRequest.parse(body);
    return access.clientOf(admit(step).unit());
  }

  /**
   * The request, once it is within every bound and its asker may read its unit; each upstream checks its own. A
   * dial-ahead's step passes the same checks before anything is dialled.
   */
  private StepRequest admit(StepRequest req) throws IOException {
    RequestLimits.forFrames(transport.conf().maxFrameBytes()).check(req);
    // Authorized before anything is read or dialled; each upstream checks its own unit's token in turn.
    access.checkRead(req.unit());
    return req;
  }

  /**
   * The step this node runs for an admitted request, with its steps on this same node folded in ({@link
   * SliceStep#of(StepRequest, String)}); each folded unit is authorized by its own token, as its own request would
   * have been.
   */
  private SliceStep stepOf(StepRequest req, String me) throws IOException {
    SliceStep step = SliceStep.of(req, me);
    for (BlockRef local : step.locals().subList(1, step.locals().size())) {
      access.checkRead(local);
    }
    return step;
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

  /**
   * Answers at once and has the step's upstreams asked now, for the request its downstream is about to send
   * ({@link DialAheadRequest}): what they send waits within the window for that request ({@link StartedAhead}), so
   * this node's part of the chain starts beside every other helper's instead of after its downstream's.
   */
  private void startAhead(long repairId, SliceStep step, Downstream downstream) throws IOException {
    ahead.start(downstream.selfNode(), downstream.selfRack(), repairId,
        upstreamAsks(repairId, step, downstream.selfRack()));
    downstream.end();
  }

  /** What a step asks each upstream, under this node's own credential, with the window its hop's link warrants. */
  private List<SliceTransport.Ask> upstreamAsks(long repairId, SliceStep step, String selfRack) {
    List<SliceTransport.Ask> asks = new ArrayList<>(step.upstreams().size());
    for (SliceStep.Upstream u : step.upstreams()) {
      asks.add(new SliceTransport.Ask(u.endpoint(), u.body(), transport.ownCredential(),
          transport.windowFor(repairId, step.rows() * step.sliceBytes(), !selfRack.equals(u.endpoint().rack()))));
    }
    return asks;
  }

  /**
   * Streams started ahead of their steps' requests on this node so far, those a request took, and the words whose
   * start has run (it runs after the word is answered): {started, taken, words}.
   */
  public long[] startedAheadCounts() {
    return ahead.counts();
  }

  /** Carries out a step: upstreams asked first, then every slice it carries, then its sink's report, then END. */
  private void run(long repairId, Downstream downstream, SliceStep step) throws IOException, InterruptedException {
    String me = downstream.selfNode();
    StageTimes times = new StageTimes(downstream.askedAtNanos());
    List<PeerStream> ups = new ArrayList<>();
    List<UnitStore.Reader> readers = new ArrayList<>();
    SliceSink sink = null;
    boolean finished = false;
    try {
      // A step of several upstreams (a tree's inner node) asks them all at once, as a requestor asks its helpers;
      // those started when this node was told its step are taken as they are.
      ups.addAll(ahead.open(me, downstream.selfRack(), repairId,
          upstreamAsks(repairId, step, downstream.selfRack())));
      for (BlockRef local : step.locals()) {
        readers.add(step.padsShortLocals() && SliceStep.virtual(local) ? null : store.open(local));
      }
      times.ready();
      SliceStep.Arithmetic rows = step.arithmetic();
      CRC32C crc = new CRC32C();
      for (int s = step.firstSlice(); s < step.slices(); s += step.stride()) {
        int n = step.sliceLength(s);
        int bytes = step.rows() * n; // RequestLimits and the frame bound above bounded it
        ByteBuf out = downstream.alloc().heapBuffer(bytes, bytes);
        try {
          byte[] a = out.array();
          int off = out.arrayOffset() + out.writerIndex();
          combine(step, rows, s, n, readers, ups, a, off, times);
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
        long sending = times.now();
        downstream.send(s, out);
        times.sent(sending);
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
      logTimes(repairId, me, downstream, step, times);
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
      List<PeerStream> ups, byte[] a, int off, StageTimes times) throws IOException, InterruptedException {
    long t0 = times.now();
    for (int t = 0; t < readers.size(); t++) {
      read(readers.get(t), step, t, s, rows.input(t), n);
    }
    t0 = times.disk(t0);
    rows.compute(a, off, n);
    t0 = times.compute(t0);
    for (int u = 0; u < ups.size(); u++) {
      step.upstreams().get(u).addInto(ups.get(u), s, n, a, off, step.rows());
    }
    times.upstream(t0);
  }

  /**
   * One line per step of background work (a repair's hop, an encode's position) saying where its time went, so a
   * slow chain's bottleneck is read from its hops' lines; a user's degraded read logs it at DEBUG.
   */
  private static void logTimes(long repairId, String me, Downstream downstream, SliceStep step, StageTimes times) {
    if (BackgroundWork.isBackground(repairId) ? LOG.isInfoEnabled() : LOG.isDebugEnabled()) {
      String line = "step " + repairId + " at " + me + " for " + downstream.node() + ": " + step.slices()
          + " slices of " + step.rows() + " x " + step.sliceBytes() + " B, " + step.upstreams().size() + " upstreams, "
          + step.locals().size() + " local units; " + times.describe();
      if (BackgroundWork.isBackground(repairId)) {
        LOG.info(line);
      } else {
        LOG.debug(line);
      }
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
    java.util.OptionalLong stored = req.fromStoredChecksums() ? store.storedCrc32c(req.unit())
        : java.util.OptionalLong.empty();
    if (stored.isPresent()) {
      counters.digestComposed();
      answer(stored.getAsLong(), downstream);
      return;
    }
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
    answer(crc.getValue(), downstream);
  }

  /** A digest's answer: one 8-byte frame, then the stream's end. */
  private static void answer(long crc, Downstream downstream) throws IOException, InterruptedException {
    ByteBuf out = downstream.alloc().heapBuffer(8);
    out.writeLong(crc);
    downstream.send(0, out);
    downstream.end();
  }
}
