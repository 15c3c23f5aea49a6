package org.apache.hadoop.io.erasurecode.rawcoder;

import java.io.IOException;
import org.wideec.coder.ErasureCoder;

/**
 * Hadoop's raw-coder contract after {@code release()}: every later encode or decode throws an IOException saying the
 * coder is closed (as Hadoop's native coders do once their native state is freed), and a second release is harmless.
 * Our adapters free nothing themselves (the {@link ErasureCoder} behind them is shared by every adapter of its code),
 * so the contract is kept by this flag alone.
 */
final class CoderRelease {
  private final String name;
  private volatile boolean released;

  CoderRelease(String role, ErasureCoder coder, boolean nativeCoder) {
    this.name = "wide-ec " + (nativeCoder ? "native" : "Java") + " " + role + " of " + coder.code().spec();
  }

  void release() {
    released = true;
  }

  void checkOpen() throws IOException {
    if (released) {
      throw new IOException(name + " closed: release() was called; create a new coder to code again");
    }
  }
}
