package org.wideec.transport;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Emulates the papers' testbeds on one machine: every node's NIC (egress and ingress, each shared by all of
 * the node's streams, like ECPipe's 1 Gb/s node links) and every rack's uplink (one link shared by all traffic
 * leaving or entering the rack, like ECWide's rack gateways, §6). Each link is a FIFO server of fixed rate: a
 * slice reserves its transmission time on every link it crosses and leaves when the slowest finishes; the
 * sender meanwhile goes on computing, as it would beside a real NIC (its credits bound how far ahead).
 * The links are kept per JVM, so the emulation is exact for nodes that share a process (the embedded cluster);
 * across processes each node paces only its own view of the links. Rates of zero turn shaping off.
 */
public final class TrafficShaper {
  private static final ConcurrentHashMap<String, Link> LINKS = new ConcurrentHashMap<>();
  /** Rates an embedded benchmark imposes on every node of the JVM, between runs of one cluster; null = configured. */
  private static volatile long[] emulated;
  private final long nodeBytesPerSecond;
  private final long rackBytesPerSecond;

  public TrafficShaper(long nodeBytesPerSecond, long rackBytesPerSecond) {
    if (nodeBytesPerSecond < 0 || rackBytesPerSecond < 0) {
      throw new IllegalArgumentException("shaping rates must be >= 0 (0 = off), got node " + nodeBytesPerSecond
          + ", rack " + rackBytesPerSecond);
    }
    this.nodeBytesPerSecond = nodeBytesPerSecond;
    this.rackBytesPerSecond = rackBytesPerSecond;
  }

  public static final TrafficShaper OFF = new TrafficShaper(0, 0);

  public boolean enabled() {
    long[] e = emulated;
    return e != null ? e[0] > 0 || e[1] > 0 : nodeBytesPerSecond > 0 || rackBytesPerSecond > 0;
  }

  /** Every node link's rate now, bytes/s: as an embedded benchmark emulates it, else as configured; 0 is unshaped. */
  public long nodeBytesPerSecond() {
    long[] e = emulated;
    return e != null ? e[0] : nodeBytesPerSecond;
  }

  /** Every rack uplink's rate now, bytes/s, as {@link #nodeBytesPerSecond}. */
  public long rackBytesPerSecond() {
    long[] e = emulated;
    return e != null ? e[1] : rackBytesPerSecond;
  }

  /**
   * For embedded benchmarks (every DataNode in this JVM): replaces the configured rates of all shapers, or
   * restores them with null. Links are reset so no reservation from an earlier run carries over.
   */
  public static void emulate(long[] nodeAndRackBytesPerSecond) {
    LINKS.clear();
    emulated = nodeAndRackBytesPerSecond == null ? null : nodeAndRackBytesPerSecond.clone();
  }

  /**
   * Reserves the emulated links for sending {@code bytes} from one node to another; returns the nanoseconds
   * until the last of them has carried it (0 when unshaped).
   */
  public long reserve(String fromNode, String fromRack, String toNode, String toRack, int bytes) {
    if (!enabled() || bytes == 0 || fromNode.equals(toNode)) {
      return 0;
    }
    long[] e = emulated;
    long node = e != null ? e[0] : nodeBytesPerSecond;
    long rack = e != null ? e[1] : rackBytesPerSecond;
    long now = System.nanoTime();
    long done = now;
    if (node > 0) {
      done = Math.max(done, link("out:" + fromNode).reserve(now, bytes, node));
      done = Math.max(done, link("in:" + toNode).reserve(now, bytes, node));
    }
    if (rack > 0 && !fromRack.equals(toRack)) {
      done = Math.max(done, link("rack:" + fromRack).reserve(now, bytes, rack));
      done = Math.max(done, link("rack:" + toRack).reserve(now, bytes, rack));
    }
    return Math.max(0, done - System.nanoTime());
  }

  private static Link link(String name) {
    return LINKS.computeIfAbsent(name, n -> new Link());
  }

  /** One emulated link: the time it next falls idle. */
  private static final class Link {
    private long idleAt;

    synchronized long reserve(long now, int bytes, long rate) {
      long start = Math.max(now, idleAt);
      idleAt = start + bytes * 1_000_000_000L / rate;
      return idleAt;
    }
  }
}
