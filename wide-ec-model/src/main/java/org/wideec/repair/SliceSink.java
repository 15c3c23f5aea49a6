package org.wideec.repair;

import java.io.IOException;
import java.util.List;

/** Where a rebuilt unit goes, slice by slice in order (a block written to its target; memory in tests). */
public interface SliceSink {
  /** Bytes [offset, offset + len) of the unit; only bytes the checks above it verified ever arrive here. */
  void write(long offset, byte[] data, int off, int len) throws IOException;

  /** Completes the unit and confirms it is stored as sent. */
  void finish() throws IOException;

  /** Drops a partial unit (the attempt failed); never throws. */
  void abort();

  /** A sink that stores nothing: for rows nobody keeps (a virtual parity's zeros, a benchmark's rebuilt bytes). */
  SliceSink DISCARD = new SliceSink() {
    @Override
    public void write(long offset, byte[] data, int off, int len) {}

    @Override
    public void finish() {}

    @Override
    public void abort() {}
  };

  /** A sink writing the rebuilt range into {@code bytes}, offset for offset (a client's range, a self-test's unit). */
  static SliceSink into(byte[] bytes) {
    return new SliceSink() {
      @Override
      public void write(long offset, byte[] data, int off, int len) {
        System.arraycopy(data, off, bytes, (int) offset, len);
      }

      @Override
      public void finish() {}

      @Override
      public void abort() {}
    };
  }

  /**
   * Writes a rebuilt slice (one row per lost unit, {@code n} bytes at {@code offset}) to each unit's sink, clipped to
   * the part of the range that unit has: lost units of one stripe may differ in length.
   */
  static void writeEach(List<SliceSink> sinks, long[] unitLengths, long offset, int n, byte[][] rows)
      throws IOException {
    for (int o = 0; o < rows.length; o++) {
      if (offset < unitLengths[o]) {
        sinks.get(o).write(offset, rows[o], 0, (int) Math.min(n, unitLengths[o] - offset));
      }
    }
  }

  /** Opens the sink of one lost unit for one attempt. */
  @FunctionalInterface
  interface Factory {
    SliceSink open(int unit, long length) throws IOException;
  }
}
