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

  /** A read that was not authorized: the asker is at fault, not the helper. */
  final class DeniedException extends IOException {
    public DeniedException(String message) {
      super(message);
    }
  }
}
