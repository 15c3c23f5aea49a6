package org.wideec.client;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.wideec.client.BlockGroupLayout.CellRun;
import org.wideec.code.DecodeSources;
import org.wideec.code.LinearCode;
import org.wideec.coder.ErasureCoder;
import org.wideec.coder.Kernels;

/**
 * How to read group bytes [from, to) of a block group that has lost units: which byte ranges of which
 * internal blocks to fetch, which lost units to rebuild from which sources, and how the result is laid
 * out. A plan is data; fetching is the caller's job, {@link #assemble} decodes and copies.
 *
 * <p>Lost data cells in the range are rebuilt over the rows [rowFrom, rowTo) they occupy (row = offset in
 * an internal block: one byte of every unit at the same row forms a codeword), from the sources
 * {@link DecodeSources} picks (local group first). Units whose internal block ends at or before rowFrom
 * (the tail of a short group) are zero there: free sources, never fetched.
 */
public final class DegradedReadPlan {
  /** Bytes [start, end) of internal block {@code unit} to fetch. */
  public record UnitRange(int unit, long start, long end) {
    public int length() {
      return (int) (end - start);
    }
  }

  private final LinearCode code;
  private final BlockGroupLayout layout;
  private final long from;
  private final long to;
  private final List<CellRun> runs;
  private final int[] wanted;
  private final int[] sources;
  private final long rowFrom;
  private final long rowTo;
  private final Map<Integer, UnitRange> fetches;

  private DegradedReadPlan(LinearCode code, BlockGroupLayout layout, long from, long to, List<CellRun> runs, int[] wanted,
      int[] sources, long rowFrom, long rowTo, Map<Integer, UnitRange> fetches) {
    this.code = code;
    this.layout = layout;
    this.from = from;
    this.to = to;
    this.runs = runs;
    this.wanted = wanted;
    this.sources = sources;
    this.rowFrom = rowFrom;
    this.rowTo = rowTo;
    this.fetches = fetches;
  }

  /**
   * Plans reading group bytes [from, to) when only the {@code live} units can be read.
   *
   * @throws org.wideec.code.NotDecodableException naming the code and units when the live units cannot
   *     rebuild the lost cells in the range
   */
  public static DegradedReadPlan of(LinearCode code, BlockGroupLayout layout, BitSet live, long from, long to) {
    if (layout.k() != code.k() || !code.isSystematic()) {
      throw new IllegalArgumentException(code.spec() + ": striped reads need a systematic code with k = " + layout.k());
    }
    List<CellRun> runs = layout.runs(from, to);
    int[] wanted = runs.stream().mapToInt(CellRun::unit).filter(u -> !live.get(u)).distinct().sorted().toArray();
    Map<Integer, UnitRange> fetches = new TreeMap<>();
    long rowFrom = 0;
    long rowTo = 0;
    int[] sources = new int[0];
    if (wanted.length > 0) {
      rowFrom = Long.MAX_VALUE;
      for (CellRun r : runs) {
        if (Arrays.binarySearch(wanted, r.unit()) >= 0) {
          rowFrom = Math.min(rowFrom, r.internalOffset());
          rowTo = Math.max(rowTo, r.internalOffset() + r.length());
        }
      }
      BitSet free = new BitSet(code.n());
      for (int u = 0; u < code.n(); u++) {
        if (layout.internalLength(u) <= rowFrom) {
          free.set(u);
        }
      }
      BitSet available = (BitSet) live.clone();
      available.or(free);
      available.clear(code.n(), Math.max(code.n(), available.length()));
      sources = DecodeSources.choose(code, available, free, wanted);
      for (int s : sources) {
        if (!free.get(s)) {
          fetches.put(s, new UnitRange(s, rowFrom, Math.min(rowTo, layout.internalLength(s))));
        }
      }
    }
    // Cells read as they are: one range per unit, merged with its range as a source.
    for (CellRun r : runs) {
      if (live.get(r.unit())) {
        UnitRange had = fetches.get(r.unit());
        long start = had == null ? r.internalOffset() : Math.min(had.start(), r.internalOffset());
        long end = had == null ? r.internalOffset() + r.length() : Math.max(had.end(), r.internalOffset() + r.length());
        fetches.put(r.unit(), new UnitRange(r.unit(), start, end));
      }
    }
    return new DegradedReadPlan(code, layout, from, to, runs, wanted, sources, rowFrom, rowTo,
        Collections.unmodifiableMap(fetches));
  }

