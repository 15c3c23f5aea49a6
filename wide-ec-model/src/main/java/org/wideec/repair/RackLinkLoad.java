package org.wideec.repair;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * Bytes each rack link carries under a set of repairs: what bounds a full-node recovery when racks are
 * oversubscribed (ECWide §2.2: cross-rack bandwidth is the scarce resource). Two link models: a rack's uplink
 * and downlink as separate directions, as a switch port and the kernel's HTB shaping both behave, or one gateway
 * shared by both directions, as the embedded benchmarks' shaper emulates ECWide's rack gateways.
 */
public final class RackLinkLoad {
  /** How a rack meets the core. */
  public enum Links {
    /** Each rack has an uplink (traffic leaving it) and a downlink (traffic entering it), each at the rate. */
    FULL_DUPLEX,
    /** Each rack has one gateway that traffic leaving and entering shares. */
    SHARED_GATEWAY;

    /** Rack links of one direction's capacity (a rack's uplink or its gateway) one cross-rack byte occupies. */
    int linksPerByte() {
      return this == FULL_DUPLEX ? 1 : 2;
    }
  }

  private final Links links;
  private final Map<String, Long> bytes = new TreeMap<>();

  public RackLinkLoad(Links links) {
    this.links = links;
  }

  public Links links() {
    return links;
  }

  /** Adds a transfer of {@code n} bytes from one rack to another (nothing when both are the same rack). */
  public void addTransfer(String fromRack, String toRack, long n) {
    if (fromRack.equals(toRack) || n == 0) {
      return;
    }
    if (links == Links.FULL_DUPLEX) {
      add("up " + fromRack, n);
      add("down " + toRack, n);
    } else {
      add(fromRack, n);
      add(toRack, n);
    }
  }

  /** Adds (sign 1) or takes away (sign -1) another load over the same link model. */
  public void add(RackLinkLoad other, int sign) {
    if (other.links != links) {
      throw new IllegalArgumentException("cannot add a " + other.links + " load to a " + links + " load");
    }
    other.bytes.forEach((link, n) -> add(link, sign * n));
  }

  private void add(String link, long n) {
    long v = bytes.getOrDefault(link, 0L) + n;
    if (v == 0) {
      bytes.remove(link);
    } else {
      bytes.put(link, v);
    }
  }

  public RackLinkLoad copy() {
    RackLinkLoad c = new RackLinkLoad(links);
    c.bytes.putAll(bytes);
    return c;
  }

  /** Bytes by link ("up /r1", "down /r2"; or the rack itself for a shared gateway). */
  public Map<String, Long> bytes() {
    return Collections.unmodifiableMap(bytes);
  }

  /** Bytes the busiest link carries. */
  public long max() {
    return bytes.values().stream().mapToLong(Long::longValue).max().orElse(0);
  }

  /** Bytes sent across racks: each occupies two rack links (its sender's and its receiver's). */
  public long crossRackBytes() {
    return bytes.values().stream().mapToLong(Long::longValue).sum() / 2;
  }

  /**
   * Orders loads by their busiest link, then the next busiest, and so on (the loads sorted in descending order,
   * compared lexicographically): a lower load finishes no later and leaves the other links freer.
   */
  public int compareTo(RackLinkLoad o) {
    long[] a = bytes.values().stream().mapToLong(Long::longValue).map(v -> -v).sorted().toArray();
    long[] b = o.bytes.values().stream().mapToLong(Long::longValue).map(v -> -v).sorted().toArray();
    for (int i = 0; i < Math.max(a.length, b.length); i++) {
      long x = i < a.length ? -a[i] : 0;
      long y = i < b.length ? -b[i] : 0;
      if (x != y) {
        return Long.compare(x, y);
      }
    }
    return 0;
  }

  @Override
  public String toString() {
    return links + " " + bytes;
  }
}
