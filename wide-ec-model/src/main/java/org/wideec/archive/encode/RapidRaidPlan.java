package org.wideec.archive.encode;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.wideec.code.LinearCode;
import org.wideec.topology.Site;

/**
 * How one object held as two replicas becomes RapidRAID's n codewords, and what that costs (pure data: printed,
 * costed and executed by the encode engine). Codeword c_i is stored on the node of chain position i.
 *
 * <p>PIPELINE (RapidRAID §IV): position i reads its local pieces, adds the x stream from position i-1, forwards x_i
 * to position i+1 and stores c_i; each hop carries one piece's length, plus the CRC32C report of the codewords
 * stored so far ({@link #reportBytes}), which rides in the same stream; the last position reports
 * all n to the encode's orchestrator, on its own node. CLASSIC (the baseline): the collector position pulls one
 * replica of every piece, encodes all n codewords and sends n-1 of them to the other positions, keeping its own.
 * Either way the bytes are exact: every stream and delivery carries {@link #unitBytes()} bytes (shorter pieces read
 * as zero padded).
 */
public final class RapidRaidPlan {
  /** Classic: one node pulls k pieces and encodes n codewords. Pipeline: RapidRAID's chain. */
  public enum Encoder {
    CLASSIC, PIPELINE
  }

  private final String name;
  private final RapidRaidPipeline pipeline;
  private final Encoder encoder;
  private final RapidRaidChain chain;
  private final long[] pieceLengths;
  private final int sliceBytes;
  private final int collector;
  private final Map<Integer, Site> sources;

  private RapidRaidPlan(String name, RapidRaidPipeline pipeline, Encoder encoder, RapidRaidChain chain,
      long[] pieceLengths, int sliceBytes, int collector, Map<Integer, Site> sources) {
    this.name = name;
    this.pipeline = pipeline;
    this.encoder = encoder;
    this.chain = chain;
    this.pieceLengths = pieceLengths.clone();
    this.sliceBytes = sliceBytes;
    this.collector = collector;
    this.sources = Map.copyOf(sources);
  }

  /**
   * RapidRAID's pipeline along {@code chain}: every position reads its pieces where the chain put them (after its
   * moves), slices of at most {@code sliceBytes} (whole checksum chunks, within one frame).
   */
  public static RapidRaidPlan pipeline(String name, LinearCode code, RapidRaidChain chain, long[] pieceLengths,
      int sliceBytes, int maxFrameBytes) {
    RapidRaidPipeline p = RapidRaidPipeline.of(code);
    check(name, code, chain, pieceLengths);
    return new RapidRaidPlan(name, p, Encoder.PIPELINE, chain, pieceLengths, slice(name, sliceBytes, maxFrameBytes), -1,
        Map.of());
  }

  /**
   * The classic encoder for the same chain: the collector is the position whose node reads and delivers the fewest
   * bytes across racks (ties: the lowest position); it reads each piece from its own node when it holds it, else
   * from a position in its rack that holds it, else from the lowest position holding it.
   */
  public static RapidRaidPlan classic(String name, LinearCode code, RapidRaidChain chain, long[] pieceLengths,
      int sliceBytes, int maxFrameBytes) {
    RapidRaidPipeline p = RapidRaidPipeline.of(code);
    check(name, code, chain, pieceLengths);
    RapidRaidPlan best = null;
    for (int c = 0; c < code.n(); c++) {
      Map<Integer, Site> from = new HashMap<>();
      for (int j = 0; j < code.k(); j++) {
        Site pick = null;
        for (int i = 0; i < code.n(); i++) {
          if (!holds(p.position(i).pieces(), j)) {
            continue;
          }
          Site s = chain.site(i);
          if (pick == null || rank(s, chain.site(c)) < rank(pick, chain.site(c))) {
            pick = s;
          }
        }
        from.put(j, pick);
      }
      RapidRaidPlan plan = new RapidRaidPlan(name, p, Encoder.CLASSIC, chain, pieceLengths,
          slice(name, sliceBytes, maxFrameBytes), c, from);
      if (best == null || plan.crossRackBytes() < best.crossRackBytes()) {
        best = plan;
      }
    }
    return best;
  }

