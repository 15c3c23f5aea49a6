package org.wideec.update;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import org.wideec.update.Transfer.Kind;
import org.wideec.update.Transfer.Phase;

/**
 * The rack-coordinated update mechanism (RackCU §III-A) for a given choice of collector racks: the
 * delta-collecting phase sends each changed unit's data delta to its rack's collector; the selective parity update
 * phase then renews, from each collector, the global parities of every other rack with whichever of data deltas or
 * parity deltas crosses fewer racks (parity deltas when the collector holds more deltas than the rack holds
 * parities, Algorithm 1 lines 14-19). Deltas the parity rack already holds (its own changed units, on layouts that
 * mix data and parity in a rack) are not sent again. CAU is the case where each rack is its own collector.
 */
final class SelectiveParityUpdate {
  private SelectiveParityUpdate() {}

  /**
   * @param units the data units whose deltas are sent (the changed ones)
   * @param collectorOf for each rack holding some of {@code units}, the rack it sends them to
   */
  static List<Transfer> transfers(UpdatePattern pattern, int[] units, int[] collectorOf) {
    int[] globals = pattern.globalParities();
    List<Transfer> out = new ArrayList<>();
    TreeSet<Integer> collectors = new TreeSet<>();
    for (int d : units) {
      int c = collectorOf[pattern.rackOf(d)];
      collectors.add(c);
      out.add(new Transfer(Phase.DELTA_COLLECTING, Place.unit(d, pattern.rackOf(d)), Place.relay(c), Kind.DATA_DELTA,
          new int[] {d}, globals));
    }
    for (int c : collectors) {
      int[] held = Arrays.stream(units).filter(d -> collectorOf[pattern.rackOf(d)] == c).toArray();
      for (int y = 0; y < pattern.racks(); y++) {
        int[] parities = pattern.globalParitiesIn(y);
        if (parities.length > 0) {
          renew(pattern, c, held, y, parities, out);
        }
      }
    }
    return out;
  }

  private static void renew(UpdatePattern pattern, int c, int[] held, int y, int[] parities, List<Transfer> out) {
    int[] missing = Arrays.stream(held).filter(d -> pattern.rackOf(d) != y).toArray();
    boolean parityDeltas = y == c || missing.length > parities.length;
    if (parityDeltas) {
      for (int p : parities) {
        out.add(new Transfer(Phase.PARITY_UPDATE, Place.relay(c), Place.unit(p, y), Kind.PARITY_DELTA, held, new int[] {p}));
      }
      return;
    }
    if (missing.length > 0) {
      out.add(new Transfer(Phase.PARITY_UPDATE, Place.relay(c), Place.relay(y), Kind.DATA_DELTA, missing, parities));
    }
    for (int d : held) {
      if (pattern.rackOf(d) == y) {
        out.add(new Transfer(Phase.PARITY_UPDATE, Place.unit(d, y), Place.relay(y), Kind.DATA_DELTA, new int[] {d}, parities));
      }
    }
    for (int p : parities) {
      out.add(new Transfer(Phase.PARITY_UPDATE, Place.relay(y), Place.unit(p, y), Kind.DATA_DELTA, held, new int[] {p}));
    }
  }

  /** The plan: local parities renewed from the same units, after the global ones. */
  static UpdatePlan plan(String scheme, UpdatePattern pattern, int[] units, int[] collectorOf) {
    if (pattern.globalParities().length == 0) {
      // Every global parity is dropped: nothing to collect for, each local parity is renewed from its own group.
      return new UpdatePlan(scheme, pattern, new int[0], LocalParityUpdate.transfers(pattern, units, null), false);
    }
    List<Transfer> ts = new ArrayList<>(transfers(pattern, units, collectorOf));
    ts.addAll(LocalParityUpdate.transfers(pattern, units, collectorOf));
    int[] collectors = Arrays.stream(units).map(d -> collectorOf[pattern.rackOf(d)]).distinct().sorted().toArray();
    return new UpdatePlan(scheme, pattern, collectors, ts, false);
  }
}
