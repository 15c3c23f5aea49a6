package org.wideec.transport;

import java.io.IOException;

/**
 * A repair stream broke: names the node held responsible (the helper that died, stalled, sent a corrupt
 * slice or failed to read its unit), so the requestor can replace it and restart (ECPipe §3.2).
 */
public class PeerFailure extends IOException {
  private final String culprit;

  public PeerFailure(String culprit, String message) {
    super(message);
    this.culprit = culprit;
  }

  public PeerFailure(String culprit, String message, Throwable cause) {
    super(message, cause);
    this.culprit = culprit;
  }

  /** The node to exclude from the next attempt, or null when no node is to blame. */
  public String culprit() {
    return culprit;
  }
}
