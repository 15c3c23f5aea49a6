package org.wideec.update;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.wideec.update.Transfer.Kind;
import org.wideec.update.Transfer.Phase;

/**
 * Renews the local parities of an LRC stripe from their own group (RackCU §III-D, "Extension"; ECWide §4.3): a
 * changed member in the local parity's rack sends its delta inside the rack; the changed members of another rack
 * are summed there into one partial parity delta, one cross-rack chunk per such rack. Members are the group's data
 * units and, where the group holds them (UniLRC), its global parities, whose deltas exist once the global phase
 * is done. On a group-per-rack layout that is never cross-rack; on layouts that split a group over racks it is
 * counted as it is.
 */
final class LocalParityUpdate {
  private LocalParityUpdate() {}

  /** Transfers renewing every local parity from the deltas of the given data units. */
  static List<Transfer> transfers(UpdatePattern pattern, int[] units) {
    List<Transfer> out = new ArrayList<>();
    for (int lp : pattern.localParities()) {
      int[] members = Arrays.stream(pattern.inputsOf(lp)).filter(u -> changes(pattern, u, units)).toArray();
      int home = pattern.rackOf(lp);
      Place parity = Place.unit(lp, home);
      int[] lps = {lp};
      for (int d : members) {
        if (pattern.rackOf(d) == home) {
          out.add(new Transfer(Phase.LOCAL_PARITY_UPDATE, Place.unit(d, home), parity, Kind.DATA_DELTA, new int[] {d}, lps));
        }
      }
      for (int r = 0; r < pattern.racks(); r++) {
        int rack = r;
        int[] here = Arrays.stream(members).filter(u -> pattern.rackOf(u) == rack).toArray();
        if (rack == home || here.length == 0) {
          continue;
        }
        if (here.length == 1) {
          out.add(new Transfer(Phase.LOCAL_PARITY_UPDATE, Place.unit(here[0], rack), parity, Kind.PARITY_DELTA, here, lps));
          continue;
        }
        for (int d : here) {
          out.add(new Transfer(Phase.LOCAL_PARITY_UPDATE, Place.unit(d, rack), Place.relay(rack), Kind.DATA_DELTA, new int[] {d}, lps));
        }
        out.add(new Transfer(Phase.LOCAL_PARITY_UPDATE, Place.relay(rack), parity, Kind.PARITY_DELTA, here, lps));
      }
    }
    return out;
  }

  /** Whether a group member's delta is non-zero: a sending data unit, or a global parity one of them enters. */
  private static boolean changes(UpdatePattern pattern, int member, int[] units) {
    if (member < pattern.code().k()) {
      return Arrays.binarySearch(units, member) >= 0;
    }
    return Arrays.stream(units).anyMatch(d -> pattern.coefficient(member, d) != 0);
  }
}
