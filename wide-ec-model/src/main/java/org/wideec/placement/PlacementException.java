package org.wideec.placement;

/** Parameters that cannot be placed on the given topology, or a plan that would not be fault tolerant. */
public class PlacementException extends IllegalArgumentException {
  public PlacementException(String message) {
    super(message);
  }
}
