package org.wideec.repair;

import java.io.IOException;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;

/**
 * Nodes that repairs plan without for a while: a helper that could not be reached, whose wide-ec worker is off, or
 * that refused the asker (a wrong cluster secret). ECPipe §3.2 restarts one repair without a failed helper; remembering
 * an unusable one for a bounded time spares the next repairs the same failed attempt, while a node that comes back
 * (its worker started, its secret fixed) is asked again once the time is up. A node left out because it could not be
 * reached where it listened, or could not be found, is asked again as soon as it names another endpoint
 * ({@link #liftMoved}): a DataNode restarted on a new slice port is well. A preference, never a ban: a repair that the
 * other helpers cannot decode still asks an avoided node. Shared by the threads of one daemon.
 */
public final class UnusableHelpers {
  public static final String AVOID_KEY = "wide-ec.repair.unusable-helper.avoid.ms";
  public static final long AVOID_DEFAULT_MS = 300_000;

  /** How often one avoided node is looked up again at most, so that a dead node costs few lookups. */
  static final long RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

  /**
   * @param site the node and its rack, to look it up again by; null when a new endpoint would not help (the node
   *     refused the asker, say)
   * @param at the endpoint that failed; null when none was found
   */
  private record Entry(long untilNanos, String why, Site site, Endpoint at, long recheckNanos) {}

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
    return put(node, new Entry(0, why, null, null, 0));
  }

  /**
   * The same for a node that could not be reached at {@code at}, or whose endpoint could not be found ({@code at}
   * null): it is asked again as soon as it names another endpoint ({@link #liftMoved}).
   */
  public boolean avoid(Site site, String why, Endpoint at) {
    return put(site.node(), new Entry(0, why, site, at, 0));
  }

  private boolean put(String node, Entry e) {
    if (avoidNanos == 0) {
      return true;
    }
    long t = nanoClock.getAsLong();
    Entry before = nodes.put(node, new Entry(t + avoidNanos, e.why, e.site, e.at, t));
    return before == null || before.untilNanos - t < 0;
  }

  /** Ends the avoidance of a node now. */
  public void lift(String node) {
    nodes.remove(node);
  }

  /**
   * Ends the avoidance of each node among {@code candidates} that was left out where it listened, or for want of an
   * endpoint, and now names another endpoint, looked up afresh ({@link EndpointResolver#moved}); each such node is
   * looked up at most once a second.
   *
   * @return the nodes asked again
   */
  public Set<String> liftMoved(Set<String> candidates, EndpointResolver now) {
    long t = nanoClock.getAsLong();
    Set<String> lifted = new HashSet<>();
    for (String node : candidates) {
      Entry e = nodes.get(node);
      if (e == null || e.site == null || e.recheckNanos - t > 0 || e.untilNanos - t < 0) {
        continue;
      }
      if (!nodes.replace(node, e, new Entry(e.untilNanos, e.why, e.site, e.at, t + RECHECK_NANOS))) {
        continue; // avoided again meanwhile: that failure is the one to check, at the next call
      }
      if (namesAnother(e, now) && nodes.remove(node, new Entry(e.untilNanos, e.why, e.site, e.at, t + RECHECK_NANOS))) {
        lifted.add(node);
      }
    }
    return lifted;
  }

  private static boolean namesAnother(Entry e, EndpointResolver now) {
    try {
      if (e.at != null) {
        return now.moved(e.at) != null;
      }
      now.resolve(new UnitLocation(-1, e.site));
      return true;
    } catch (IOException | RuntimeException notYet) {
      return false;
    }
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
    return e == null || e.untilNanos - nanoClock.getAsLong() < 0 ? null : e.why();
  }

  /** How long a node is avoided, in ms. */
  public long avoidMs() {
    return TimeUnit.NANOSECONDS.toMillis(avoidNanos);
  }
}
