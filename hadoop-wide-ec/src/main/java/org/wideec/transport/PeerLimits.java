package org.wideec.transport;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;

/**
 * What a peer may hold of a slice port, each a {@code wide-ec.transport.} key with a safe default: unacknowledged
 * slices it may grant a producer (what a consumer can make a producer buffer), connections in total and per remote
 * host, how long a connection may take to authenticate and ask, how long it may stay silent, and how many helper
 * threads one peer's requests may occupy at once (so a slow consumer pins its own share, never every thread). And on
 * the asking side: how many authenticated connections to one peer this node keeps for reuse, and for how long
 * (below the peers' idle timeout, so a peer does not close one as it is reused).
 */
public record PeerLimits(int maxCredits, int maxConnections, int maxConnectionsPerHost, long handshakeTimeoutMs,
    long idleTimeoutMs, int maxRequestsPerPeer, int poolMaxIdlePerPeer, long poolIdleMs) {

  public static final String MAX_CREDITS = TransportConf.PREFIX + "max-credits";
  public static final String MAX_CONNECTIONS = TransportConf.PREFIX + "max-connections";
  public static final String MAX_CONNECTIONS_PER_HOST = TransportConf.PREFIX + "max-connections-per-host";
  public static final String HANDSHAKE_TIMEOUT = TransportConf.PREFIX + "handshake.timeout.ms";
  public static final String IDLE_TIMEOUT = TransportConf.PREFIX + "idle.timeout.ms";
  public static final String MAX_REQUESTS_PER_PEER = TransportConf.PREFIX + "max-requests-per-peer";
  public static final String POOL_MAX_IDLE_PER_PEER = TransportConf.PREFIX + "pool.max-idle-per-peer";
  public static final String POOL_IDLE = TransportConf.PREFIX + "pool.idle.ms";

  public static final PeerLimits DEFAULTS = new PeerLimits(64, 2048, 512, 10_000, 120_000, 32, 8, 10_000);

  /** The server's limits with the default connection reuse, kept for at most half the idle timeout. */
  public PeerLimits(int maxCredits, int maxConnections, int maxConnectionsPerHost, long handshakeTimeoutMs,
      long idleTimeoutMs, int maxRequestsPerPeer) {
    this(maxCredits, maxConnections, maxConnectionsPerHost, handshakeTimeoutMs, idleTimeoutMs, maxRequestsPerPeer, 8,
        Math.min(10_000, idleTimeoutMs / 2));
  }

  public PeerLimits {
    if (maxCredits < 1 || maxConnections < 1 || maxConnectionsPerHost < 1 || handshakeTimeoutMs < 1 || idleTimeoutMs < 1
        || maxRequestsPerPeer < 1 || poolMaxIdlePerPeer < 0 || poolIdleMs < 0) {
      throw new IllegalArgumentException("every wide-ec.transport limit must be positive: " + this);
    }
    if (poolMaxIdlePerPeer > 0 && poolIdleMs >= idleTimeoutMs) {
      throw new IllegalArgumentException(POOL_IDLE + "=" + poolIdleMs + " must be below " + IDLE_TIMEOUT + "="
          + idleTimeoutMs + ": peers close connections idle that long, and a kept connection would be closed as it is reused");
    }
  }

  static PeerLimits from(Configuration conf) {
    PeerLimits d = DEFAULTS;
    long idle = ConfigValues.longAtLeast(conf, IDLE_TIMEOUT, d.idleTimeoutMs, 1);
    return new PeerLimits(ConfigValues.intIn(conf, MAX_CREDITS, d.maxCredits, 1, 1 << 16),
        ConfigValues.intIn(conf, MAX_CONNECTIONS, d.maxConnections, 1, 1 << 20),
        ConfigValues.intIn(conf, MAX_CONNECTIONS_PER_HOST, d.maxConnectionsPerHost, 1, 1 << 20),
        ConfigValues.longAtLeast(conf, HANDSHAKE_TIMEOUT, d.handshakeTimeoutMs, 1), idle,
        ConfigValues.intIn(conf, MAX_REQUESTS_PER_PEER, d.maxRequestsPerPeer, 1, 1 << 16),
        ConfigValues.intIn(conf, POOL_MAX_IDLE_PER_PEER, d.poolMaxIdlePerPeer, 0, 1 << 16),
        // Kept below the idle timeout by default, whatever the operator set that to.
        ConfigValues.longAtLeast(conf, POOL_IDLE, Math.min(d.poolIdleMs, idle / 2), 0));
  }

  /** Counts what peers hold now, against the limits. Thread-safe. */
  final class Gate {
    private final AtomicInteger connections = new AtomicInteger();
    private final ConcurrentHashMap<String, AtomicInteger> perHost = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, AtomicInteger> perPeer = new ConcurrentHashMap<>();

    /** Admits a connection from host, or says which limit it would break. */
    String admitConnection(String host) {
      if (connections.incrementAndGet() > maxConnections) {
        connections.decrementAndGet();
        return "this node already has " + maxConnections + " slice connections (" + MAX_CONNECTIONS + ")";
      }
      if (!take(perHost, host, maxConnectionsPerHost)) {
        connections.decrementAndGet();
        return host + " already has " + maxConnectionsPerHost + " slice connections here (" + MAX_CONNECTIONS_PER_HOST + ")";
      }
      return null;
    }

    void releaseConnection(String host) {
      connections.decrementAndGet();
      release(perHost, host);
    }

    /** Starts a request of a peer, or says which limit it would break. */
    String admitRequest(String peer) {
      return take(perPeer, peer, maxRequestsPerPeer) ? null
          : peer + " already has " + maxRequestsPerPeer + " requests running here (" + MAX_REQUESTS_PER_PEER + ")";
    }

    void releaseRequest(String peer) {
      release(perPeer, peer);
    }

    int connections() {
      return connections.get();
    }

    private boolean take(ConcurrentHashMap<String, AtomicInteger> m, String key, int max) {
      AtomicInteger c = m.computeIfAbsent(key, k -> new AtomicInteger());
      if (c.incrementAndGet() > max) {
        c.decrementAndGet();
        return false;
      }
      return true;
    }

    private void release(ConcurrentHashMap<String, AtomicInteger> m, String key) {
      m.computeIfPresent(key, (k, c) -> c.decrementAndGet() <= 0 ? null : c);
    }
  }

  Gate gate() {
    return new Gate();
  }
}