  /** Lost units rebuilt for this range, ascending (empty when every cell in it is live). */
  public int[] wanted() {
    return wanted.clone();
  }

  /** Units the rebuild reads from, ascending (free, all-zero units included). */
  public int[] sources() {
    return sources.clone();
  }

  /** What to fetch, by unit, ascending. */
  public List<UnitRange> fetches() {
    return new ArrayList<>(fetches.values());
  }

  public long from() {
    return from;
  }

  /** First row (offset in an internal block) of the lost cells rebuilt; 0 when none are. */
  public long rowFrom() {
    return rowFrom;
  }

  /** End of the rows of the lost cells rebuilt; 0 when none are. */
  public long rowTo() {
    return rowTo;
  }

  public long to() {
    return to;
  }

  /**
   * Decodes the lost cells and writes group bytes [from, to) into {@code dst} at its position (which
   * advances by to - from). {@code fetched} holds, for every unit of {@link #fetches}, exactly its range.
   */
  public void assemble(Map<Integer, ByteBuffer> fetched, ErasureCoder coder, ByteBuffer dst) {
    if (coder.code() != code && !coder.code().spec().equals(code.spec())) {
      throw new IllegalArgumentException("coder for " + coder.code().spec() + " cannot decode " + code.spec());
    }
    for (UnitRange r : fetches.values()) {
      ByteBuffer b = fetched.get(r.unit());
      if (b == null || b.remaining() != r.length()) {
        throw new IllegalArgumentException(code.spec() + ": unit " + r.unit() + " needs bytes [" + r.start() + ", "
            + r.end() + "), got " + (b == null ? "none" : b.remaining() + " bytes"));
      }
    }
    ByteBuffer[] decoded = decode(fetched, coder);
    int base = dst.position();
    for (CellRun run : runs) {
      int w = Arrays.binarySearch(wanted, run.unit());
      ByteBuffer src;
      long srcStart;
      if (w >= 0) {
        src = decoded[w];
        srcStart = rowFrom;
      } else {
        src = fetched.get(run.unit());
        srcStart = fetches.get(run.unit()).start();
      }
      int at = src.position() + (int) (run.internalOffset() - srcStart);
      dst.put(base + (int) (run.groupOffset() - from), src, at, run.length());
    }
    dst.position(base + (int) (to - from));
  }

  private ByteBuffer[] decode(Map<Integer, ByteBuffer> fetched, ErasureCoder coder) {
    if (wanted.length == 0) {
      return new ByteBuffer[0];
    }
    int rows = (int) (rowTo - rowFrom);
    // ISA-L codes only direct buffers (Kernels.best); heap buffers go to the pure-Java kernel, whose Vector API code
    // costs a fresh JVM about a CPU-second for its first wide decode: on a busy client that was tens of seconds of
    // a degraded read on the real-process cluster, where HDFS's own reader decoded natively. A copy costs far less.
    boolean offHeap = Kernels.nativeInUse();
    ByteBuffer[] units = new ByteBuffer[code.n()];
    for (int s : sources) {
      ByteBuffer w = window(s, fetched.get(s), rows);
      units[s] = offHeap ? ByteBuffer.allocateDirect(rows).put(0, w, w.position(), rows) : w;
    }
    ByteBuffer[] out = new ByteBuffer[wanted.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = offHeap ? ByteBuffer.allocateDirect(rows) : ByteBuffer.allocate(rows);
    }
    coder.reconstruct(units, wanted, out);
    return out;
  }

  /** Source rows [rowFrom, rowTo): the fetched bytes, zero past the end of the internal block. */
  private ByteBuffer window(int unit, ByteBuffer fetchedBytes, int rows) {
    UnitRange r = fetches.get(unit);
    if (r != null && r.start() == rowFrom && r.end() == rowTo) {
      return fetchedBytes.duplicate();
    }
    ByteBuffer w = ByteBuffer.allocate(rows);
    if (r != null) {
      long stored = Math.min(rowTo, layout.internalLength(unit)) - rowFrom;
      if (stored > 0) {
        w.put(0, fetchedBytes, fetchedBytes.position() + (int) (rowFrom - r.start()), (int) stored);
      }
    }
    return w;
  }

  @Override
  public String toString() {
    return "read [" + from + ", " + to + ") rebuilding " + Arrays.toString(wanted) + " from " + Arrays.toString(sources)
        + " over rows [" + rowFrom + ", " + rowTo + "), fetching " + fetches.values();
  }
}
