package org.wideec.repair;

import java.io.Closeable;
import java.io.IOException;

/** Where a helper reads the units it holds (a DataNode's FsDatasetSpi; memory in tests). */
public interface UnitStore {
  Reader open(BlockRef block) throws IOException;

  /**
   * The CRC32C of the whole replica composed from the chunk checksums stored beside it, without reading its bytes;
   * empty where the store keeps no CRC32C checksums (the caller then reads). Sound only for a replica whose bytes
   * were just read through the verified path, so that its checksums are known to describe them.
   */
  default java.util.OptionalLong storedCrc32c(BlockRef block) throws IOException {
    return java.util.OptionalLong.empty();
  }

  /** Sequential, verified reads of one replica; bytes past its end read as zeros (shorter units of a group). */
  interface Reader extends Closeable {
    void read(long offset, byte[] dst, int dstOff, int len) throws IOException;
  }
}
