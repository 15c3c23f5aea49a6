package org.wideec.client;

import java.io.EOFException;
import java.io.IOException;
import org.apache.hadoop.fs.FSInputStream;

/**
 * What every stream of this client shares: one file of a length known when it opens, read from a position of its own
 * (seek, getPos, available and the one-byte read follow from that), closed once.
 */
abstract class FixedLengthInputStream extends FSInputStream {
  protected final String src;
  protected final long length;
  protected long pos;
  protected volatile boolean closed;

  FixedLengthInputStream(String src, long length) {
    this.src = src;
    this.length = length;
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

  protected void checkOpen() throws IOException {
    if (closed) {
      throw new IOException(src + ": stream is closed");
    }
  }
}
