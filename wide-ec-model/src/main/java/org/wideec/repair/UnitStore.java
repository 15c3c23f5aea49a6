package org.wideec.repair;

import java.io.Closeable;
import java.io.IOException;

/** Where a helper reads the units it holds (a DataNode's FsDatasetSpi; memory in tests). */
public interface UnitStore {
  Reader open(BlockRef block) throws IOException;

  /** Sequential, verified reads of one replica; bytes past its end read as zeros (shorter units of a group). */
  interface Reader extends Closeable {
    void read(long offset, byte[] dst, int dstOff, int len) throws IOException;
  }
}
