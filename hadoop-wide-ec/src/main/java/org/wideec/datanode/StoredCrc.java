package org.wideec.datanode;

import java.io.DataInputStream;
import java.io.IOException;
import java.util.OptionalLong;
import org.apache.hadoop.util.CrcComposer;
import org.apache.hadoop.util.CrcUtil;
import org.apache.hadoop.util.DataChecksum;

/**
 * The CRC32C of a replica composed from the chunk CRCs of its checksum file, as HDFS composes a COMPOSITE_CRC file
 * checksum: CRC(A ‖ B) = CRC(A) · x^(8|B|) + CRC(B) over GF(2), so the chunks' CRCs give the whole replica's without
 * a data byte read. It describes the bytes on disk only as far as the checksums do: callers use it for replicas just
 * read through the verified path.
 */
final class StoredCrc {
  private StoredCrc() {}

  /**
   * @param sums the checksum file positioned after its header
   * @param checksum the header's checksum
   * @param length the replica's bytes
   * @return the CRC32C of the replica's {@code length} bytes; empty where its checksums are not CRC32C
   */
  static OptionalLong compose(DataInputStream sums, DataChecksum checksum, long length) throws IOException {
    if (checksum.getChecksumType() != DataChecksum.Type.CRC32C) {
      return OptionalLong.empty();
    }
    int chunk = checksum.getBytesPerChecksum();
    if (length == 0) {
      return OptionalLong.of(0); // the CRC32C of no bytes
    }
    CrcComposer composer = CrcComposer.newCrcComposer(DataChecksum.Type.CRC32C, chunk);
    composer.update(sums, length / chunk, chunk);
    int tail = (int) (length % chunk);
    if (tail > 0) {
      composer.update(sums.readInt(), tail); // the last chunk's CRC covers only the bytes it has
    }
    return OptionalLong.of(Integer.toUnsignedLong(CrcUtil.readInt(composer.digest(), 0)));
  }
}
