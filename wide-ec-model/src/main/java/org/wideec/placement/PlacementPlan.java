package org.wideec.placement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.wideec.code.ErasurePatterns;
import org.wideec.code.LinearCode;

/**
 * Where the units of one stripe go: unit u lives in rack {@code rackOf[u]} (0..racks-1, an index into the
 * plan's own racks, mapped to real racks when the plan is applied). A plan is data: it can be printed,
 * costed by {@code analysis}, checked and applied by the HDFS policy.
 */
public final class PlacementPlan {
  private final String scheme;
  private final LinearCode code;
  private final int[] rackOf;
  private final int racks;

  public PlacementPlan(String scheme, LinearCode code, int[] rackOf) {
    if (rackOf.length != code.n()) {
      throw new IllegalArgumentException(code.spec() + ": plan places " + rackOf.length + " of " + code.n() + " units");
    }
    this.scheme = scheme;
    this.code = code;
    this.rackOf = rackOf.clone();
    this.racks = Arrays.stream(rackOf).max().orElse(-1) + 1;
    for (int r = 0; r < racks; r++) {
      if (units(r).length == 0) {
        throw new IllegalArgumentException(code.spec() + ": plan leaves rack " + r + " empty");
      }
    }
  }

  public String scheme() {
    return scheme;
  }

  public LinearCode code() {
    return code;
  }

  public int racks() {
    return racks;
  }

  public int rackOf(int unit) {
    return rackOf[unit];
  }

  public int[] rackOf() {
    return rackOf.clone();
  }

  /** Units in plan rack r, ascending. */
  public int[] units(int rack) {
    return java.util.stream.IntStream.range(0, rackOf.length).filter(u -> rackOf[u] == rack).toArray();
  }

  public int maxUnitsPerRack() {
    int max = 0;
    for (int r = 0; r < racks; r++) {
      max = Math.max(max, units(r).length);
    }
    return max;
  }

  /** Units per rack, e.g. [4, 4, 3]. */
  public int[] unitsPerRack() {
    int[] c = new int[racks];
    for (int r : rackOf) {
      c[r]++;
    }
    return c;
  }

  /** Racks whose loss the code cannot decode (empty when the plan survives any single rack). */
  public List<Integer> fatalRacks() {
    ErasurePatterns p = ErasurePatterns.of(code);
    List<Integer> fatal = new ArrayList<>();
    for (int r = 0; r < racks; r++) {
      if (!p.isDecodable(units(r))) {
        fatal.add(r);
      }
    }
    return fatal;
  }

  @Override
  public String toString() {
    return scheme + " " + code.spec() + " over " + racks + " racks " + Arrays.toString(unitsPerRack());
  }
}
