package org.wideec.transport;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Emulates the papers' testbeds on one machine: every node's NIC (egress and ingress, each shared by all of
 * the node's streams, like ECPipe's 1 Gb/s node links) and every rack's uplink (one link shared by all traffic
 * leaving or entering the rack, like ECWide's rack gateways, §6). Each link is a FIFO server of fixed rate: a
 * slice reserves its transmission time on every link it crosses and is released when the slowest finishes.
 * The links are kept per JVM, so the emulation is exact for nodes that share a process (the embedded cluster);
 * across processes each node paces only its own view of the links. Rates of zero turn shaping off.
 */
public final class TrafficShaper {
  private static final ConcurrentHashMap<String, Link> LINKS = new ConcurrentHashMap<>();
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
    return nodeBytesPerSecond > 0 || rackBytesPerSecond > 0;
  }

  /** Blocks for as long as sending {@code bytes} from one node to another takes on the emulated links. */
  public void pace(String fromNode, String fromRack, String toNode, String toRack, int bytes) throws InterruptedException {
    if (!enabled() || bytes == 0 || fromNode.equals(toNode)) {
      return;
    }
    long now = System.nanoTime();
    long done = now;
    if (nodeBytesPerSecond > 0) {
      done = Math.max(done, link("out:" + fromNode).reserve(now, bytes, nodeBytesPerSecond));
      done = Math.max(done, link("in:" + toNode).reserve(now, bytes, nodeBytesPerSecond));
    }
    if (rackBytesPerSecond > 0 && !fromRack.equals(toRack)) {
      done = Math.max(done, link("rack:" + fromRack).reserve(now, bytes, rackBytesPerSecond));
      done = Math.max(done, link("rack:" + toRack).reserve(now, bytes, rackBytesPerSecond));
    }
    long wait = done - System.nanoTime();
    if (wait > 0) {
      TimeUnit.NANOSECONDS.sleep(wait);
    }
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
