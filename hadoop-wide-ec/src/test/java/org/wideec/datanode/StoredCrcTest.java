package org.wideec.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.zip.CRC32C;
import org.apache.hadoop.util.DataChecksum;
import org.junit.jupiter.api.Test;

/** A replica's CRC32C composed from its chunk checksums equals the CRC32C of its bytes, for every tail length. */
class StoredCrcTest {
  @Test
  void theComposedCrcIsTheCrcOfTheBytes() throws Exception {
    Random rnd = new Random(20261203L);
    for (int perChunk : new int[] {512, 4096}) {
      for (int length : new int[] {0, 1, 511, 512, 513, 4095, 4096, 4097, 100 * 512 + 17, 1 << 20}) {
        byte[] data = new byte[length];
        rnd.nextBytes(data);
        DataChecksum checksum = DataChecksum.newDataChecksum(DataChecksum.Type.CRC32C, perChunk);
        int chunks = (length + perChunk - 1) / perChunk;
        ByteBuffer sums = ByteBuffer.allocate(chunks * checksum.getChecksumSize());
        checksum.calculateChunkedSums(ByteBuffer.wrap(data), sums);
        CRC32C expected = new CRC32C();
        expected.update(data);
        long got = StoredCrc.compose(new DataInputStream(new ByteArrayInputStream(sums.array())), checksum, length)
            .orElseThrow();
        assertEquals(expected.getValue(), got, length + " bytes in chunks of " + perChunk);
      }
    }
  }

  @Test
  void checksumsOfAnotherKindGiveNothingSoTheReplicaIsRead() throws Exception {
    DataChecksum crc32 = DataChecksum.newDataChecksum(DataChecksum.Type.CRC32, 512);
    assertTrue(StoredCrc.compose(new DataInputStream(new ByteArrayInputStream(new byte[8])), crc32, 1000).isEmpty());
    DataChecksum none = DataChecksum.newDataChecksum(DataChecksum.Type.NULL, 512);
    assertTrue(StoredCrc.compose(new DataInputStream(new ByteArrayInputStream(new byte[0])), none, 1000).isEmpty());
  }
}
