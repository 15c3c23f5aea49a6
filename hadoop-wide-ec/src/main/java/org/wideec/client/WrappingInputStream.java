package org.wideec.client;

import java.io.IOException;
import org.apache.hadoop.fs.CanUnbuffer;
import org.apache.hadoop.hdfs.DFSInputStream;

/**
 * What this client's streams share: each wraps HDFS's own stream for one file of fixed length, serves what that
 * stream cannot (a degraded block group, an archived block with no replica) and keeps its own position, which HDFS's
 * stream follows only when it reads.
 */
abstract class WrappingInputStream extends FixedLengthInputStream implements CanUnbuffer {
  protected final DFSInputStream stock;

  WrappingInputStream(DFSInputStream stock, String src) {
    super(src, stock.getFileLength());
    this.stock = stock;
  }

  /** Drops what this stream buffers of its own; HDFS's stream drops its buffers too. */
  protected abstract void dropBuffers();

  @Override
  public synchronized void unbuffer() {
    dropBuffers();
    stock.unbuffer();
  }

  @Override
  public synchronized void close() throws IOException {
    if (!closed) {
      closed = true;
      dropBuffers();
      stock.close();
    }
  }
}
