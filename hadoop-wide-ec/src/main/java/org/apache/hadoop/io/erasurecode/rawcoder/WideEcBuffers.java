package org.apache.hadoop.io.erasurecode.rawcoder;

import java.nio.ByteBuffer;

/** Translation of Hadoop's coding-state buffers into the [position, limit) views our coder expects. */
final class WideEcBuffers {
  private WideEcBuffers() {}

  /** Views of exactly len bytes from each buffer's position (null slots stay null). */
  static ByteBuffer[] limited(ByteBuffer[] buffers, int len) {
    ByteBuffer[] out = new ByteBuffer[buffers.length];
    for (int i = 0; i < buffers.length; i++) {
      ByteBuffer b = buffers[i];
      if (b != null) {
        out[i] = b.remaining() == len ? b : b.duplicate().limit(b.position() + len);
      }
    }
    return out;
  }

  static ByteBuffer[] wrap(byte[][] arrays, int[] offsets, int len) {
    ByteBuffer[] out = new ByteBuffer[arrays.length];
    for (int i = 0; i < arrays.length; i++) {
      if (arrays[i] != null) {
        out[i] = ByteBuffer.wrap(arrays[i], offsets[i], len);
      }
    }
    return out;
  }
}
