package org.wideec.cli;

import java.io.PrintStream;
import org.wideec.code.Progress;

/**
 * Progress of a long command on stderr: nothing for the first two seconds, then at most one line a second with the
 * share done, the time spent and an estimate of the time left, rewritten in place; a final newline when done.
 */
public final class ProgressReport implements Progress {
  private static final long QUIET_NANOS = 2_000_000_000L;
  private static final long EVERY_NANOS = 1_000_000_000L;
  private final PrintStream err;
  private final String what;
  private final long start = System.nanoTime();
  private long last = start;
  private boolean shown;

  ProgressReport(PrintStream err, String what) {
    this.err = err;
    this.what = what;
  }

  @Override
  public void at(long done, long total) {
    long now = System.nanoTime();
    if (now - start < QUIET_NANOS || now - last < EVERY_NANOS || total <= 0) {
      return;
    }
    last = now;
    shown = true;
    double share = Math.min(1.0, (double) done / total);
    long elapsed = now - start;
    String eta = share > 0 ? duration((long) (elapsed / share) - elapsed) : "?";
    err.printf("\r%s: %5.1f%% (%,d of %,d), %s spent, about %s left   ", what, 100 * share, done, total,
        duration(elapsed), eta);
    err.flush();
  }

  /** Ends the line the report was rewriting, if it showed anything. */
  void finish() {
    if (shown) {
      err.println();
      shown = false; // once: a later finish, or a report that follows on the next line, adds no blank line
    }
  }

  /** A duration for people: 45s, 12m05s, 3h10m. */
  public static String duration(long nanos) {
    long s = Math.max(0, nanos / 1_000_000_000L);
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return String.format("%dm%02ds", s / 60, s % 60);
    }
    return String.format("%dh%02dm", s / 3600, s / 60 % 60);
  }
}
