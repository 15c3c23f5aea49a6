package org.wideec.client;

import java.io.EOFException;
import java.io.IOException;
import org.apache.hadoop.fs.CanUnbuffer;
import org.apache.hadoop.fs.FSInputStream;
import org.apache.hadoop.hdfs.DFSInputStream;

/**
 * What this client's streams share: each wraps HDFS's own stream for one file of fixed length, serves what that
 * stream cannot (a degraded block group, an archived block with no replica) and keeps its own position, which HDFS's
 * stream follows only when it reads.
 */
abstract class WrappingInputStream extends FSInputStream implements CanUnbuffer {
  protected final DFSInputStream stock;
  protected final String src;
  protected final long length;
  protected long pos;
  protected volatile boolean closed;

  WrappingInputStream(DFSInputStream stock, String src) {
    this.stock = stock;
    this.src = src;
    this.length = stock.getFileLength();
  }

  @Override
  public synchronized int read() throws IOException {
    byte[] one = new byte[1];
    int n = read(one, 0, 1);
    return n <= 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public synchronized void seek(long target) throws IOException {
    checkOpen();
    if (target < 0 || target > length) {
      throw new EOFException(src + ": cannot seek to " + target + " (file length " + length + ")");
    }
    pos = target;
  }

  @Override
  public synchronized long getPos() {
    return pos;
  }

  @Override
  public boolean seekToNewSource(long targetPos) {
    return false;
  }

  @Override
  public synchronized int available() throws IOException {
    checkOpen();
    return (int) Math.min(Integer.MAX_VALUE, length - pos);
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

  protected void checkOpen() throws IOException {
    if (closed) {
      throw new IOException(src + ": stream is closed");
    }
  }
}
