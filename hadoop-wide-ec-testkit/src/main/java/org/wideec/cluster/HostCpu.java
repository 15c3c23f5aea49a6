package org.wideec.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The host's CPU use between two samples of /proc/stat (its first line sums every core; namespaces share it). A phase
 * that kept the CPU busier than the limit measured the CPU, not the network, and is marked invalid.
 */
final class HostCpu {
  /** Above this share of all cores busy, a phase is invalid. */
  static final double LIMIT = 0.70;

  private final long busy;
  private final long total;

  private HostCpu(long busy, long total) {
    this.busy = busy;
    this.total = total;
  }

  static HostCpu sample() throws IOException {
    String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
    long total = 0;
    long idle = 0;
    // cpu user nice system idle iowait irq softirq steal (guest times are already inside user and nice)
    for (int i = 1; i < Math.min(f.length, 9); i++) {
      long v = Long.parseLong(f[i]);
      total += v;
      if (i == 4 || i == 5) {
        idle += v;
      }
    }
    return new HostCpu(total - idle, total);
  }

  /** Below this share of all cores busy for a whole second, the host counts as quiet. */
  static final double QUIET = 0.30;

  /**
   * Waits until the host has been quiet for a whole second, at most {@code maxSeconds}; returns the seconds waited. A
   * DataNode restarted after a loss (its JVM's start and compiles, its warm-up, its block report and the excess
   * replicas the NameNode then deletes) keeps the cores busy for several seconds after it is live again, and the
   * samples of the next phase would measure that.
   */
  static double awaitQuiet(double maxSeconds) throws IOException, InterruptedException {
    long start = System.nanoTime();
    long deadline = start + (long) (maxSeconds * 1e9);
    while (System.nanoTime() < deadline) {
      HostCpu before = sample();
      java.util.concurrent.TimeUnit.SECONDS.sleep(1); // a sampling window of /proc/stat, not a wait for an event
      if (sample().busySince(before) < QUIET) {
        break;
      }
    }
    return (System.nanoTime() - start) / 1e9;
  }

  /** Share of all cores busy since {@code earlier}. */
  double busySince(HostCpu earlier) {
    long t = total - earlier.total;
    return t <= 0 ? 0 : (double) (busy - earlier.busy) / t;
  }
}
