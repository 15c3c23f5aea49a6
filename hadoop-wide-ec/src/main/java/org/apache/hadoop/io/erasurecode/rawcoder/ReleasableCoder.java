package org.apache.hadoop.io.erasurecode.rawcoder;

import java.io.IOException;
import org.wideec.coder.ErasureCoder;

/**
 * What both raw-coder adapters hold: the {@link ErasureCoder} they delegate to, whether it prefers direct buffers, and
 * Hadoop's raw-coder contract after {@code release()}: every later encode or decode throws an IOException saying the
 * coder is closed (as Hadoop's native coders do once their native state is freed), and a second release is harmless.
 * Our adapters free nothing themselves (the {@link ErasureCoder} behind them is shared by every adapter of its code),
 * so the contract is kept by this flag alone.
 */
final class ReleasableCoder {
  private final ErasureCoder coder;
  private final boolean preferDirect;
  private final String name;
  private volatile boolean released;

  ReleasableCoder(String role, ErasureCoder coder, boolean preferDirect) {
    this.coder = coder;
    this.preferDirect = preferDirect;
    this.name = "wide-ec " + (preferDirect ? "native" : "Java") + " " + role + " of " + coder.code().spec();
  }

  /** The coder to encode or decode with. @throws IOException once {@link #release} was called */
  ErasureCoder open() throws IOException {
    if (released) {
      throw new IOException(name + " closed: release() was called; create a new coder to code again");
    }
    return coder;
  }

  /** The coder's code, for messages (also after release). */
  org.wideec.code.LinearCode code() {
    return coder.code();
  }

  boolean preferDirect() {
    return preferDirect;
  }

  void release() {
    released = true;
  }
}
