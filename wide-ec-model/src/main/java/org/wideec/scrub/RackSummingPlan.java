package org.wideec.scrub;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.wideec.gf.RegionKernels;

/**
 * Where a stripe's summaries are summed before its check rows ({@link ScrubChecks}) are tested: the scrub's version
 * of ECWide's in-rack aggregation (§4.1). A check row is linear in the summaries, so a rack's share of it, the sum
 * over its units u of C[i][u] * S_u, can be formed inside the rack by one collector, which then sends one page per
 * check row across racks instead of one page per unit. A rack sums only where that saves bytes, when it holds more
 * units than there are check rows; the units of other racks, and of the checker's own rack, send their own summary
 * and the checker multiplies it in. A plan is data: it is costed here ({@link #crossRackBytes}), carried out by the
 * DataNodes' step service, and {@link #sumInRack} is the reference the executor must agree with.
 */
public final class RackSummingPlan {
  /**
   * The units of one rack whose summaries its collector sums.
   *
   * @param collector the unit whose holder folds its own unit, adds the others' rows and sends the rack's rows
   * @param units every unit summed there, the collector first
   */
  public record RackSum(String rack, int collector, int[] units) {
    public RackSum {
      units = units.clone();
      if (units.length < 2 || units[0] != collector) {
        throw new IllegalArgumentException("rack " + rack + ": a sum starts at its collector " + collector
            + " and has at least two units, got " + Arrays.toString(units));
      }
    }

    @Override
    public int[] units() {
      return units.clone();
    }

    /** The units other than the collector: each sends its rows to the collector, inside the rack. */
    public int[] helpers() {
      return Arrays.copyOfRange(units, 1, units.length);
    }
  }

  private final ScrubChecks checks;
  private final String checkerRack;
  private final String[] rackOfUnit;
  private final List<RackSum> sums;
  private final int[] alone;

  private RackSummingPlan(ScrubChecks checks, String checkerRack, String[] rackOfUnit, List<RackSum> sums,
      int[] alone) {
    this.checks = checks;
    this.checkerRack = checkerRack;
    this.rackOfUnit = rackOfUnit;
    this.sums = List.copyOf(sums);
    this.alone = alone;
  }

  /**
   * Plans one stripe.
   *
   * @param rackOfUnit the rack of each unit's holder, in unit order; null for a unit known to be zeros (padding, or
   *     past a short group's end), whose summary is zero and is asked of nobody
   * @param checkerRack the rack of the node that tests the check rows
   */
  public static RackSummingPlan plan(ScrubChecks checks, String[] rackOfUnit, String checkerRack) {
    if (rackOfUnit.length != checks.units()) {
      throw new IllegalArgumentException(rackOfUnit.length + " racks for a stripe of " + checks.units() + " units");
    }
    Map<String, List<Integer>> byRack = new LinkedHashMap<>();
    for (int u = 0; u < rackOfUnit.length; u++) {
      if (rackOfUnit[u] != null) {
        byRack.computeIfAbsent(rackOfUnit[u], r -> new ArrayList<>()).add(u);
      }
    }
    List<RackSum> sums = new ArrayList<>();
    List<Integer> alone = new ArrayList<>();
    for (Map.Entry<String, List<Integer>> e : byRack.entrySet()) {
      List<Integer> units = e.getValue();
      // Summing saves bytes only where the rack's rows are fewer than its units; in the checker's rack nothing crosses.
      if (units.size() > checks.count() && !e.getKey().equals(checkerRack)) {
        sums.add(new RackSum(e.getKey(), units.get(0), units.stream().mapToInt(Integer::intValue).toArray()));
      } else {
        alone.addAll(units);
      }
    }
    return new RackSummingPlan(checks, checkerRack, rackOfUnit.clone(), sums,
        alone.stream().mapToInt(Integer::intValue).sorted().toArray());
  }

  public ScrubChecks checks() {
    return checks;
  }

  public List<RackSum> sums() {
    return sums;
  }

  /** Units whose own summary goes to the checker. */
  public int[] alone() {
    return alone.clone();
  }

  /** Summary bytes that cross racks when the plan is carried out with pages of {@code pageSize} bytes. */
  public long crossRackBytes(int pageSize) {
    long pages = (long) sums.size() * checks.count();
    for (int u : alone) {
      if (!rackOfUnit[u].equals(checkerRack)) {
        pages++;
      }
    }
    return pages * pageSize;
  }

  /** What the same stripe costs when every unit sends its own summary (the fallback that localizes a fault). */
  public long perUnitCrossRackBytes(int pageSize) {
    long pages = Arrays.stream(rackOfUnit).filter(r -> r != null && !r.equals(checkerRack)).count();
    return pages * pageSize;
  }

  /**
   * The reference of what a rack's collector sends: for each check row i, the sum over the rack's units u of
   * C[i][u] * S_u.
   *
   * @param summaries every unit's summary, in unit order (only the rack's are read)
   */
  public byte[][] sumInRack(RackSum sum, byte[][] summaries) {
    int page = summaries[sum.collector()].length;
    byte[][] rows = new byte[checks.count()][page];
    for (int u : sum.units()) {
      addRows(checks.coefficientsOf(u), summaries[u], rows);
    }
    return rows;
  }

  /** Adds c_i * summary to row i, for every check row: how a holder's page enters a rack's or the checker's sum. */
  public static void addRows(int[] coefficients, byte[] summary, byte[][] rows) {
    for (int i = 0; i < rows.length; i++) {
      RegionKernels.mulAdd(coefficients[i], summary, 0, rows[i], 0, summary.length);
    }
  }

  /**
   * Whether every check row sums to zero.
   *
   * @param rackRows what each rack's collector sent, in the order of {@link #sums}
   * @param summaries the summaries of the {@link #alone} units, in unit order (other entries are not read)
   */
  public boolean consistent(List<byte[][]> rackRows, byte[][] summaries, int pageSize) {
    if (rackRows.size() != sums.size()) {
      throw new IllegalArgumentException(rackRows.size() + " rack sums for a plan of " + sums.size());
    }
    byte[][] total = new byte[checks.count()][pageSize];
    for (byte[][] rows : rackRows) {
      for (int i = 0; i < total.length; i++) {
        RegionKernels.mulAdd(1, rows[i], 0, total[i], 0, pageSize);
      }
    }
    for (int u : alone) {
      addRows(checks.coefficientsOf(u), summaries[u], total);
    }
    for (byte[] row : total) {
      for (byte b : row) {
        if (b != 0) {
          return false;
        }
      }
    }
    return true;
  }
}
