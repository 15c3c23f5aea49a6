package org.wideec.archive;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One stripe of an archival plan: every unit's action and place, the unit length (the longest data block; shorter
 * ones count as zero-padded), and what encoding it costs either way.
 *
 * @param bytesMovedWithPlanRacks the fewest bytes moved had each unit kept its plan rack from the placement
 *     planner (the exact optimum of relabelling alone); {@link #bytesMoved()} is never more
 * @param crossRackBytesWithFewestMoves what the chain archival sends across racks, moves included, had the stripe
 *     been kept with the fewest bytes moved; {@link #crossRackBytesPlanned()} is never more (the planner keeps the
 *     stripe for the bytes across racks only when that sends fewer)
 * @param liveReplicas each stored data unit's live replicas before archival (where a chain may read it)
 */
public record PlannedStripe(long stripeId, String codeSpec, List<PlannedUnit> units, long unitLength,
    ClassicEncoding classic, ChainEncoding chain, long bytesMovedWithPlanRacks, long crossRackBytesWithFewestMoves,
    Map<Integer, List<org.wideec.topology.Site>> liveReplicas) {

  public PlannedStripe {
    units = List.copyOf(units);
    liveReplicas = Map.copyOf(liveReplicas);
  }

  /**
   * The same stripe with its chain costed in the encoder's shape ({@code wide-ec.archive.chain.shape}) and reading
   * ({@code wide-ec.archive.chain.reads}).
   */
  public PlannedStripe withChainShape(org.wideec.archive.encode.EncodePlan.Shape shape,
      org.wideec.archive.encode.ChainReads reads) {
    return new PlannedStripe(stripeId, codeSpec, units, unitLength, classic,
        ChainEncoding.of(org.wideec.code.Codes.pinnedFromSpec(codeSpec), units, shape, reads, liveReplicas),
        bytesMovedWithPlanRacks, crossRackBytesWithFewestMoves, liveReplicas);
  }

  public PlannedUnit unit(int u) {
    return units.get(u);
  }

  public int dataBlocks() {
    return (int) units.stream().filter(PlannedUnit::isStoredData).count();
  }

  public long count(PlannedUnit.Action action) {
    return units.stream().filter(u -> u.action() == action).count();
  }

  /** Virtual data units: the short stripe's padding. */
  public int paddingUnits() {
    return (int) units.stream().filter(u -> u.role() == org.wideec.code.UnitRole.DATA && !u.stored()).count();
  }

  public long bytesMoved() {
    return units.stream().filter(u -> u.action() == PlannedUnit.Action.MOVE).mapToLong(PlannedUnit::length).sum();
  }

  public long crossRackBytesMoved() {
    return units.stream().filter(PlannedUnit::crossRackMove).mapToLong(PlannedUnit::length).sum();
  }

  /** What the chain archival sends across racks in all: the chain's streams and deliveries, and the plan's moves. */
  public long crossRackBytesPlanned() {
    return chain.crossRackBytes() + crossRackBytesMoved();
  }

  /** Bytes of data the stripe protects. */
  public long logicalBytes() {
    return units.stream().filter(PlannedUnit::isStoredData).mapToLong(PlannedUnit::length).sum();
  }

  /** Bytes stored after archival: one replica of every data block plus the stored parities. */
  public long storedBytes() {
    return units.stream().filter(PlannedUnit::stored).mapToLong(PlannedUnit::length).sum();
  }

  /** Stored units per rack, in rack order. */
  public Map<String, Integer> unitsPerRack() {
    Map<String, Integer> m = new TreeMap<>();
    units.stream().filter(PlannedUnit::stored).forEach(u -> m.merge(u.rack(), 1, Integer::sum));
    return m;
  }
}
