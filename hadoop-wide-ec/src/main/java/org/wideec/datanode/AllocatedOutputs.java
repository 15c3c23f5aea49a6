package org.wideec.datanode;

import java.io.IOException;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.util.DataChecksum;
import org.wideec.protocol.EncodeTreeRequest;
import org.wideec.repair.BlockRef;

/**
 * The block an archiver allocated for an encode's output (a chain tree's parity row, a RapidRAID position's codeword),
 * written on the target the NameNode chose for it by DataTransferProtocol, with the archiver's WRITE token and the
 * data's checksum type, as a client's write is. No confirmation here: the archiver reads every output back against
 * the CRC32C reported before the stripe advances.
 */
final class AllocatedOutputs {
  private AllocatedOutputs() {}

  /**
   * The checksum an output is written with.
   *
   * @throws IOException naming the request when its checksum type is not one HDFS writes
   */
  static DataChecksum checksum(Object request, int type, int bytesPerChecksum) throws IOException {
    for (DataChecksum.Type t : DataChecksum.Type.values()) {
      if (t.id == type && t.size > 0) {
        return DataChecksum.newDataChecksum(t, bytesPerChecksum);
      }
    }
    throw new IOException(request + ": checksum type " + type + " is not one HDFS writes");
  }

  /** The writer of {@code o}'s block, {@code length} bytes, on its target. */
  static BlockTargetWriter writer(DataNode dn, EncodeTreeRequest.ParityOutput o, long length, DataChecksum checksum)
      throws IOException {
    EncodeTreeRequest.TargetNode tn = o.target();
    DatanodeInfo target = new DatanodeInfo.DatanodeInfoBuilder().setIpAddr(tn.ipAddr()).setHostName(tn.hostName())
        .setDatanodeUuid(tn.uuid()).setXferPort(tn.xferPort()).setInfoPort(tn.infoPort())
        .setInfoSecurePort(tn.infoSecurePort()).setIpcPort(tn.ipcPort()).build();
    BlockRef b = o.block();
    return new BlockTargetWriter(dn, new ExtendedBlock(b.pool(), b.blockId(), length, b.genStamp()), target,
        StorageType.parseStorageType(tn.storageType()), tn.storageId(), checksum, null, BlockTokenAccess.tokenOf(b),
        BlockTargetWriter.NO_CRC);
  }
}
