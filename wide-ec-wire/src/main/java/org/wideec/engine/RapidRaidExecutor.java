package org.wideec.engine;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.archive.encode.EncodePlanner;
import org.wideec.archive.encode.ParitySinks;
import org.wideec.archive.encode.RapidRaidPlan;
import org.wideec.topology.Site;
import org.wideec.coder.ErasureCoder;
import org.wideec.protocol.EncodeTreeRequest;
import org.wideec.protocol.RapidRaidRequests;
import org.wideec.protocol.RapidRaidStepRequest;
import org.wideec.protocol.StepRequest;
import org.wideec.repair.BlockRef;
import org.wideec.repair.EndpointResolver;
import org.wideec.repair.SliceSink;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Endpoint;
import org.wideec.transport.BackgroundWork;
import org.wideec.transport.Frame;
import org.wideec.transport.PeerFailure;
import org.wideec.transport.PeerStream;
import org.wideec.transport.SliceTransport;

/**
 * Runs a {@link RapidRaidPlan} over the slice transport: RapidRAID's pipeline (Xu et al., §3: position i adds its
 * pieces to the running sums it receives, stores its codeword and passes the rest on), or its classic baseline (one
 * collector pulls every piece and encodes all n codewords). The systematic trees of an {@link EncodePlan} are {@link
 * EncodeExecutor}'s.
 */
public final class RapidRaidExecutor {
  private static final Logger LOG = LoggerFactory.getLogger(RapidRaidExecutor.class);

  private final EncodeExecutor.Collectors collectors;
  private final EndpointResolver resolver;

  public RapidRaidExecutor(EncodeExecutor.Collectors collectors, EndpointResolver resolver) {
    this.collectors = collectors;
    this.resolver = resolver;
  }

  /** How a RapidRAID encode went: per position, the length and CRC32C of the codeword stored; wall time. */
  public record Result(List<EncodeTreeRequest.Stored> codewords, long millis) {}

  /**
   * Runs a RapidRAID plan. A pipeline is asked of its last position from that node's transport (the orchestrator
   * sits where the codeword reports end, so they cross no link); every position stores its codeword in its node's
   * {@link CodewordSinks} and the reports come back in position order. A classic plan's collector pulls every piece,
   * encodes all n codewords with the {@link ErasureCoder} and writes each through {@code sinks} (its own and n-1
   * deliveries), opened after the first slice and finished only when every slice is written.
   *
   * @param pieces the replica (with its read token) of every non-empty piece; a pipeline position reads its pieces
   *     on its own node, a classic collector from {@link RapidRaidPlan#sources()}
   * @param sinks where a classic encode writes the codewords (unused by a pipeline)
   * @throws PeerFailure naming the object and the node to blame
   */
  public Result run(RapidRaidPlan plan, Map<Integer, BlockRef> pieces, ParitySinks sinks)
      throws IOException, InterruptedException {
    long start = System.nanoTime();
    long encodeId = BackgroundWork.id(true); // archival: background work, sent under the helpers' caps
    List<EncodeTreeRequest.Stored> out;
    try {
      out = plan.encoder() == RapidRaidPlan.Encoder.PIPELINE ? pipeline(plan, pieces, encodeId)
          : classicRapidRaid(plan, pieces, sinks, encodeId);
    } catch (PeerFailure f) {
      throw new PeerFailure(f.culprit(), plan.name() + ": rapidraid " + plan.encoder().name().toLowerCase()
          + " encode failed" + (f.culprit() == null ? "" : ", " + blame(plan, f.culprit())) + ": " + f.getMessage(), f);
    }
    long ms = (System.nanoTime() - start) / 1_000_000;
    LOG.info("{}: rapidraid {} encode of {} codewords done in {} ms", plan.name(),
        plan.encoder().name().toLowerCase(), out.size(), ms);
    return new Result(out, ms);
  }

  private static String blame(RapidRaidPlan plan, String node) {
    for (int i = 0; i < plan.code().n(); i++) {
      if (plan.site(i).node().equals(node)) {
        return "blaming " + node + ", position " + i + " (pieces "
            + Arrays.toString(plan.pipeline().position(i).pieces()) + ")";
      }
    }
    return "blaming " + node;
  }

  /** The last position's request, with every earlier position's nested inside it. */
  private RapidRaidStepRequest step(RapidRaidPlan plan, int i, Map<Integer, BlockRef> pieces) throws PeerFailure {
    List<RapidRaidStepRequest.Piece> mine = RapidRaidRequests.piecesOf(plan, i, pieces);
    RapidRaidStepRequest.Upstream up = i == 0 ? null : new RapidRaidStepRequest.Upstream(
        endpoint(plan.site(i - 1), plan.pipeline().position(i).pieces()[0]), step(plan, i - 1, pieces));
    return new RapidRaidStepRequest(plan.name(), i, mine, plan.unitBytes(), plan.sliceBytes(), up,
        i < plan.code().n() - 1, null, 2, EncodePlanner.CHUNK);
  }

  private Endpoint endpoint(Site site, int piece) throws PeerFailure {
    try {
      return resolver.resolve(new UnitLocation(piece, site));
    } catch (PeerFailure e) {
      throw e;
    } catch (IOException e) {
      throw new PeerFailure(site.node(), "cannot find the slice service of " + site + ": " + e.getMessage(), e);
    }
  }

