package org.wideec.repair;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.wideec.code.LinearCode;

/**
 * What to rebuild, from whoever asks (the NameNode's reconstruction task for a striped block group, the
 * archival layout's stripe index): the code, the lost units and their lengths, where every surviving unit
 * is and which replica holds it, and units known to be all zeros (data units past the end of a short group).
 *
 * @param rackChain for a rack-aggregated chain, the order in which it visits the racks other than the requestor's
 *     (a full-node recovery plan's choice, {@link FullNodeRecoveryPlanner}); empty for racks in name order
 */
public record StripeRepair(String name, LinearCode code, int[] lost, long[] lostLengths, Map<Integer, UnitLocation> survivors,
    Map<Integer, BlockRef> blocks, Set<Integer> zeroUnits, RepairScheme scheme, LinkWeights weights,
    Comparator<Integer> preference, List<String> rackChain) {

  /** A repair whose rack-aggregated chain visits racks in name order. */
  public StripeRepair(String name, LinearCode code, int[] lost, long[] lostLengths,
      Map<Integer, UnitLocation> survivors, Map<Integer, BlockRef> blocks, Set<Integer> zeroUnits, RepairScheme scheme,
      LinkWeights weights, Comparator<Integer> preference) {
    this(name, code, lost, lostLengths, survivors, blocks, zeroUnits, scheme, weights, preference, List.of());
  }

  public StripeRepair {
    if (lost.length == 0 || lost.length != lostLengths.length) {
      throw new IllegalArgumentException(name + ": " + lost.length + " lost units with " + lostLengths.length + " lengths");
    }
    boolean copy = isCopy(lost, survivors, zeroUnits);
    for (int u : lost) {
      if ((!copy && survivors.containsKey(u)) || zeroUnits.contains(u)) {
        throw new IllegalArgumentException(name + ": unit " + u + " is both lost and available");
      }
    }
    lost = lost.clone();
    lostLengths = lostLengths.clone();
    rackChain = List.copyOf(rackChain);
  }

  /**
   * A copy of one unit from a replica of it (a unit leaving service with its DataNode): the repair's only input is
   * that replica, read through the slice port with every chunk checked against its checksum and stored by the
   * worker on the target the NameNode chose, like any rebuilt unit.
   */
  public static StripeRepair copy(String name, LinearCode code, int unit, long length, UnitLocation from,
      BlockRef replica, RepairScheme scheme) {
    if (from.unit() != unit) {
      throw new IllegalArgumentException(name + ": a copy of unit " + unit + " from a replica of unit " + from.unit());
    }
    return new StripeRepair(name, code, new int[] {unit}, new long[] {length}, Map.of(unit, from),
        Map.of(unit, replica), Set.of(), scheme, LinkWeights.UNIFORM, Comparator.naturalOrder());
  }

  /** Whether this repair copies its one unit from a replica of it ({@link #copy}). */
  public boolean copies() {
    return isCopy(lost, survivors, zeroUnits);
  }

  private static boolean isCopy(int[] lost, Map<Integer, UnitLocation> survivors, Set<Integer> zeroUnits) {
    return lost.length == 1 && survivors.size() == 1 && survivors.containsKey(lost[0]) && zeroUnits.isEmpty();
  }

  /** A repair with the default helper preference (unit order). */
  public static StripeRepair of(String name, LinearCode code, int[] lost, long[] lostLengths,
      Map<Integer, UnitLocation> survivors, Map<Integer, BlockRef> blocks, Set<Integer> zeroUnits, RepairScheme scheme) {
    return new StripeRepair(name, code, lost, lostLengths, survivors, blocks, zeroUnits, scheme, LinkWeights.UNIFORM,
        Comparator.naturalOrder());
  }

  /** The same repair restricted to some of its lost units. */
  public StripeRepair only(int[] units) {
    long[] lengths = new long[units.length];
    for (int i = 0; i < units.length; i++) {
      int at = -1;
      for (int j = 0; j < lost.length; j++) {
        at = lost[j] == units[i] ? j : at;
      }
      if (at < 0) {
        throw new IllegalArgumentException(name + ": unit " + units[i] + " is not among the lost " + Arrays.toString(lost));
      }
      lengths[i] = lostLengths[at];
    }
    return new StripeRepair(name, code, units, lengths, survivors, blocks, zeroUnits, scheme, weights, preference,
        rackChain);
  }

  /** The same repair without the surviving units on these nodes (helpers found unusable): planned from the others. */
  public StripeRepair without(Set<String> nodes) {
    Map<Integer, UnitLocation> kept = new java.util.HashMap<>();
    Map<Integer, BlockRef> keptBlocks = new java.util.HashMap<>();
    survivors.forEach((u, at) -> {
      if (!nodes.contains(at.node())) {
        kept.put(u, at);
        if (blocks.containsKey(u)) {
          keptBlocks.put(u, blocks.get(u));
        }
      }
    });
    return new StripeRepair(name, code, lost, lostLengths, kept, keptBlocks, zeroUnits, scheme, weights, preference,
        rackChain);
  }

  /** The same repair with another scheme. */
  public StripeRepair withScheme(RepairScheme other) {
    return new StripeRepair(name, code, lost, lostLengths, survivors, blocks, zeroUnits, other, weights, preference,
        rackChain);
  }

  /** The same repair with its rack-aggregated chain visiting the other racks in this order. */
  public StripeRepair withRackChain(List<String> racks) {
    return new StripeRepair(name, code, lost, lostLengths, survivors, blocks, zeroUnits, scheme, weights, preference,
        racks);
  }

  /**
   * The units a plan of this repair may take as helpers: the survivors on none of {@code excludedNodes}, and the zero
   * units, placed in the requestor's rack (they are added at the requestor and cross no link).
   */
  public Map<Integer, UnitLocation> helpersAvailable(Set<String> excludedNodes, String requestorRack) {
    Map<Integer, UnitLocation> available = new java.util.HashMap<>();
    survivors.forEach((u, loc) -> {
      if (!excludedNodes.contains(loc.node())) {
        available.put(u, loc);
      }
    });
    for (int z : zeroUnits) {
      available.put(z, UnitLocation.zero(z, requestorRack));
    }
    return available;
  }

  /** The order in which a plan takes helpers beyond the code's cheapest plan: zero units first, then the preference. */
  public Comparator<Integer> helperPreference() {
    return Comparator.comparing((Integer u) -> !zeroUnits.contains(u)).thenComparing(preference);
  }

  public long length() {
    return Arrays.stream(lostLengths).max().orElse(0);
  }
}
