package org.wideec.engine;

import java.io.IOException;
import java.util.concurrent.ExecutionException;

/** What a task run on a thread of its own failed with, as its caller rethrows it. */
public final class TaskFailure {
  private TaskFailure() {}

  /**
   * The task's own IOException (a {@code PeerFailure} keeps its culprit), to throw; a RuntimeException or Error is
   * thrown as it was; anything else comes back wrapped, its message prefixed with {@code what}.
   */
  public static IOException cause(ExecutionException e, String what) {
    Throwable cause = e.getCause();
    if (cause instanceof IOException io) {
      return io;
    }
    if (cause instanceof RuntimeException re) {
      throw re;
    }
    if (cause instanceof Error err) {
      throw err;
    }
    return new IOException(what + ": " + cause, cause);
  }
}
