package org.wideec.datanode;

import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.EnumSet;
import java.util.zip.CRC32C;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.datatransfer.BlockConstructionStage;
import org.apache.hadoop.hdfs.protocol.datatransfer.IOStreamPair;
import org.apache.hadoop.hdfs.protocol.datatransfer.PacketHeader;
import org.apache.hadoop.hdfs.protocol.datatransfer.Sender;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.server.datanode.CachingStrategy;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo.DatanodeInfoBuilder;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.util.DataChecksum;
import org.wideec.repair.SliceSink;

/**
 * Stores a rebuilt unit on its target DataNode the way HDFS's own reconstructor does (DataTransferProtocol
 * writeBlock, PIPELINE_SETUP_CREATE, as a DataNode: the replica stays temporary until complete and is
 * dropped if the stream breaks), with checksums computed from the verified bytes. Then it confirms: the
 * target reads the finalized replica back through its checksum-verified path and its CRC32C must equal the
 * CRC32C of what was sent, so a unit is only reported repaired once it is stored as rebuilt. An archived unit
 * is also held to the CRC32C its manifest records: the check runs before the last packet goes
 * out, and a mismatch drops the temporary replica, so bytes that differ from what was archived are never stored.
 * One writer per unit and target at a time ({@link UnitsBeingStored}).
 *
 * <p>Two repairs of one unit can still meet on a target: the NameNode's order and an HDFS task our worker took over
 * run on different DataNodes, and a task issued before the order's replica was reported names the same target. That
 * target refuses the second write (the replica exists) by closing the stream. A write that breaks is therefore not
 * failed at once when a confirmation can ask the target: if the target holds a finalized replica of the block, the
 * rest of the unit is rebuilt without sending, and the unit counts as stored when that replica's CRC32C equals the
 * rebuilt bytes'; otherwise the write fails as it broke.
 */
final class BlockTargetWriter implements SliceSink {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(BlockTargetWriter.class);
  /** Reads a stored replica's CRC32C back from the node that holds it. */
  @FunctionalInterface
  interface Confirmation {
    long storedCrc(ExtendedBlock block) throws IOException, InterruptedException;
  }

  private static final int PACKET_BYTES = 64 * 1024;
  private final DataNode datanode;
  private final ExtendedBlock block;
  private final DatanodeInfo target;
  private final DataChecksum checksum;
  private final Confirmation confirmation;
  private final long expectedCrc;
  private final CRC32C crc = new CRC32C();
  private final byte[] pending;
  private final byte[] sums;
  private final int chunksPerPacket;
  private int pendingBytes;
  private long blockOffset;
  private long seqno;
  private final UnitsBeingStored.Claim claim;
  private Socket socket;
  private DataOutputStream out;
  private InputStream in;
  /** Why sending broke while the target already held a finalized replica of the block; null while sending. */
  private IOException broken;
  /** That replica's CRC32C, which the rebuilt bytes must equal. */
  private long heldCrc;

  BlockTargetWriter(DataNode datanode, ExtendedBlock block, DatanodeInfo target, StorageType storageType, String storageId,
      DataChecksum checksum, Confirmation confirmation) throws IOException {
    this(datanode, block, target, storageType, storageId, checksum, confirmation, null, NO_CRC);
  }

  /**
   * @param writeToken the WRITE token to present (one the NameNode minted for whoever ordered this write: its own
   *     archive repair monitor, or an archiver writing a parity block it allocated); null: this DataNode mints one as
   *     for its own reconstruction
   * @param confirmation null when whoever asked confirms the stored replica itself
   * @param expectedCrc the CRC32C the rebuilt bytes must have before anything is stored, or {@link #NO_CRC}
   */
  BlockTargetWriter(DataNode datanode, ExtendedBlock block, DatanodeInfo target, StorageType storageType, String storageId,
      DataChecksum checksum, Confirmation confirmation, Token<BlockTokenIdentifier> writeToken, long expectedCrc)
      throws IOException {
    this.datanode = datanode;
    this.expectedCrc = expectedCrc;
    this.block = block;
    this.target = target;
    // Our own instance: without libhadoop, Hadoop's DataChecksum computes in a CRC object held by the instance, and
    // the worker hands one instance (the cluster's type and chunk size) to every concurrent rebuild; shared, the
    // writers corrupted each other's sums and the target refused their packets as checksum mismatches.
    this.checksum = DataChecksum.newDataChecksum(checksum.getChecksumType(), checksum.getBytesPerChecksum());
    this.confirmation = confirmation;
    int bpc = checksum.getBytesPerChecksum();
    this.chunksPerPacket = Math.max(1, PACKET_BYTES / bpc);
    this.pending = new byte[chunksPerPacket * bpc];
    this.sums = new byte[chunksPerPacket * checksum.getChecksumSize()];
    this.claim = UnitsBeingStored.take(block, target);
    connect(storageType, storageId, writeToken);
  }

