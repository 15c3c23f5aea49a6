package org.wideec.repair;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;

/**
 * Nodes that repairs plan without for a while: a helper that could not be reached, whose wide-ec worker is off, or
 * that refused the asker (a wrong cluster secret). ECPipe §3.2 restarts one repair without a failed helper; remembering
 * an unusable one for a bounded time spares the next repairs the same failed attempt, while a node that comes back
 * (its worker started, its secret fixed) is asked again once the time is up. A preference, never a ban: a repair that
 * the other helpers cannot decode still asks an avoided node. Shared by the threads of one daemon.
 */
public final class UnusableHelpers {
  public static final String AVOID_KEY = "wide-ec.repair.unusable-helper.avoid.ms";
  public static final long AVOID_DEFAULT_MS = 300_000;

  private record Entry(long untilNanos, String why) {}

  private final long avoidNanos;
  private final LongSupplier nanoClock;
  private final Map<String, Entry> nodes = new ConcurrentHashMap<>();

  /** Avoids each node for {@code avoidMs} after its last failure (0: only within the repair that found it). */
  public UnusableHelpers(long avoidMs) {
    this(avoidMs, System::nanoTime);
  }

  UnusableHelpers(long avoidMs, LongSupplier nanoClock) {
    if (avoidMs < 0) {
      throw new IllegalArgumentException(AVOID_KEY + " must be 0 or more, got " + avoidMs);
    }
    this.avoidNanos = TimeUnit.MILLISECONDS.toNanos(avoidMs);
    this.nanoClock = nanoClock;
  }

  /**
   * Avoids the node from now on for the configured time; true when it was not avoided already (the caller logs
   * it once).
   */
  public boolean avoid(String node, String why) {
    if (avoidNanos == 0) {
      return true;
    }
    Entry before = nodes.put(node, new Entry(nanoClock.getAsLong() + avoidNanos, why));
    return before == null || before.untilNanos - nanoClock.getAsLong() < 0;
  }

  /** The nodes avoided now. */
  public Set<String> now() {
    long t = nanoClock.getAsLong();
    nodes.entrySet().removeIf(e -> e.getValue().untilNanos - t < 0);
    return Set.copyOf(nodes.keySet());
  }

  /** The nodes avoided now among these. */
  public Set<String> among(Set<String> candidates) {
    return now().stream().filter(candidates::contains).collect(Collectors.toSet());
  }

  /** Why the node is avoided, or null when it is not. */
  public String why(String node) {
    Entry e = nodes.get(node);
    return e == null || e.untilNanos - nanoClock.getAsLong() < 0 ? null : e.why;
  }

  /** How long a node is avoided, in ms. */
  public long avoidMs() {
    return TimeUnit.NANOSECONDS.toMillis(avoidNanos);
  }
}
