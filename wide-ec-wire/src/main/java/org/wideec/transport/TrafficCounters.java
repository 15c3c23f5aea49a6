package org.wideec.transport;

/** What a node's transport reports as it sends slices and refuses handshakes (implemented by the DataNode's metrics). */
public interface TrafficCounters {
  void sliceSent(int bytes, boolean crossRack);

  /** Of the slices sent, one of a background stream ({@link BackgroundWork}), sent once the caps allowed it. */
  default void backgroundSliceSent(int bytes, boolean crossRack) {}

  /**
   * Of the slices sent, one of a user's stream (a degraded read): counted apart, never as the total less the
   * background, which a reader between the two increments would see fall.
   */
  default void foregroundSliceSent(int bytes, boolean crossRack) {}

  /** The same slice by rack link: what a full-node recovery plan's per-link loads are checked against. */
  default void sliceSentBetween(int bytes, String fromRack, String toRack) {}

  /** This node's slice port refused a peer's handshake. */
  default void handshakeRefused(RefusalReason why) {}

  /** A peer's slice port refused this node's handshake. */
  default void ownHandshakeRefused(RefusalReason why) {}

  TrafficCounters NONE = (bytes, crossRack) -> {};
}
