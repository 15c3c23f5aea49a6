package org.wideec.update;

/**
 * Where an update transfer starts or ends: a unit's node, or a rack's relay (the node of that rack that
 * collects deltas or forwards them to the rack's parity nodes, RackCU §IV's per-rack proxy). The executor
 * picks the relay node; the plan only fixes its rack, which is all the cross-rack count depends on.
 */
public record Place(int rack, int unit) {
  /** {@code unit} value of a rack relay. */
  public static final int RELAY = -1;

  public Place {
    if (rack < 0 || unit < RELAY) {
      throw new IllegalArgumentException("a place needs rack >= 0 and unit >= 0 (or RELAY), got rack " + rack + ", unit " + unit);
    }
  }

  public static Place unit(int unit, int rack) {
    return new Place(rack, unit);
  }

  public static Place relay(int rack) {
    return new Place(rack, RELAY);
  }

  public boolean isRelay() {
    return unit == RELAY;
  }
}
