package org.wideec.update;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.wideec.update.Transfer.Kind;
import org.wideec.update.Transfer.Phase;

/**
 * Renews the local parities of an LRC stripe from their own group (RackCU §III-D, "Extension"; ECWide §4.3): a
 * changed member in the local parity's rack sends its delta inside the rack; the changed members elsewhere are
 * summed into one partial parity delta per rack they are summed in, one cross-rack chunk each. A member whose delta
 * already went to a collector rack is summed there, so the collector serves the group as it serves the global
 * parities. Members are the group's data units and, where the group holds them (UniLRC), its global parities, whose
 * deltas exist once the global phase is done. On a group-per-rack layout this never crosses racks; on layouts that
 * split a group over racks it is counted as it is.
 */
final class LocalParityUpdate {
  private LocalParityUpdate() {}

  /**
   * Transfers renewing every local parity from the deltas of the given data units.
   *
   * @param collectorOf per rack, the collector its data deltas went to, or null when the scheme collects none
   */
  static List<Transfer> transfers(UpdatePattern pattern, int[] units, int[] collectorOf) {
    List<Transfer> out = new ArrayList<>();
    for (int lp : pattern.localParities()) {
      int[] members = Arrays.stream(pattern.inputsOf(lp)).filter(u -> changes(pattern, u, units)).toArray();
      int home = pattern.rackOf(lp);
      int[] source = new int[pattern.code().n()];
      for (int m : members) {
        source[m] = sourceRack(pattern, m, home, collectorOf);
      }
      for (int r = 0; r < pattern.racks(); r++) {
        int rack = r;
        int[] here = Arrays.stream(members).filter(m -> source[m] == rack).toArray();
        if (here.length > 0) {
          renewFrom(pattern, rack, here, lp, home, collectorOf, out);
        }
      }
    }
    return out;
  }

  /** Where a member's delta is summed: its own rack, or the collector holding it unless its own rack is home. */
  private static int sourceRack(UpdatePattern pattern, int member, int home, int[] collectorOf) {
    int own = pattern.rackOf(member);
    if (own == home || collectorOf == null || member >= pattern.code().k()) {
      return own;
    }
    return collectorOf[own];
  }

  private static void renewFrom(UpdatePattern pattern, int rack, int[] here, int lp, int home, int[] collectorOf,
      List<Transfer> out) {
    Place parity = Place.unit(lp, home);
    int[] lps = {lp};
    // Deltas a collector gathered sit at its relay; the others at their units' nodes.
    int[] collected = Arrays.stream(here).filter(m -> collectorOf != null && m < pattern.code().k()
        && collectorOf[pattern.rackOf(m)] == rack).toArray();
    int[] own = Arrays.stream(here).filter(m -> Arrays.binarySearch(collected, m) < 0).toArray();
    if (rack == home) {
      if (collected.length > 0) {
        out.add(new Transfer(Phase.LOCAL_PARITY_UPDATE, Place.relay(rack), parity, Kind.DATA_DELTA, collected, lps));
      }
      for (int m : own) {
        out.add(new Transfer(Phase.LOCAL_PARITY_UPDATE, Place.unit(m, rack), parity, Kind.DATA_DELTA, new int[] {m}, lps));
      }
      return;
    }
    if (own.length == 1 && collected.length == 0) {
      out.add(new Transfer(Phase.LOCAL_PARITY_UPDATE, Place.unit(own[0], rack), parity, Kind.PARITY_DELTA, own, lps));
      return;
    }
    for (int m : own) {
      out.add(new Transfer(Phase.LOCAL_PARITY_UPDATE, Place.unit(m, rack), Place.relay(rack), Kind.DATA_DELTA, new int[] {m}, lps));
    }
    out.add(new Transfer(Phase.LOCAL_PARITY_UPDATE, Place.relay(rack), parity, Kind.PARITY_DELTA, here, lps));
  }

  /** Whether a group member's delta is non-zero: a sending data unit, or a global parity one of them enters. */
  private static boolean changes(UpdatePattern pattern, int member, int[] units) {
    if (member < pattern.code().k()) {
      return Arrays.binarySearch(units, member) >= 0;
    }
    return Arrays.stream(units).anyMatch(d -> pattern.coefficient(member, d) != 0);
  }
}
