package org.wideec.repair;

import java.io.IOException;
import java.util.Map;

/**
 * Units held in memory by block id, for tests and in-process benchmarks (real slice transports, no disks). Reads past
 * a unit's end are zeros, as from a DataNode's store.
 */
public final class MemoryUnitStore implements UnitStore {
  private final String node;
  private final Map<Long, byte[]> blocks;

  /** @param blocks block id to bytes; read as it is at each open (a caller may add blocks later) */
  public MemoryUnitStore(String node, Map<Long, byte[]> blocks) {
    this.node = node;
    this.blocks = blocks;
  }

  @Override
  public Reader open(BlockRef ref) throws IOException {
    byte[] b = blocks.get(ref.blockId());
    if (b == null) {
      throw new IOException(node + " holds no " + ref);
    }
    return new Reader() {
      @Override
      public void read(long offset, byte[] dst, int off, int len) {
        java.util.Arrays.fill(dst, off, off + len, (byte) 0);
        int have = (int) Math.max(0, Math.min(len, b.length - offset));
        if (have > 0) { // a read past the end is all zeros (and the offset may be past the array)
          System.arraycopy(b, (int) offset, dst, off, have);
        }
      }

      @Override
      public void close() {}
    };
  }
}
