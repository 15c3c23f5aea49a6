package org.wideec.datanode;

import java.io.IOException;
import java.util.List;
import org.wideec.repair.SliceSink;

/**
 * A sink that remembers which units reached their target (the replica was finalized, or may have been, once its
 * finish began): after that a failed task must not go to HDFS's reconstructor, which would write the unit again.
 */
final class StoreRecorder implements SliceSink {
  private final SliceSink sink;
  private final int unit;
  private final List<Integer> stored;

  StoreRecorder(SliceSink sink, int unit, List<Integer> stored) {
    this.sink = sink;
    this.unit = unit;
    this.stored = stored;
  }

  @Override
  public void write(long offset, byte[] data, int off, int len) throws IOException {
    sink.write(offset, data, off, len);
  }

  @Override
  public void finish() throws IOException {
    // Counted before: a finish that fails after the last packet may still have left a finalized replica.
    stored.add(unit);
    sink.finish();
  }

  @Override
  public void abort() {
    sink.abort();
  }
}
