package org.wideec.cluster;

import java.io.IOException;
import org.wideec.time.Backoff;

/** Polls a condition of the real cluster (the NameNode's view, a file's groups) until it holds or time runs out. */
final class Await {
  /** A condition that may need the cluster to answer. */
  @FunctionalInterface
  interface Condition {
    boolean holds() throws IOException;
  }

  private Await() {}

  /** Polls every 250 ms; throws an IOException saying {@code what} did not happen in {@code timeoutMs}. */
  static void until(String what, long timeoutMs, Condition c) throws IOException {
    Backoff poll = Backoff.doubling(250, 250, timeoutMs);
    while (!c.holds()) {
      if (poll.expired()) {
        throw new IOException(what + " did not happen in " + timeoutMs / 1000 + " s");
      }
      poll.pause("interrupted waiting until " + what);
    }
  }
}
