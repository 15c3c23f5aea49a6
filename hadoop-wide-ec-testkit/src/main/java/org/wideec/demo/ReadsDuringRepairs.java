package org.wideec.demo;

import java.io.IOException;
import java.io.PrintStream;
import org.wideec.demo.DegradedReadBench.Timed;
import org.wideec.demo.RepairBench.Settings;
import org.wideec.transport.TrafficShaper;

/**
 * The set-up the benches of reads during repairs share: the report they print to, node links and rack uplinks shaped
 * as the settings say, a load of repairs run again and again in the background (each bench's strategy: which repairs,
 * by which DataNodes), and reads timed meanwhile, each the median of {@link DegradedReadBench#RUNS} runs after
 * {@link #WARM_UP} untimed ones.
 */
final class ReadsDuringRepairs {
  /** The JIT is warm from the idle degraded reads; a few untimed runs bring the repairs into their stride. */
  static final int WARM_UP = 3;

  /** Which repairs load the cluster: built afresh, not yet started, for each phase timed under them. */
  @FunctionalInterface
  interface Load {
    RepeatedRepairs repairs() throws IOException;
  }

  /** What a phase measures while the load runs. */
  @FunctionalInterface
  interface Phase<T> {
    T run() throws Exception;
  }

  /** What a phase measured, and how many repairs of the load completed meanwhile. */
  record UnderLoad<T>(T measured, int repairs) {}

  private final PrintStream out;
  private final Settings s;

  ReadsDuringRepairs(PrintStream out, Settings s) {
    this.out = out;
    this.s = s;
  }

  Settings settings() {
    return s;
  }

  /** A line of the benches' report. */
  void printf(String format, Object... args) {
    out.printf(format, args);
  }

  /**
   * Prints {@code what} with the shaping ({@code detail} appended inside the parentheses), runs {@code bench} over the
   * shaped links and lifts the shaping after, whatever happens.
   */
  <T> T overShapedLinks(String what, String detail, Phase<T> bench) throws Exception {
    out.printf("%s (node links and %d:1 rack uplinks shaped%s):%n", what, s.oversubscription(), detail);
    TrafficShaper.emulate(new long[] {s.nodeRate(), s.nodeRate() / s.oversubscription()});
    try {
      return bench.run();
    } finally {
      TrafficShaper.emulate(null);
    }
  }

  /** Runs {@code phase} while the load's repairs run; they stop after it (a failed repair fails the phase). */
  static <T> UnderLoad<T> underLoad(Load load, Phase<T> phase) throws Exception {
    RepeatedRepairs r = load.repairs();
    r.start();
    try {
      T measured = phase.run();
      return new UnderLoad<>(measured, r.stop());
    } finally {
      r.halt();
    }
  }

  /** The median of a read's timed runs after the warm-up. */
  static double median(Timed read) throws Exception {
    return DegradedReadBench.median(WARM_UP, read);
  }
}
