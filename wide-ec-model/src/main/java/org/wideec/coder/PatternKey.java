package org.wideec.coder;

import java.util.Arrays;

/**
 * Cache key of a decode: the set of available units and the wanted units (each a 256-bit set). A
 * thread-local mutable instance is filled for lookups so a cache hit allocates nothing; a copy goes into
 * the cache on a miss.
 */
final class PatternKey {
  final long[] available = new long[4];
  final long[] wanted = new long[4];
  /** Kind of target: units of the code, or data symbols (non-systematic codes). */
  boolean dataSymbols;

  void clear() {
    Arrays.fill(available, 0);
    Arrays.fill(wanted, 0);
    dataSymbols = false;
  }

  static void set(long[] bits, int i) {
    bits[i >>> 6] |= 1L << (i & 63);
  }

  PatternKey copy() {
    PatternKey k = new PatternKey();
    System.arraycopy(available, 0, k.available, 0, 4);
    System.arraycopy(wanted, 0, k.wanted, 0, 4);
    k.dataSymbols = dataSymbols;
    return k;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PatternKey p && p.dataSymbols == dataSymbols && Arrays.equals(p.available, available)
        && Arrays.equals(p.wanted, wanted);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(available) + Arrays.hashCode(wanted) + (dataSymbols ? 1 : 0);
  }
}
