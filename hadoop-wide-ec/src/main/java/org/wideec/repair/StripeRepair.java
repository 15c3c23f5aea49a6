package org.wideec.repair;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Map;
import java.util.Set;
import org.wideec.code.LinearCode;

/**
 * What to rebuild, from whoever asks (the NameNode's reconstruction task for a striped block group, the
 * archival layout's stripe index): the code, the lost units and their lengths, where every surviving unit
 * is and which replica holds it, and units known to be all zeros (data units past the end of a short group).
 */
public record StripeRepair(String name, LinearCode code, int[] lost, long[] lostLengths, Map<Integer, UnitLocation> survivors,
    Map<Integer, BlockRef> blocks, Set<Integer> zeroUnits, RepairScheme scheme, LinkWeights weights,
    Comparator<Integer> preference) {

  public StripeRepair {
    if (lost.length == 0 || lost.length != lostLengths.length) {
      throw new IllegalArgumentException(name + ": " + lost.length + " lost units with " + lostLengths.length + " lengths");
    }
    for (int u : lost) {
      if (survivors.containsKey(u) || zeroUnits.contains(u)) {
        throw new IllegalArgumentException(name + ": unit " + u + " is both lost and available");
      }
    }
    lost = lost.clone();
    lostLengths = lostLengths.clone();
  }

  /** A repair with the default helper preference (unit order). */
  public static StripeRepair of(String name, LinearCode code, int[] lost, long[] lostLengths,
      Map<Integer, UnitLocation> survivors, Map<Integer, BlockRef> blocks, Set<Integer> zeroUnits, RepairScheme scheme) {
    return new StripeRepair(name, code, lost, lostLengths, survivors, blocks, zeroUnits, scheme, LinkWeights.UNIFORM,
        Comparator.naturalOrder());
  }

  public long length() {
    return Arrays.stream(lostLengths).max().orElse(0);
  }
}