  /** No CRC to check beyond the read-back. */
  static final long NO_CRC = org.wideec.protocol.RebuildRequest.NO_CRC;

  /** The rebuilt bytes' CRC32C is not the one the manifest records: nothing was stored. */
  static final class CrcMismatchException extends IOException {
    CrcMismatchException(String message) {
      super(message);
    }
  }

  private void connect(StorageType storageType, String storageId, Token<BlockTokenIdentifier> writeToken)
      throws IOException {
    boolean ok = false;
    try {
      var dnConf = datanode.getDnConf();
      socket = datanode.newSocket();
      NetUtils.connect(socket, NetUtils.createSocketAddr(target.getXferAddr(dnConf.getConnectToDnViaHostname())),
          dnConf.getSocketTimeout());
      socket.setSoTimeout(dnConf.getSocketTimeout());
      Token<BlockTokenIdentifier> token = writeToken != null ? writeToken : datanode.getBlockAccessToken(block,
          EnumSet.of(BlockTokenIdentifier.AccessMode.WRITE), new StorageType[] {storageType}, new String[] {storageId});
      OutputStream rawOut = NetUtils.getOutputStream(socket, dnConf.getSocketWriteTimeout());
      InputStream rawIn = NetUtils.getInputStream(socket);
      IOStreamPair sasl = datanode.getSaslClient().socketSend(socket, rawOut, rawIn,
          datanode.getDataEncryptionKeyFactoryForBlock(block), token, target);
      out = new DataOutputStream(new BufferedOutputStream(sasl.out, PACKET_BYTES + 1024));
      in = new DataInputStream(sasl.in);
      DatanodeInfo source = new DatanodeInfoBuilder().setNodeID(datanode.getDatanodeId()).build();
      new Sender(out).writeBlock(block, storageType, token, "", new DatanodeInfo[] {target},
          new StorageType[] {storageType}, source, BlockConstructionStage.PIPELINE_SETUP_CREATE, 0, 0, 0, 0, checksum,
          CachingStrategy.newDefaultStrategy(), false, false, null, storageId, new String[] {storageId});
      ok = true;
    } catch (IOException e) {
      throw new IOException("cannot start writing " + block + " to " + target + ": " + e.getMessage(), e);
    } finally {
      if (!ok) {
        abort();
      }
    }
  }

  @Override
  public void write(long offset, byte[] data, int off, int len) throws IOException {
    if (offset != blockOffset + pendingBytes) {
      throw new IOException("rebuilt bytes of " + block + " out of order: " + offset + " after "
          + (blockOffset + pendingBytes));
    }
    crc.update(data, off, len);
    while (len > 0) {
      int n = Math.min(len, pending.length - pendingBytes);
      System.arraycopy(data, off, pending, pendingBytes, n);
      pendingBytes += n;
      off += n;
      len -= n;
      if (pendingBytes == pending.length) {
        send();
      }
    }
  }

  /** Sends the pending bytes; once sending broke against a replica already held, only counts them. */
  private void send() throws IOException {
    if (broken == null) {
      try {
        flushPacket();
        return;
      } catch (IOException e) {
        if (!heldAlready(e)) {
          abort();
          throw e;
        }
      }
    }
    blockOffset += pendingBytes;
    pendingBytes = 0;
  }

