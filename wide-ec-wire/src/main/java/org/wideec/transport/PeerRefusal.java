package org.wideec.transport;

/**
 * A peer ended the connection with an error of its own before any frame of the stream arrived: it refused the
 * connection (its handshake deadline passed behind a busy host or a full uplink, it was at its connection limit, it
 * did not accept this node's proof) or failed before its first slice. Nothing of it was used, so a repair may ask it
 * again when it cannot decode without it.
 */
public final class PeerRefusal extends PeerFailure {
  public PeerRefusal(String culprit, String message) {
    super(culprit, message);
  }
}