  private List<EncodeTreeRequest.Stored> pipeline(RapidRaidPlan plan, Map<Integer, BlockRef> pieces, long encodeId)
      throws IOException, InterruptedException {
    int n = plan.code().n();
    Site last = plan.site(n - 1);
    RapidRaidStepRequest req = step(plan, n - 1, pieces);
    SliceTransport transport = collectors.at(last);
    try (PeerStream stream = transport.open(endpoint(last, plan.pipeline().position(n - 1).pieces()[0]), last.node(), last.rack(), encodeId,
        req.toBytes())) {
      for (int s = 0; s < plan.slices(); s++) {
        stream.next(s, 0).release(); // the last position's progress: x is discarded
        stream.credit();
      }
      Frame f = stream.next(plan.slices(), EncodeTreeRequest.resultLength(n));
      byte[] b = new byte[EncodeTreeRequest.resultLength(n)];
      try {
        f.payload().getBytes(f.payload().readerIndex(), b);
      } finally {
        f.release();
      }
      stream.credit();
      stream.awaitEnd();
      List<EncodeTreeRequest.Stored> reports = EncodeTreeRequest.parseResult(b);
      for (int i = 0; i < n; i++) {
        if (reports.get(i).unit() != i || reports.get(i).length() != plan.unitBytes()) {
          throw new PeerFailure(last.node(), "the pipeline's reports " + reports + " do not name positions 0.."
              + (n - 1) + " in order with " + plan.unitBytes() + " bytes each");
        }
      }
      return reports;
    }
  }

  /** RapidRAID's baseline: one collector pulls every piece and encodes every codeword. */
  private List<EncodeTreeRequest.Stored> classicRapidRaid(RapidRaidPlan plan, Map<Integer, BlockRef> pieces,
      ParitySinks sinks, long encodeId) throws IOException, InterruptedException {
    int n = plan.code().n();
    int k = plan.code().k();
    Site at = plan.site(plan.collector());
    SliceTransport transport = collectors.at(at);
    int[] read = plan.nonEmptyPieces();
    List<PeerStream> streams = new ArrayList<>();
    SliceSink[] out = new SliceSink[n];
    boolean done = false;
    try {
      openPieces(plan, pieces, transport, at, encodeId, streams);
      ErasureCoder coder = ErasureCoder.best(plan.code());
      int slice = plan.sliceBytes();
      ByteBuffer[] data = directBuffers(k, slice); // empty pieces stay zero
      ByteBuffer[] words = directBuffers(n, slice);
      java.util.zip.CRC32C[] crcs = new java.util.zip.CRC32C[n];
      byte[] row = new byte[slice];
      for (int s = 0; s < plan.slices(); s++) {
        long offset = (long) s * slice;
        int len = (int) Math.min(slice, plan.unitBytes() - offset);
        readSlice(streams, read, data, s, len);
        for (ByteBuffer b : data) {
          b.position(0).limit(len);
        }
        for (ByteBuffer b : words) {
          b.position(0).limit(len);
        }
        coder.encode(data, words);
        if (s == 0) {
          for (int i = 0; i < n; i++) {
            out[i] = sinks.open(i, plan.unitBytes(), at, plan.site(i));
            crcs[i] = new java.util.zip.CRC32C();
          }
        }
        for (int i = 0; i < n; i++) {
          words[i].get(0, row, 0, len);
          crcs[i].update(row, 0, len);
          out[i].write(offset, row, 0, len);
        }
      }
      for (PeerStream stream : streams) {
        stream.awaitEnd();
      }
      List<EncodeTreeRequest.Stored> stored = finish(plan, out, crcs);
      done = true;
      return stored;
    } finally {
      if (!done) { // codewords already finished stay: they count for nothing until the archiver verifies all n
        for (int i = 0; i < n; i++) {
          if (out[i] != null) {
            out[i].abort();
          }
        }
      }
      streams.forEach(PeerStream::close);
    }
  }

  private static ByteBuffer[] directBuffers(int count, int bytes) {
    ByteBuffer[] out = new ByteBuffer[count];
    for (int i = 0; i < count; i++) {
      out[i] = ByteBuffer.allocateDirect(bytes);
    }
    return out;
  }

  /** Slice {@code s} ({@code len} bytes) of every non-empty piece {@code read[t]}, from its stream t. */
  private static void readSlice(List<PeerStream> streams, int[] read, ByteBuffer[] data, int s, int len)
      throws IOException, InterruptedException {
    for (int t = 0; t < read.length; t++) {
      Frame f = streams.get(t).next(s, len);
      try {
        ByteBuffer dst = data[read[t]].clear().limit(len);
        f.payload().getBytes(f.payload().readerIndex(), dst);
      } finally {
        f.release();
      }
      streams.get(t).credit();
    }
  }

  /** Asks every holder of a non-empty piece for its raw unit, streamed to the collector {@code at}. */
  private void openPieces(RapidRaidPlan plan, Map<Integer, BlockRef> pieces, SliceTransport transport, Site at,
      long encodeId, List<PeerStream> streams) throws IOException {
    for (int j : plan.nonEmptyPieces()) {
      BlockRef b = pieces.get(j);
      if (b == null) {
        throw new IllegalArgumentException(plan.name() + ": no replica named for piece " + j);
      }
      streams.add(transport.open(endpoint(plan.sources().get(j), j), at.node(), at.rack(), encodeId,
          StepRequest.encodeStep(b, new int[] {1}, plan.unitBytes(), plan.sliceBytes(), List.of()).toBytes()));
    }
  }

  /** Finishes every codeword's sink in position order: what each stored. */
  private static List<EncodeTreeRequest.Stored> finish(RapidRaidPlan plan, SliceSink[] out,
      java.util.zip.CRC32C[] crcs) throws IOException {
    List<EncodeTreeRequest.Stored> stored = new ArrayList<>();
    for (int i = 0; i < out.length; i++) {
      out[i].finish();
      stored.add(new EncodeTreeRequest.Stored(i, plan.unitBytes(), crcs[i].getValue()));
    }
    return stored;
  }
}
