package org.wideec.cluster;

import java.io.IOException;

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
    long start = System.nanoTime();
    while (!c.holds()) {
      if ((System.nanoTime() - start) / 1_000_000 > timeoutMs) {
        throw new IOException(what + " did not happen in " + timeoutMs / 1000 + " s");
      }
      try {
        Thread.sleep(250);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted waiting until " + what, e);
      }
    }
  }
}
