package org.wideec.cluster;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One measured phase of the cluster bench: its wall time, the bytes the rack uplinks carried in each direction (the
 * kernel's counters), and the host's CPU; a phase above {@link HostCpu#LIMIT} is recorded as invalid.
 */
final class Phase {
  private final String name;
  private final ClusterScript cluster;
  private final List<String> invalid;
  private final long start = System.nanoTime();
  private final long[] uplinks;
  private final HostCpu cpu;
  private final boolean measured;
  /** Seconds the phase waited for a quiet host before it began; null for a set-up phase, which does not wait. */
  private final Double quietAfter;

  private Phase(String name, ClusterScript cluster, List<String> invalid, boolean measured, Double quietAfter)
      throws IOException {
    this.name = name;
    this.measured = measured;
    this.quietAfter = quietAfter == null ? null : round(quietAfter);
    this.cluster = cluster;
    this.invalid = invalid;
    this.uplinks = cluster.uplinkBytes();
    this.cpu = HostCpu.sample();
  }

  /**
   * Starts measuring, {@code quietAfter} seconds after the host was found quiet (reported as hostQuietAfterSeconds);
   * {@code invalid} collects the names of phases that ran the CPU above the limit.
   */
  static Phase begin(String name, ClusterScript cluster, List<String> invalid, double quietAfter) throws IOException {
    return new Phase(name, cluster, invalid, true, quietAfter);
  }

  /** A phase that prepares a measurement: its CPU is reported, never counted as invalid. */
  static Phase setup(String name, ClusterScript cluster) throws IOException {
    return new Phase(name, cluster, List.of(), false, null);
  }

  /** Seconds since the phase began. */
  double seconds() {
    return (System.nanoTime() - start) / 1e9;
  }

  /** Ends the phase: seconds, uplinkBytesUp / Down / crossRackBytes (both directions summed), cpu, valid. */
  Map<String, Object> end() throws IOException {
    double seconds = seconds();
    long[] now = cluster.uplinkBytes();
    double busy = HostCpu.sample().busySince(cpu);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("seconds", round(seconds));
    m.put("uplinkBytesUp", now[0] - uplinks[0]);
    m.put("uplinkBytesDown", now[1] - uplinks[1]);
    m.put("crossRackBytes", now[0] - uplinks[0] + now[1] - uplinks[1]);
    m.put("cpu", round(busy));
    if (quietAfter != null) {
      m.put("hostQuietAfterSeconds", quietAfter);
    }
    boolean valid = busy <= HostCpu.LIMIT || !measured;
    m.put("valid", valid);
    if (!valid) {
      invalid.add(name);
    }
    System.err.printf("cluster bench: %s took %.1f s, uplinks %,d bytes, host CPU %.0f%%%s%n", name, seconds,
        now[0] - uplinks[0] + now[1] - uplinks[1], busy * 100, valid ? "" : " (INVALID: above the limit)");
    return m;
  }

  static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}
