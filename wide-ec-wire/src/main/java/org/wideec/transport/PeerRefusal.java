package org.wideec.transport;

/**
 * A peer refused the connection before any stream began: its handshake deadline passed (a busy host, a full uplink),
 * it was at its connection limit, or it did not accept this node's proof. Nothing it sent was wrong data, so a repair
 * may ask it again when it cannot decode without it.
 */
public final class PeerRefusal extends PeerFailure {
  public PeerRefusal(String culprit, String message) {
    super(culprit, message);
  }
}
