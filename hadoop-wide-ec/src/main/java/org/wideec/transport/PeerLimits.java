package org.wideec.transport;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;

/**
 * What a peer may hold of a slice port, each a {@code wide-ec.transport.} key with a safe default: unacknowledged
 * slices it may grant a producer (what a consumer can make a producer buffer), connections in total and per remote
 * host, how long a connection may take to authenticate and ask, how long it may stay silent, and how many helper
 * threads one peer's requests may occupy at once (so a slow consumer pins its own share, never every thread). Peers
 * that have not proved the cluster secret (connections still in their handshake, and clients) get a low cap per
 * address and never the connections reserved for the cluster's DataNodes, so no outside party can lock DataNodes
 * out of each other. And on the asking side: how many authenticated connections to one peer this node keeps for
 * reuse, and for how long (below the peers' idle timeout, so a peer does not close one as it is reused).
 */
public record PeerLimits(int maxCredits, int maxConnections, int maxConnectionsPerHost, long handshakeTimeoutMs,
    long idleTimeoutMs, int maxRequestsPerPeer, int poolMaxIdlePerPeer, long poolIdleMs, int reservedPeerConnections,
    int maxClientConnectionsPerHost) {

  public static final String MAX_CREDITS = TransportConf.PREFIX + "max-credits";
  public static final String MAX_CONNECTIONS = TransportConf.PREFIX + "max-connections";
  public static final String MAX_CONNECTIONS_PER_HOST = TransportConf.PREFIX + "max-connections-per-host";
  public static final String HANDSHAKE_TIMEOUT = TransportConf.PREFIX + "handshake.timeout.ms";
  public static final String IDLE_TIMEOUT = TransportConf.PREFIX + "idle.timeout.ms";
  public static final String MAX_REQUESTS_PER_PEER = TransportConf.PREFIX + "max-requests-per-peer";
  public static final String POOL_MAX_IDLE_PER_PEER = TransportConf.PREFIX + "pool.max-idle-per-peer";
  public static final String POOL_IDLE = TransportConf.PREFIX + "pool.idle.ms";
  public static final String RESERVED_PEER_CONNECTIONS = TransportConf.PREFIX + "reserved-peer-connections";
  public static final String MAX_CLIENT_CONNECTIONS_PER_HOST = TransportConf.PREFIX + "max-client-connections-per-host";

  public static final PeerLimits DEFAULTS = new PeerLimits(64, 2048, 512, 5_000, 120_000, 32, 8, 10_000, 1024, 64);

  /** The server's limits with the default share for clients: half the connections, 64 per address at most. */
  public PeerLimits(int maxCredits, int maxConnections, int maxConnectionsPerHost, long handshakeTimeoutMs,
      long idleTimeoutMs, int maxRequestsPerPeer, int poolMaxIdlePerPeer, long poolIdleMs) {
    this(maxCredits, maxConnections, maxConnectionsPerHost, handshakeTimeoutMs, idleTimeoutMs, maxRequestsPerPeer,
        poolMaxIdlePerPeer, poolIdleMs, maxConnections / 2, Math.min(maxConnectionsPerHost, 64));
  }

  /** The server's limits with the default connection reuse, kept for at most half the idle timeout. */
  public PeerLimits(int maxCredits, int maxConnections, int maxConnectionsPerHost, long handshakeTimeoutMs,
      long idleTimeoutMs, int maxRequestsPerPeer) {
    this(maxCredits, maxConnections, maxConnectionsPerHost, handshakeTimeoutMs, idleTimeoutMs, maxRequestsPerPeer, 8,
        Math.min(10_000, idleTimeoutMs / 2));
  }

  public PeerLimits {
    if (maxCredits < 1 || maxConnections < 1 || maxConnectionsPerHost < 1 || handshakeTimeoutMs < 1 || idleTimeoutMs < 1
        || maxRequestsPerPeer < 1 || poolMaxIdlePerPeer < 0 || poolIdleMs < 0 || maxClientConnectionsPerHost < 1) {
      throw new IllegalArgumentException("every wide-ec.transport limit must be positive: " + this);
    }
    if (reservedPeerConnections < 0 || reservedPeerConnections >= maxConnections) {
      throw new IllegalArgumentException(RESERVED_PEER_CONNECTIONS + "=" + reservedPeerConnections + " must be in [0, "
          + MAX_CONNECTIONS + "=" + maxConnections + "): clients need at least one connection");
    }
    if (poolMaxIdlePerPeer > 0 && poolIdleMs >= idleTimeoutMs) {
      throw new IllegalArgumentException(POOL_IDLE + "=" + poolIdleMs + " must be below " + IDLE_TIMEOUT + "="
          + idleTimeoutMs + ": peers close connections idle that long, and a kept connection would be closed as it is reused");
    }
  }

  static PeerLimits from(Configuration conf) {
    PeerLimits d = DEFAULTS;
    long idle = ConfigValues.longAtLeast(conf, IDLE_TIMEOUT, d.idleTimeoutMs, 1);
    int max = ConfigValues.intIn(conf, MAX_CONNECTIONS, d.maxConnections, 1, 1 << 20);
    int perHost = ConfigValues.intIn(conf, MAX_CONNECTIONS_PER_HOST, d.maxConnectionsPerHost, 1, 1 << 20);
    return new PeerLimits(ConfigValues.intIn(conf, MAX_CREDITS, d.maxCredits, 1, 1 << 16), max, perHost,
        ConfigValues.longAtLeast(conf, HANDSHAKE_TIMEOUT, d.handshakeTimeoutMs, 1), idle,
        ConfigValues.intIn(conf, MAX_REQUESTS_PER_PEER, d.maxRequestsPerPeer, 1, 1 << 16),
        ConfigValues.intIn(conf, POOL_MAX_IDLE_PER_PEER, d.poolMaxIdlePerPeer, 0, 1 << 16),
        // Kept below the idle timeout by default, whatever the operator set that to.
        ConfigValues.longAtLeast(conf, POOL_IDLE, Math.min(d.poolIdleMs, idle / 2), 0),
        // Half of whatever the operator allows in total, by default (the shipped 1024 of 2048).
        ConfigValues.intIn(conf, RESERVED_PEER_CONNECTIONS, max / 2, 0, max - 1),
        ConfigValues.intIn(conf, MAX_CLIENT_CONNECTIONS_PER_HOST, Math.min(perHost, d.maxClientConnectionsPerHost), 1,
            perHost));
  }

  /**
   * Counts what peers hold now, against the limits. Thread-safe. A connection is unproven from accept until it
   * proves the cluster secret ({@link #provedPeer}); an unproven one counts against its address's client cap, and
   * once it authenticates as a client ({@link #admitClient}) also against the clients' share (all connections but
   * the reserved ones). One still in its handshake may use a reserved slot: it leaves at the handshake deadline.
   */
  final class Gate {
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger clients = new AtomicInteger();
    private final ConcurrentHashMap<String, AtomicInteger> perHost = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, AtomicInteger> unprovenPerHost = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, AtomicInteger> perPeer = new ConcurrentHashMap<>();

    /** Admits an unproven connection from host, or says which limit it would break. */
    String admitConnection(String host) {
      if (connections.incrementAndGet() > maxConnections) {
        connections.decrementAndGet();
        return "this node already has " + maxConnections + " slice connections (" + MAX_CONNECTIONS + ")";
      }
      if (!take(perHost, host, maxConnectionsPerHost)) {
        connections.decrementAndGet();
        return host + " already has " + maxConnectionsPerHost + " slice connections here (" + MAX_CONNECTIONS_PER_HOST + ")";
      }
      if (!take(unprovenPerHost, host, maxClientConnectionsPerHost)) {
        release(perHost, host);
        connections.decrementAndGet();
        return host + " already has " + maxClientConnectionsPerHost + " connections here that are not DataNodes of this"
            + " cluster (" + MAX_CLIENT_CONNECTIONS_PER_HOST + ")";
      }
      return null;
    }

    /** The connection proved the cluster secret: it no longer counts against its address's client cap. */
    void provedPeer(String host) {
      release(unprovenPerHost, host);
    }

    /** The connection authenticated as a client: admitted within the clients' share, or the reason it is not. */
    String admitClient() {
      int share = maxConnections - reservedPeerConnections;
      if (clients.incrementAndGet() > share) {
        clients.decrementAndGet();
        return "clients already hold " + share + " slice connections here; the other " + reservedPeerConnections
            + " are reserved for this cluster's DataNodes (" + RESERVED_PEER_CONNECTIONS + ")";
      }
      return null;
    }

    /** Releases a connection: {@code proved} if it proved the cluster secret, {@code client} if it was admitted so. */
    void releaseConnection(String host, boolean proved, boolean client) {
      connections.decrementAndGet();
      release(perHost, host);
      if (!proved) {
        release(unprovenPerHost, host);
      }
      if (client) {
        clients.decrementAndGet();
      }
    }

    /** Starts a request of a peer, or says which limit it would break. */
    String admitRequest(String peer) {
      return take(perPeer, peer, maxRequestsPerPeer) ? null
          : peer + " already has " + maxRequestsPerPeer + " requests running here (" + MAX_REQUESTS_PER_PEER + ")";
    }

    void releaseRequest(String peer) {
      release(perPeer, peer);
    }

    /** Requests running now under {@code peer}'s name. */
    int requestsOf(String peer) {
      AtomicInteger c = perPeer.get(peer);
      return c == null ? 0 : c.get();
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
