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

  /** Share of all cores busy since {@code earlier}. */
  double busySince(HostCpu earlier) {
    long t = total - earlier.total;
    return t <= 0 ? 0 : (double) (busy - earlier.busy) / t;
  }
}
