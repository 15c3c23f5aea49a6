package org.wideec.scrub;

import java.nio.ByteBuffer;
import java.util.Random;
import org.wideec.gf.Gf256;
import org.wideec.gf.RegionKernels;

/**
 * A GF(2^8)-linear fold of one unit into a page-sized summary: S = sum over the unit's pages i of r^i * page_i.
 * The fold is linear in the unit and every unit of a stripe is folded on the same page grid from offset 0, so a
 * code's parity-check relations hold on the summaries exactly as on the units; a short unit's missing tail counts
 * as zeros, as the code pads it. Feed bytes in any chunking with {@link #update}, then take {@link #summary}.
 *
 * <p>r is a primitive element drawn from the scrub's seed (never 0 or 1, and of order 255, so r^i differs for
 * pages less than 255 apart): a corruption a holder does not know about the seed cannot be shaped to fold to zero.
 * Not thread-safe; one per unit.
 */
public final class UnitSummary {
  /** Page size used when nothing else is configured: small enough to cross racks, a multiple of HDFS's chunks. */
  public static final int DEFAULT_PAGE_SIZE = 4096;

  private final int pageSize;
  private final int r;
  private final byte[] sum;
  private final byte[] page;
  private int filled;
  private int coefficient = 1;
  private long bytes;

  public UnitSummary(int pageSize, int r) {
    if (pageSize < 1) {
      throw new IllegalArgumentException("summary page size must be positive, got " + pageSize);
    }
    if (r < 2 || r > 255) {
      throw new IllegalArgumentException("fold multiplier must be in GF(2^8) \\ {0, 1}, got " + r);
    }
    this.pageSize = pageSize;
    this.r = r;
    this.sum = new byte[pageSize];
    this.page = new byte[pageSize];
  }

  /** A primitive element of GF(2^8) chosen by the seed: the same seed gives every holder of a stripe the same r. */
  public static int multiplier(long seed) {
    int[] coprime = new int[128];
    int count = 0;
    for (int e = 1; e < 255; e++) {
      if (gcd(e, 255) == 1) {
        coprime[count++] = e;
      }
    }
    // exp(e) has order 255 / gcd(e, 255); e = 0 gives 1, which is excluded above.
    return Gf256.INSTANCE.exp(coprime[new Random(seed).nextInt(count)]);
  }

  private static int gcd(int a, int b) {
    return b == 0 ? a : gcd(b, a % b);
  }

  /** The summary of a whole unit held in a buffer (from its position to its limit; the buffer is not moved). */
  public static byte[] of(ByteBuffer unit, int pageSize, int r) {
    UnitSummary s = new UnitSummary(pageSize, r);
    ByteBuffer b = unit.duplicate();
    byte[] chunk = new byte[Math.min(b.remaining(), 64 * 1024)];
    while (b.hasRemaining()) {
      int len = Math.min(chunk.length, b.remaining());
      b.get(chunk, 0, len);
      s.update(chunk, 0, len);
    }
    return s.summary();
  }

  public int pageSize() {
    return pageSize;
  }

  public int multiplier() {
    return r;
  }

  /** Bytes folded so far. */
  public long bytes() {
    return bytes;
  }

  /** Folds the next {@code len} bytes of the unit. */
  public void update(byte[] b, int off, int len) {
    if (off < 0 || len < 0 || off + len > b.length) {
      throw new IndexOutOfBoundsException("chunk [" + off + ", " + (off + len) + ") of a " + b.length + "-byte array");
    }
    while (len > 0) {
      int take = Math.min(len, pageSize - filled);
      System.arraycopy(b, off, page, filled, take);
      filled += take;
      off += take;
      len -= take;
      bytes += take;
      if (filled == pageSize) {
        foldPage(pageSize);
      }
    }
  }

  private void foldPage(int len) {
    RegionKernels.mulAdd(coefficient, page, 0, sum, 0, len);
    coefficient = Gf256.multiply(coefficient, r);
    filled = 0;
  }

  /** The summary of the bytes folded so far, a partial last page padded with zeros. Does not change the fold. */
  public byte[] summary() {
    byte[] out = sum.clone();
    if (filled > 0) {
      RegionKernels.mulAdd(coefficient, page, 0, out, 0, filled);
    }
    return out;
  }
}