  /** 0: the collector's node, 1: its rack, 2: elsewhere. */
  private static int rank(Site s, Site collector) {
    return s.node().equals(collector.node()) ? 0 : s.sameRack(collector) ? 1 : 2;
  }

  private static boolean holds(int[] pieces, int j) {
    return Arrays.stream(pieces).anyMatch(p -> p == j);
  }

  private static void check(String name, LinearCode code, RapidRaidChain chain, long[] pieceLengths) {
    if (chain.sites().size() != code.n()) {
      throw new IllegalArgumentException(name + ": a chain of " + chain.sites().size() + " nodes for " + code.spec()
          + " (n = " + code.n() + ")");
    }
    if (chain.sites().stream().map(Site::node).distinct().count() != code.n()) {
      throw new IllegalArgumentException(name + ": the chain " + chain.sites() + " uses a node twice");
    }
    if (pieceLengths.length != code.k() || Arrays.stream(pieceLengths).anyMatch(l -> l < 0)
        || Arrays.stream(pieceLengths).max().orElse(0) == 0) {
      throw new IllegalArgumentException(name + ": piece lengths " + Arrays.toString(pieceLengths) + " for "
          + code.spec() + " (k = " + code.k() + " pieces, none negative, not all empty)");
    }
  }

  private static int slice(String name, int wanted, int maxFrameBytes) {
    long fit = Math.min(wanted, maxFrameBytes) / EncodePlanner.CHUNK * EncodePlanner.CHUNK;
    if (fit < EncodePlanner.CHUNK || wanted < EncodePlanner.CHUNK) {
      throw new IllegalArgumentException(name + ": slices of at least " + EncodePlanner.CHUNK + " bytes (asked for "
          + wanted + ") do not fit frames of " + maxFrameBytes + " bytes (wide-ec.transport.max-frame.bytes)");
    }
    return (int) fit;
  }

  public String name() {
    return name;
  }

  public Encoder encoder() {
    return encoder;
  }

  public LinearCode code() {
    return pipeline.code();
  }

  public RapidRaidPipeline pipeline() {
    return pipeline;
  }

  public RapidRaidChain chain() {
    return chain;
  }

  public Site site(int position) {
    return chain.site(position);
  }

  public long[] pieceLengths() {
    return pieceLengths.clone();
  }

  public int sliceBytes() {
    return sliceBytes;
  }

  /** Bytes of every codeword: the longest piece. */
  public long unitBytes() {
    return Arrays.stream(pieceLengths).max().orElse(0);
  }

  public int slices() {
    return (int) ((unitBytes() + sliceBytes - 1) / sliceBytes);
  }

  /** Classic: the position that encodes; -1 for a pipeline. */
  public int collector() {
    return collector;
  }

  /** Classic: where each non-empty piece is read. */
  public Map<Integer, Site> sources() {
    return sources;
  }

  /** Pieces that hold bytes: the only ones read. */
  public int[] nonEmptyPieces() {
    return java.util.stream.IntStream.range(0, pieceLengths.length).filter(j -> pieceLengths[j] > 0).toArray();
  }

