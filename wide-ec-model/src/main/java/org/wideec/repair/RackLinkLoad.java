package org.wideec.repair;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * Bytes each rack link carries under a set of repairs: what bounds a full-node recovery when racks are
 * oversubscribed (ECWide §2.2: cross-rack bandwidth is the scarce resource). Two link models: a rack's uplink
 * and downlink as separate directions, as a switch port and the kernel's HTB shaping both behave, or one gateway
 * shared by both directions, as the embedded benchmarks' shaper emulates ECWide's rack gateways. Node links (each
 * DataNode's NIC, one direction each) are counted apart, by {@link #addNodeTransfer}, for plans that a single node's
 * NIC can bound (a decommission copies from one node), and timed with the rack links by {@link #seconds}.
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
  /** Bytes by node link: "out NODE", "in NODE". */
  private final Map<String, Long> nodeBytes = new TreeMap<>();

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

  /**
   * Adds {@code n} bytes sent from one DataNode to another: the sender's NIC out and the receiver's NIC in (nothing
   * when both are the same node: a local read). The rack links are added apart, by {@link #addTransfer}.
   */
  public void addNodeTransfer(String fromNode, String toNode, long n) {
    if (fromNode.equals(toNode) || n == 0) {
      return;
    }
    add(nodeBytes, "out " + fromNode, n);
    add(nodeBytes, "in " + toNode, n);
  }

  /** Adds (sign 1) or takes away (sign -1) another load over the same link model. */
  public void add(RackLinkLoad other, int sign) {
    if (other.links != links) {
      throw new IllegalArgumentException("cannot add a " + other.links + " load to a " + links + " load");
    }
    other.bytes.forEach((link, n) -> add(bytes, link, sign * n));
    other.nodeBytes.forEach((link, n) -> add(nodeBytes, link, sign * n));
  }

  private void add(String link, long n) {
    add(bytes, link, n);
  }

  private static void add(Map<String, Long> to, String link, long n) {
    long v = to.getOrDefault(link, 0L) + n;
    if (v == 0) {
      to.remove(link);
    } else {
      to.put(link, v);
    }
  }

  public RackLinkLoad copy() {
    RackLinkLoad c = new RackLinkLoad(links);
    c.bytes.putAll(bytes);
    c.nodeBytes.putAll(nodeBytes);
    return c;
  }

  /** Bytes by node link ("out dn1", "in dn2"). */
  public Map<String, Long> nodeBytes() {
    return Collections.unmodifiableMap(nodeBytes);
  }

  /**
   * Seconds the busiest link, node or rack, needs for its bytes at these rates: the time of the transfers when they
   * all run at once and each link is shared fairly (a makespan's lower bound, and what a plan that keeps every link
   * busy reaches).
   */
  public double seconds(LinkRates rates) {
    double[] s = secondsByLink(rates);
    return s.length == 0 ? 0 : s[0];
  }

  /**
   * Orders loads by their busiest link's seconds, then the next busiest's, and so on: as {@link #compareTo}, with
   * node and rack links timed at their own rates.
   */
  public int compareSeconds(RackLinkLoad o, LinkRates rates) {
    double[] a = secondsByLink(rates);
    double[] b = o.secondsByLink(rates);
    for (int i = 0; i < Math.max(a.length, b.length); i++) {
      int c = Double.compare(i < a.length ? a[i] : 0, i < b.length ? b[i] : 0);
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  /** Every link's seconds, busiest first. */
  private double[] secondsByLink(LinkRates rates) {
    java.util.stream.DoubleStream racks = bytes.values().stream().mapToDouble(v -> v / rates.rackBytesPerSecond());
    java.util.stream.DoubleStream nodes = nodeBytes.values().stream().mapToDouble(v -> v / rates.nodeBytesPerSecond());
    return java.util.stream.DoubleStream.concat(racks, nodes).map(v -> -v).sorted().map(v -> -v).toArray();
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
    return links + " " + bytes + (nodeBytes.isEmpty() ? "" : " nodes " + nodeBytes);
  }
}
