package org.wideec.repair;

import java.io.IOException;

/**
 * Whether a peer may read a replica: a DataNode checks the block token the reference carries, as it would for a
 * DataTransferProtocol read (the DataNode adapter); everything is readable where block tokens are off.
 */
@FunctionalInterface
public interface ReplicaAccess {
  ReplicaAccess OPEN = unit -> {};

  /** @throws IOException naming the replica and why it may not be read */
  void checkRead(BlockRef unit) throws IOException;

  /**
   * The client on whose behalf a reference's token lets it be read: the user the token was issued to, unless that is
   * the user DataNodes mint their own repairs' tokens under (then null, as for no token). Only meaningful once
   * {@link #checkRead} accepted the token. A relayed request is counted under this client at every hop.
   */
  default String clientOf(BlockRef unit) {
    return null;
  }

  /** A read that was not authorized: the asker is at fault, not the helper. */
  final class DeniedException extends IOException {
    public DeniedException(String message) {
      super(message);
    }
  }
}
