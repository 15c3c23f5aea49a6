package org.wideec.demo;

import java.io.IOException;
import java.util.zip.CRC32C;
import org.wideec.repair.SliceSink;

/** Checks a rebuilt unit against the CRC32C of the real replica; keeps nothing. */
final class CrcSink implements SliceSink {
  private final long expected;
  private final CRC32C crc = new CRC32C();

  CrcSink(long expected) {
    this.expected = expected;
  }

  @Override
  public void write(long offset, byte[] data, int off, int len) {
    crc.update(data, off, len);
  }

  @Override
  public void finish() throws IOException {
    if (crc.getValue() != expected) {
      throw new IOException("rebuilt unit differs from the stored replica (CRC32C " + Long.toHexString(crc.getValue())
          + " != " + Long.toHexString(expected) + ")");
    }
  }

  @Override
  public void abort() {}
}
