package org.wideec.datanode;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import org.apache.hadoop.fs.ChecksumException;
import org.apache.hadoop.hdfs.protocol.Block;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.server.datanode.BlockMetadataHeader;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsDatasetSpi;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.util.DataChecksum;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.repair.BlockRef;
import org.wideec.repair.CorruptSources;
import org.wideec.repair.UnitStore;

/**
 * Reads a DataNode's finalized replicas for repair through {@link FsDatasetSpi}, verifying every chunk against
 * the replica's checksum file as it goes: a corrupt replica is reported to the NameNode and fails the helper
 * (which the requestor then replaces), so no unverified byte enters a repair.
 */
public final class FsDatasetUnitStore implements UnitStore {
  private static final Logger LOG = LoggerFactory.getLogger(FsDatasetUnitStore.class);
  private final DataNode datanode;

  public FsDatasetUnitStore(DataNode datanode) {
    this.datanode = datanode;
  }

  @Override
  public Reader open(BlockRef ref) throws IOException {
    FsDatasetSpi<?> data = datanode.getFSDataset();
    ExtendedBlock b = finalized(data, ref);
    InputStream in = null;
    DataInputStream meta = null;
    try {
      meta = new DataInputStream(data.getMetaDataInputStream(b));
      DataChecksum checksum = BlockMetadataHeader.readHeader(meta).getChecksum();
      in = data.getBlockInputStream(b, 0);
      VerifiedReader r = new VerifiedReader(b, in, meta, checksum);
      in = null;
      meta = null;
      return r;
    } finally {
      IOUtils.closeStream(in);
      IOUtils.closeStream(meta);
    }
  }

  /**
   * Composes the replica's CRC32C from the chunk CRCs of its checksum file ({@link StoredCrc}): reads about 1/128 of
   * what reading the replica would. Empty where the replica's checksums are not CRC32C.
   */
  @Override
  public java.util.OptionalLong storedCrc32c(BlockRef ref) throws IOException {
    FsDatasetSpi<?> data = datanode.getFSDataset();
    ExtendedBlock b = finalized(data, ref);
    try (DataInputStream meta = new DataInputStream(
        new java.io.BufferedInputStream(data.getMetaDataInputStream(b), 64 * 1024))) {
      DataChecksum checksum = BlockMetadataHeader.readHeader(meta).getChecksum();
      return StoredCrc.compose(meta, checksum, ref.numBytes());
    }
  }

  /** The replica {@code ref} names, finalized here with its length and stamp; otherwise an error saying what is. */
  private static ExtendedBlock finalized(FsDatasetSpi<?> data, BlockRef ref) throws IOException {
    Block stored = data.getStoredBlock(ref.pool(), ref.blockId());
    if (stored == null) {
      throw new IOException("no finalized replica of " + ref);
    }
    if (stored.getGenerationStamp() != ref.genStamp() || stored.getNumBytes() != ref.numBytes()) {
      throw new IOException("replica of " + ref + " is " + stored + " (" + stored.getNumBytes() + " bytes, stamp "
          + stored.getGenerationStamp() + ")");
    }
    return new ExtendedBlock(ref.pool(), ref.blockId(), ref.numBytes(), ref.genStamp());
  }

  /** Forward-only, chunk-aligned, checksum-verified reads; zeros past the replica's end. */
  private final class VerifiedReader implements Reader {
    private final ExtendedBlock block;
    private final InputStream in;
    private final DataInputStream meta;
    private final DataChecksum checksum;
    private final int chunk;
    private long position;
    private byte[] sums = new byte[0];
    private byte[] buf = new byte[0];

    VerifiedReader(ExtendedBlock block, InputStream in, DataInputStream meta, DataChecksum checksum) {
      this.block = block;
      this.in = in;
      this.meta = meta;
      this.checksum = checksum;
      this.chunk = checksum.getBytesPerChecksum();
    }

    @Override
    public void read(long offset, byte[] dst, int off, int len) throws IOException {
      long end = Math.min(offset + len, block.getNumBytes());
      int have = (int) Math.max(0, end - offset);
      java.util.Arrays.fill(dst, off + have, off + len, (byte) 0);
      if (have == 0) {
        return;
      }
      if (offset % chunk != 0 || offset < position) {
        throw new IOException("repair slices must start on checksum chunks (" + chunk + " bytes) and move forward; got "
            + offset + " after " + position + " in " + block);
      }
      skip(offset - position);
      // Whole chunks only (checksums cover whole chunks): a read ending mid-chunk reads on to the chunk's end.
      int span = (int) Math.min((long) (have + chunk - 1) / chunk * chunk, block.getNumBytes() - offset);
      if (buf.length < span) {
        buf = new byte[span];
      }
      IOUtils.readFully(in, buf, 0, span);
      int chunks = (span + chunk - 1) / chunk;
      int sumBytes = chunks * checksum.getChecksumSize();
      if (sums.length < sumBytes) {
        sums = new byte[sumBytes];
      }
      meta.readFully(sums, 0, sumBytes);
      try {
        checksum.verifyChunkedSums(ByteBuffer.wrap(buf, 0, span), ByteBuffer.wrap(sums, 0, sumBytes),
            block.toString(), offset);
      } catch (ChecksumException e) {
        LOG.warn("corrupt replica {} found while serving a repair at offset {}: reporting it", block, e.getPos());
        datanode.reportBadBlocks(block);
        throw new IOException(CorruptSources.message(block.getBlockPoolId(), block.getBlockId(),
            block.getGenerationStamp(), e.getPos(), e.getMessage()), e);
      }
      System.arraycopy(buf, 0, dst, off, have);
      position = offset + span;
    }

    private void skip(long bytes) throws IOException {
      if (bytes == 0) {
        return;
      }
      IOUtils.skipFully(in, bytes);
      long sumBytes = bytes / chunk * checksum.getChecksumSize();
      IOUtils.skipFully(meta, sumBytes);
    }

    @Override
    public void close() {
      IOUtils.closeStream(in);
      IOUtils.closeStream(meta);
    }
  }
}
