package org.wideec.archive.hdfs;

import java.io.InterruptedIOException;

/**
 * The pause between two looks at the NameNode for a change it does not announce (a replica listed or dropped, a file
 * that can be completed): it starts short, since the answer usually comes within a heartbeat or two, and doubles up
 * to a second, so a long wait costs the NameNode one call a second.
 */
public final class NameNodePoll {
  private static final long MAX_PAUSE_MS = 1000;
  private long pause;

  public NameNodePoll(long firstPauseMs) {
    this.pause = firstPauseMs;
  }

  /** Waits the current pause, then doubles it; an interrupt ends the wait with {@code interrupted} as the error. */
  public void pause(String interrupted) throws InterruptedIOException {
    try {
      Thread.sleep(pause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException(interrupted);
    }
    pause = Math.min(MAX_PAUSE_MS, pause * 2);
  }
}
