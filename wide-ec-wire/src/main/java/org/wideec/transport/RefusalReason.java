package org.wideec.transport;

/**
 * Why a slice port refused a handshake: what an operator needs to tell a DataNode with the wrong cluster secret
 * (its peers refuse it, and it refuses them) from a client without a block token or with an expired one. A server
 * that refuses a handshake sends the reason in its ERROR frame's index ({@link #wire}), so the refused side
 * counts it too; 0 (peers of earlier versions) reads as {@link #OTHER}.
 */
public enum RefusalReason {
  /** The peer's MAC did not verify under the cluster secret: its wide-ec.transport.secret differs. */
  WRONG_SECRET("wrong secret"),
  /** The peer presented nothing (no secret, no block token) to a node that authenticates. */
  NO_CREDENTIAL("no credential"),
  /** The peer's block token expired, is under a key this node does not know, or its password does not match. */
  BAD_TOKEN("expired or invalid block token"),
  /** Anything else: a malformed AUTH, a frame MAC not offered, auth=none on one side only. */
  OTHER("other");

  private final String words;

  RefusalReason(String words) {
    this.words = words;
  }

  /** How reports name it ("wrong secret"). */
  @Override
  public String toString() {
    return words;
  }

  int wire() {
    return ordinal() + 1;
  }

  static RefusalReason ofWire(int index) {
    return index >= 1 && index <= values().length ? values()[index - 1] : OTHER;
  }
}
