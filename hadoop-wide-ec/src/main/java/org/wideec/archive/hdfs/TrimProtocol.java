package org.wideec.archive.hdfs;

import java.nio.charset.StandardCharsets;

/**
 * What the archiver (a client) and the NameNode side of trimming (the contiguous placement policy and the NameNode
 * plugin's trimmer) agree on, DESIGN.md §3.2 "Keeping the planned replica":
 * <ul>
 *   <li>the caller-context marker: a {@code setReplication} from an HDFS superuser whose caller context contains it
 *       makes the policy defer the choice of excess replicas, so the trimmer can keep the planned one;</li>
 *   <li>the trimmer's lease: an xattr on the archive's system directory that the NameNode plugin refreshes while it
 *       runs and can trim (its policy is the configured contiguous one). The archiver lowers replication only under
 *       a fresh lease: on a NameNode without our policy the stock policy would pick the survivor at random.</li>
 * </ul>
 */
public final class TrimProtocol {
  /** Matched by containment: a call routed through an RBF Router carries the Router's augmented context. */
  public static final String CALLER_CONTEXT = "wideec-archive-trim";
  /** On the archive directory ({@link ArchiveLayout#DIR_KEY}); superuser-only namespace, so users cannot forge it. */
  public static final String LEASE_XATTR = "trusted.wideec.trimmer";
  /** How often the NameNode plugin looks for committed stripes whose files were lowered to replication 1. */
  public static final String INTERVAL_KEY = "wide-ec.archive.trim.interval.ms";
  public static final long INTERVAL_DEFAULT = 10_000;
  /** Turns the NameNode's trimmer off (it then writes no lease, so archivers leave every replica in place). */
  public static final String ENABLED_KEY = "wide-ec.archive.trim.enabled";
  /** How long the archiver waits for the NameNode to trim the files it lowered to replication 1. */
  public static final String WAIT_KEY = "wide-ec.archive.trim.wait.ms";
  public static final long WAIT_DEFAULT = 600_000;
  /** A lease outlives several trim passes, and at least a minute, so a busy NameNode does not lose it. */
  static final long MIN_LEASE_MS = 60_000;

  private TrimProtocol() {}

  /** The lease the trimmer grants for the given pass interval. */
  public static long leaseMs(long intervalMs) {
    return Math.max(MIN_LEASE_MS, 6 * intervalMs);
  }

  /** The lease xattr's value: NameNode wall-clock time it was written and how long it holds, in ms. */
  public static byte[] lease(long writtenMs, long leaseMs) {
    return ("v1 " + writtenMs + " " + leaseMs).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Whether a lease value holds at the NameNode time {@code nameNodeNowMs}; a missing or unreadable value does not.
   * Both times are the NameNode's clock, so client clock skew does not matter.
   */
  public static boolean holds(byte[] value, long nameNodeNowMs) {
    if (value == null) {
      return false;
    }
    String[] f = new String(value, StandardCharsets.UTF_8).trim().split(" ");
    if (f.length != 3 || !f[0].equals("v1")) {
      return false;
    }
    try {
      long written = Long.parseLong(f[1]);
      long lease = Long.parseLong(f[2]);
      long age = nameNodeNowMs - written;
      // No live DataNode gives no NameNode time (0): not a fresh lease. A heartbeat older than the lease's write
      // makes the age slightly negative, never by more than the lease itself.
      return lease > 0 && nameNodeNowMs > 0 && age >= -lease && age <= lease;
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
