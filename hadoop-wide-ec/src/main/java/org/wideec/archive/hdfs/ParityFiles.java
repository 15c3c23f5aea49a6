package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.EnumSet;
import org.apache.hadoop.crypto.CryptoProtocolVersion;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.ClientProtocol;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.io.EnumSetWritable;
import org.wideec.archive.ArchivedStripe;
import org.wideec.time.Backoff;
import org.wideec.transport.hdfs.TokenBytes;

/**
 * Parity files whose one block someone else writes (the chain encoder's collectors): the archiver creates each file
 * and allocates its block through ClientProtocol as a client's output stream would (the planned node favored; the
 * NameNode's answer carries the block's WRITE token), keeps the files' lease while the block is written elsewhere,
 * and completes each file on its block once written. A file never completed is deleted by the rerun (the Archiver
 * empties an ENCODING stripe's parity directory).
 */
final class ParityFiles {
  /** Tries of complete() while the NameNode waits for the block's report from its DataNode. */
  private static final int COMPLETE_TRIES = 60;
  private final ClientProtocol namenode;
  private final String clientName;

  ParityFiles(DistributedFileSystem dfs) {
    this.namenode = dfs.getClient().getNamenode();
    this.clientName = dfs.getClient().getClientName();
  }

  /** A parity file created and its one block allocated ({@code numBytes} = the unit length), with its WRITE token. */
  record Allocated(Path file, long inode, ExtendedBlock block, DatanodeInfo node, String storageType, String storageId,
      byte[] token) {

    /** What the DataNode that computes unit {@code row} is told: the block, its WRITE token, the node to store on. */
    org.wideec.protocol.EncodeTreeRequest.ParityOutput output(int row) {
      return new org.wideec.protocol.EncodeTreeRequest.ParityOutput(row, new org.wideec.repair.BlockRef(
          block.getBlockPoolId(), block.getBlockId(), block.getGenerationStamp(), block.getNumBytes(), token),
          new org.wideec.protocol.EncodeTreeRequest.TargetNode(node.getIpAddr(), node.getHostName(),
              node.getDatanodeUuid(), node.getXferPort(), node.getInfoPort(), node.getInfoSecurePort(),
              node.getIpcPort(), storageType, storageId));
    }
  }

  /** Creates the parity unit's file (replication 1, 0600) and allocates its block, its planned node favored. */
  Allocated allocate(ArchivedStripe stripe, int unit, long blockSize, long unitLength) throws IOException {
    return allocate(stripe, unit, blockSize, unitLength, 0);
  }

  /**
   * As {@link #allocate(ArchivedStripe, int, long, long)}, for the parity update to manifest {@code version}: the new
   * block beside the old one ({@link ArchiveLayout#parityUnit(String, int, long)}, its directory created).
   */
  Allocated allocate(ArchivedStripe stripe, int unit, long blockSize, long unitLength, long version)
      throws IOException {
    return allocate(stripe, unit, stripe.member(unit).plannedNode(), blockSize, unitLength, version);
  }

  /** As {@link #allocate(ArchivedStripe, int, long, long, long)}, favoring {@code planned} (empty: none). */
  Allocated allocate(ArchivedStripe stripe, int unit, String planned, long blockSize, long unitLength, long version)
      throws IOException {
    Path file = ArchiveLayout.parityUnit(stripe.parityFilePath(), unit, version);
    String src = file.toString();
    HdfsFileStatus st = namenode.create(src, new FsPermission((short) 0600), clientName,
        new EnumSetWritable<>(EnumSet.of(CreateFlag.CREATE)), version > 0, (short) 1, blockSize,
        CryptoProtocolVersion.supported(), null, null);
    LocatedBlock lb = namenode.addBlock(src, clientName, null, null, st.getFileId(),
        planned.isEmpty() ? null : new String[] {planned}, null);
    if (lb.getLocations().length != 1) {
      throw new IOException("stripe " + stripe.stripeId() + " unit " + unit + ": the NameNode allocated parity block "
          + lb.getBlock() + " of " + file + " on " + lb.getLocations().length + " DataNodes, expected 1");
    }
    ExtendedBlock b = new ExtendedBlock(lb.getBlock());
    b.setNumBytes(unitLength);
    return new Allocated(file, st.getFileId(), b, lb.getLocations()[0], lb.getStorageTypes()[0].name(),
        lb.getStorageIDs()[0], TokenBytes.of(lb.getBlockToken()));
  }

  /** The files are created outside an output stream, so no lease renewer knows them: renewed here. */
  void renewLease() throws IOException {
    namenode.renewLease(clientName, null);
  }

  /** Closes the parity file on its one block; the NameNode may wait for the DataNode's report of it. */
  void complete(ArchivedStripe stripe, int unit, Allocated a) throws IOException {
    Backoff poll = Backoff.pollingNameNode(20);
    for (int i = 0; i < COMPLETE_TRIES; i++) {
      if (namenode.complete(a.file().toString(), clientName, a.block(), a.inode())) {
        return;
      }
      poll.pause("stripe " + stripe.stripeId() + ": interrupted completing " + a.file());
    }
    throw new IOException("stripe " + stripe.stripeId() + " unit " + unit + ": the NameNode did not complete " + a.file()
        + " (block " + a.block() + " on " + a.node().getXferAddr() + ")");
  }

  /** The one block of a parity file written by this client, which must be closed and hold exactly the unit length. */
  static LocatedBlock closedSingleBlock(DistributedFileSystem dfs, ArchivedStripe stripe, int unit, Path file,
      long unitLength) throws IOException {
    org.apache.hadoop.hdfs.protocol.LocatedBlocks lbs = dfs.getClient().getLocatedBlocks(file.toString(), 0,
        Math.max(1, unitLength));
    java.util.List<LocatedBlock> blocks = lbs.getLocatedBlocks();
    if (lbs.isUnderConstruction() || blocks.size() != 1 || blocks.get(0).getBlock().getNumBytes() != unitLength) {
      throw new IOException("stripe " + stripe.stripeId() + " unit " + unit + ": parity file " + file + " should be one"
          + " closed block of " + unitLength + " bytes, HDFS has " + blocks.size() + " block(s) of "
          + lbs.getFileLength() + " bytes" + (lbs.isUnderConstruction() ? ", still open" : ""));
    }
    return blocks.get(0);
  }

  /** The inode id of a file this client has just written. */
  static long inodeOf(DistributedFileSystem dfs, Path p) throws IOException {
    HdfsFileStatus st = dfs.getClient().getFileInfo(p.toString());
    if (st == null) {
      throw new IOException(p + " disappeared right after it was written");
    }
    return st.getFileId();
  }
}