  /**
   * Whether the target holds a finalized replica of the block after a write to it broke (another repair stored the
   * unit first): then {@code why} is kept and the rebuilt bytes are checked against that replica at the end.
   */
  private boolean heldAlready(IOException why) {
    if (confirmation == null) {
      return false;
    }
    try {
      heldCrc = confirmation.storedCrc(block);
    } catch (IOException e) {
      return false; // no finalized replica there (or the target is gone): the write failed as it broke
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
    broken = why;
    close();
    return true;
  }

  private void flushPacket() throws IOException {
    if (pendingBytes == 0) {
      return;
    }
    checksum.calculateChunkedSums(pending, 0, pendingBytes, sums, 0);
    int chunks = (pendingBytes + checksum.getBytesPerChecksum() - 1) / checksum.getBytesPerChecksum();
    writePacket(chunks * checksum.getChecksumSize(), pendingBytes, false);
    RebuiltBytesWritten.add(target.getXferAddr(), pendingBytes);
    blockOffset += pendingBytes;
    pendingBytes = 0;
  }

  /**
   * One DataTransferProtocol packet of {@code checksumBytes} of {@link #sums} and {@code dataBytes} of {@link #pending}
   * at the block's current offset, laid out as DFSPacket.writeTo lays it out (header, checksums, data; the packet's
   * length counts its own length field, an int). Written here, not through DFSPacket: its public writeData copies a
   * ByteBuffer one byte at a time, and was the hottest Java frame of the DataNodes storing encoded parities during an
   * archival on the real-process cluster (13% of their samples).
   */
  private void writePacket(int checksumBytes, int dataBytes, boolean last) throws IOException {
    new PacketHeader(Integer.BYTES + checksumBytes + dataBytes, blockOffset, seqno++, last, dataBytes, false)
        .write(out);
    out.write(sums, 0, checksumBytes);
    out.write(pending, 0, dataBytes);
  }

  @Override
  public void finish() throws IOException {
    if (expectedCrc != NO_CRC && crc.getValue() != expectedCrc) {
      abort(); // before the last packet: the target drops its temporary replica
      throw new CrcMismatchException("rebuilt " + block + " has CRC32C " + Long.toHexString(crc.getValue())
          + ", the manifest records " + Long.toHexString(expectedCrc) + ": refused, nothing stored on " + target);
    }
    try {
      send();
      if (blockOffset != block.getNumBytes()) {
        throw new IOException("rebuilt " + blockOffset + " bytes of " + block + ", expected " + block.getNumBytes());
      }
      if (broken == null) {
        writePacket(0, 0, true);
        out.flush();
        // A DataNode-to-DataNode write has no acks: the target closes the stream once the replica is finalized.
        while (in.read() >= 0) {
          // drain
        }
      }
    } catch (IOException e) {
      if (broken != null || !heldAlready(e)) {
        abort();
        throw new IOException("writing " + block + " to " + target + " failed: " + e.getMessage(), e);
      }
    }
    close();
    if (broken != null) {
      if (heldCrc != crc.getValue()) {
        throw new IOException("writing " + block + " to " + target + " failed: " + broken.getMessage() + "; the target"
            + " holds another replica of it with CRC32C " + Long.toHexString(heldCrc) + ", not the rebuilt "
            + Long.toHexString(crc.getValue()));
      }
      LOG.info("{} was stored on {} by another repair meanwhile, with the rebuilt bytes (CRC32C {}): this write broke"
          + " off ({}) and the unit counts as stored", block, target, Long.toHexString(heldCrc), broken.getMessage());
      return;
    }
    if (confirmation == null) {
      return;
    }
    long stored;
    try {
      stored = confirmation.storedCrc(block);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted confirming " + block + " on " + target, e);
    }
    if (stored != crc.getValue()) {
      datanode.reportRemoteBadBlock(target, block); // the NameNode deletes it; it never counts as a unit
      throw new IOException(target + " stored " + block + " with CRC32C " + Long.toHexString(stored) + ", but "
          + Long.toHexString(crc.getValue()) + " was sent");
    }
  }

  @Override
  public void abort() {
    close();
  }

  /** CRC32C of every byte written so far. */
  long crc32c() {
    return crc.getValue();
  }

  /** Whether the target turned out to hold the unit already, with the rebuilt bytes (see the class comment). */
  boolean storedByAnother() {
    return broken != null && heldCrc == crc.getValue() && blockOffset == block.getNumBytes();
  }

  /** Bytes written so far. */
  long bytesWritten() {
    return blockOffset + pendingBytes;
  }

  private void close() {
    IOUtils.closeStream(out);
    IOUtils.closeStream(in);
    IOUtils.closeSocket(socket);
    claim.release();
  }
}
