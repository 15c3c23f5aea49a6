package org.wideec.minicluster;

import java.io.DataInputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.server.datanode.BlockMetadataHeader;
import org.apache.hadoop.util.DataChecksum;

/**
 * Corruption HDFS cannot see: bytes of a replica's block file changed and its {@code .meta} rewritten to match, so
 * every checksum HDFS keeps (reads, the block scanner) passes. What only a check against the code finds.
 */
public final class SilentCorruption {
  private SilentCorruption() {}

  /** As {@link #flipByte(MiniDFSCluster, int, ExtendedBlock, long, int)}, on the DataNode at a transfer address. */
  public static void flipByte(MiniDFSCluster cluster, String xferAddr, ExtendedBlock block, long offset, int mask)
      throws IOException {
    java.util.List<org.apache.hadoop.hdfs.server.datanode.DataNode> dns = cluster.getDataNodes();
    for (int i = 0; i < dns.size(); i++) {
      if (dns.get(i).getDatanodeId().getXferAddr().equals(xferAddr)) {
        flipByte(cluster, i, block, offset, mask);
        return;
      }
    }
    throw new IOException("no running DataNode at " + xferAddr);
  }

  /** XORs {@code mask} into the byte at {@code offset} of the replica on DataNode {@code dnIndex}, .meta to match. */
  public static void flipByte(MiniDFSCluster cluster, int dnIndex, ExtendedBlock block, long offset, int mask)
      throws IOException {
    File data = cluster.getBlockFile(dnIndex, block);
    File meta = cluster.getBlockMetadataFile(dnIndex, block);
    if (data == null || meta == null) {
      throw new IOException("DataNode " + dnIndex + " holds no replica of " + block);
    }
    byte[] bytes = java.nio.file.Files.readAllBytes(data.toPath());
    bytes[(int) offset] ^= (byte) mask;
    java.nio.file.Files.write(data.toPath(), bytes);
    DataChecksum checksum;
    try (DataInputStream in = new DataInputStream(new FileInputStream(meta))) {
      checksum = BlockMetadataHeader.readHeader(in).getChecksum();
    }
    int chunk = checksum.getBytesPerChecksum();
    try (RandomAccessFile out = new RandomAccessFile(meta, "rw")) {
      long at = BlockMetadataHeader.getHeaderSize();
      for (int off = 0; off < bytes.length; off += chunk) {
        checksum.reset();
        checksum.update(bytes, off, Math.min(chunk, bytes.length - off));
        byte[] sum = new byte[checksum.getChecksumSize()];
        checksum.writeValue(sum, 0, true);
        out.seek(at);
        out.write(sum);
        at += sum.length;
      }
    }
  }
}
