package org.wideec.archive;

import org.wideec.code.UnitRole;

/**
 * What the plan does with one unit of a stripe: a data block keeps the replica on {@code node} (KEEP) or is
 * copied there from {@code fromNode} first (MOVE); a parity is written to {@code node} (WRITE); a virtual unit
 * (padding, or a parity that is zero because it covers padding only) is never stored (VIRTUAL).
 *
 * @param block the data block, null for parities and virtual units
 * @param length bytes stored: the block's length, the stripe's unit length for a parity, 0 when virtual
 */
public record PlannedUnit(int unit, UnitRole role, Action action, DataBlock block, long length, String node,
    String rack, String fromNode, String fromRack) {

  public enum Action {
    KEEP,
    MOVE,
    WRITE,
    VIRTUAL;

    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  public boolean stored() {
    return action != Action.VIRTUAL;
  }

  public boolean isStoredData() {
    return role == UnitRole.DATA && stored();
  }

  /** A move whose copy crosses racks. */
  public boolean crossRackMove() {
    return action == Action.MOVE && !fromRack.equals(rack);
  }
}
