package org.wideec.demo;

import java.io.PrintStream;
import org.wideec.cli.ProgressReport;

/**
 * Progress of a benchmark on stderr: after each measured step, how many of the planned steps are done, the time spent
 * and about how long the rest will take at the pace of the steps done so far. Steps differ in length (a shaped repair
 * against a direct send), so the estimate is rough early and settles as the run goes; stdout keeps the results.
 */
final class BenchProgress {
  private final PrintStream err;
  private final String what;
  private final int planned;
  private final long start = System.nanoTime();
  private int done;

  BenchProgress(PrintStream err, String what, int planned) {
    this.err = err;
    this.what = what;
    this.planned = planned;
  }

  /** One step measured. */
  void step(String name) {
    done++;
    long elapsed = System.nanoTime() - start;
    int left = Math.max(0, planned - done);
    err.printf("%s: step %d of %d done (%s), %s spent, %s%n", what, Math.min(done, planned), planned, name,
        ProgressReport.duration(elapsed), left == 0 ? "finishing" : "about " + ProgressReport.duration(elapsed / done * left)
            + " left");
    err.flush();
  }

  int done() {
    return done;
  }
}