  /** Every stream and delivery of the encode (moves, made before it, are not among them: {@link #moveBytes}). */
  public List<EncodePlan.Transfer> transfers() {
    List<EncodePlan.Transfer> out = new ArrayList<>();
    int n = code().n();
    long unit = unitBytes();
    if (encoder == Encoder.PIPELINE) {
      for (int i = 0; i + 1 < n; i++) {
        out.add(new EncodePlan.Transfer(site(i), site(i + 1), unit + reportBytes(i + 1), 1, false,
            "x_" + i + " and the reports of c_0..c_" + i));
      }
      out.add(new EncodePlan.Transfer(site(n - 1), site(n - 1), reportBytes(n), 0, false,
          "the reports of every codeword, to the orchestrator"));
    } else {
      Site at = site(collector);
      for (int j : nonEmptyPieces()) {
        out.add(new EncodePlan.Transfer(sources.get(j), at, unit, 1, false, "piece " + j));
      }
      for (int i = 0; i < n; i++) {
        if (i != collector) {
          out.add(new EncodePlan.Transfer(at, site(i), unit, 1, true, "delivery of c_" + i));
        }
      }
    }
    return out;
  }

  /** Bytes that cross racks during the encode: streams (as the slice transport counts them) and deliveries. */
  public long crossRackBytes() {
    return transfers().stream().filter(EncodePlan.Transfer::crossRack).mapToLong(EncodePlan.Transfer::bytes).sum();
  }

  /** Bytes the moves copy before the encode, and those that cross racks. */
  public long moveBytes() {
    return chain.moves().stream().mapToLong(m -> pieceLengths[m.piece()]).sum();
  }

  public long crossRackMoveBytes() {
    return chain.moves().stream().filter(RapidRaidChain.Move::crossRack).mapToLong(m -> pieceLengths[m.piece()]).sum();
  }

  /** Seconds the busiest link needs at these rates, as {@link EncodePlan#busiestLinkSeconds} measures it. */
  public double busiestLinkSeconds(long nodeBytesPerSecond, long rackBytesPerSecond) {
    return EncodePlan.busiestLinkSeconds(transfers(), nodeBytesPerSecond, rackBytesPerSecond);
  }

  /** The most piece-streams any node sends or receives (k into a classic collector, 1 along a pipeline). */
  public int maxRowStreams() {
    return EncodePlan.nodeLoads(transfers()).values().stream().mapToInt(l -> Math.max(l.rowsIn(), l.rowsOut())).max()
        .orElse(0);
  }

  public String describe() {
    StringBuilder b = new StringBuilder();
    b.append("rapidraid encode of ").append(name).append(" (").append(code().spec()).append("): ")
        .append(encoder.name().toLowerCase()).append(", codewords of ").append(unitBytes()).append(" bytes, slices of ")
        .append(sliceBytes).append(" bytes\n");
    for (RapidRaidPipeline.Position p : pipeline.positions()) {
      b.append("  c_").append(p.index()).append(" at ").append(site(p.index())).append(": pieces ")
          .append(Arrays.toString(p.pieces()));
      if (encoder == Encoder.PIPELINE) {
        b.append(" psi ").append(Arrays.toString(p.psi())).append(" xi ").append(Arrays.toString(p.xi()));
      } else if (p.index() == collector) {
        b.append(" (collector: reads ").append(nonEmptyPieces().length).append(" pieces, encodes every codeword)");
      }
      b.append('\n');
    }
    for (RapidRaidChain.Move m : chain.moves()) {
      b.append("  move piece ").append(m.piece()).append(": ").append(m.from()).append(" -> ").append(m.to())
          .append('\n');
    }
    b.append("traffic: ").append(crossRackBytes()).append(" bytes across racks; moves ").append(moveBytes())
        .append(" bytes (").append(crossRackMoveBytes()).append(" across racks); ")
        .append(chain.rackLossTolerant() ? "any one rack may be lost" : "losing some rack leaves too few codewords")
        .append('\n');
    return b.toString();
  }

  @Override
  public String toString() {
    return encoder.name().toLowerCase() + " rapidraid plan of " + name + " (" + crossRackBytes()
        + " bytes across racks)";
  }

  /** Bytes of a report of {@code codewords} stored codewords: a count, then per codeword its unit, length and CRC32C. */
  public static int reportBytes(int codewords) {
    return 2 + codewords * 18;
  }
}
