package org.wideec.client;

import java.util.ArrayList;
import java.util.List;

/**
 * HDFS's striped layout of one block group, as arithmetic: stripe s holds the group's bytes
 * [s*k*cell, (s+1)*k*cell), cell j of it going to data unit j at internal offset s*cell. Parity units
 * are as long as data unit 0 (the last stripe's parity cells are as long as its first data cell). Same
 * rules as Hadoop's StripedBlockUtil, without Hadoop, so reads can be planned and tested alone.
 */
public final class BlockGroupLayout {
  private final int k;
  private final int cellSize;
  private final long groupBytes;

  /** A contiguous run of the group's bytes inside one cell: groupOffset maps to internalOffset of unit. */
  public record CellRun(int unit, long internalOffset, long groupOffset, int length) {}

  public BlockGroupLayout(int k, int cellSize, long groupBytes) {
    if (k < 1 || cellSize < 1 || groupBytes < 0) {
      throw new IllegalArgumentException("need k >= 1, cellSize >= 1, groupBytes >= 0; got k=" + k + ", cellSize="
          + cellSize + ", groupBytes=" + groupBytes);
    }
    this.k = k;
    this.cellSize = cellSize;
    this.groupBytes = groupBytes;
  }

  public int k() {
    return k;
  }

  public int cellSize() {
    return cellSize;
  }

  public long groupBytes() {
    return groupBytes;
  }

  public long stripeBytes() {
    return (long) cellSize * k;
  }

  /** Bytes stored in internal block {@code unit} (parity units: as long as data unit 0). */
  public long internalLength(int unit) {
    if (unit < 0) {
      throw new IllegalArgumentException("unit " + unit);
    }
    long fullStripes = groupBytes / stripeBytes();
    long last = groupBytes % stripeBytes();
    long lastCell = unit < k ? Math.max(0, Math.min(cellSize, last - (long) unit * cellSize)) : Math.min(cellSize, last);
    return fullStripes * cellSize + lastCell;
  }

  /** The group range [from, to) of the stripe holding group offset {@code at}. */
  public long[] stripeAround(long at) {
    long start = at / stripeBytes() * stripeBytes();
    return new long[] {start, Math.min(groupBytes, start + stripeBytes())};
  }

  /** The runs that make up group bytes [from, to), in group order. */
  public List<CellRun> runs(long from, long to) {
    if (from < 0 || to > groupBytes || from > to) {
      throw new IllegalArgumentException("range [" + from + ", " + to + ") is outside the group's " + groupBytes + " bytes");
    }
    List<CellRun> out = new ArrayList<>();
    for (long at = from; at < to; ) {
      long stripe = at / stripeBytes();
      long inStripe = at % stripeBytes();
      int unit = (int) (inStripe / cellSize);
      int inCell = (int) (inStripe % cellSize);
      int len = (int) Math.min(cellSize - inCell, to - at);
      out.add(new CellRun(unit, stripe * cellSize + inCell, at, len));
      at += len;
    }
    return out;
  }
}
