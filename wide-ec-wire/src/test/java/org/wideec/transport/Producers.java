package org.wideec.transport;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.function.IntFunction;

/** The serving side of the transport tests' streams. */
final class Producers {
  private Producers() {}

  /**
   * Sends {@code count} slices, slice s being {@code slice.apply(s)}, then ends the stream; a send that fails fails the
   * stream with its message, an interrupt ends the producer with the thread's flag set.
   */
  static void sendAll(Downstream d, int count, IntFunction<ByteBuf> slice) {
    try {
      for (int s = 0; s < count; s++) {
        d.send(s, slice.apply(s));
      }
      d.end();
    } catch (IOException e) {
      d.fail(null, e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
