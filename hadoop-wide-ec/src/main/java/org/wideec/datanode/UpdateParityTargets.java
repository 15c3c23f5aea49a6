package org.wideec.datanode;

import java.io.IOException;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.wideec.protocol.UpdateRoleRequest;
import org.wideec.repair.ReplicaAccess;
import org.wideec.repair.SliceSink;

/**
 * Where a parity-update role writes its new parity: the single block the updater allocated for it (a new block: a
 * finalized replica is never rewritten), by DataTransferProtocol with the updater's WRITE token and the data's
 * checksum, as an encode's output is written ({@link AllocatedOutputs}).
 */
final class UpdateParityTargets {
  private UpdateParityTargets() {}

  /** @throws ReplicaAccess.DeniedException when the request carries no valid WRITE token for exactly that block */
  static SliceSink open(DataNode dn, UpdateRoleRequest req) throws IOException {
    if (req.newParity().block().numBytes() != req.length()) {
      throw new IOException(req + ": its new parity block " + req.newParity().block() + " is not " + req.length()
          + " bytes");
    }
    try {
      BlockTokenAccess.checkWrite(dn, req.newParity().block());
    } catch (ReplicaAccess.DeniedException e) {
      throw new ReplicaAccess.DeniedException(req + ": " + e.getMessage());
    }
    return AllocatedOutputs.writer(dn, req.newParity(), req.length(),
        AllocatedOutputs.checksum(req, req.checksumType(), req.bytesPerChecksum()));
  }
}
