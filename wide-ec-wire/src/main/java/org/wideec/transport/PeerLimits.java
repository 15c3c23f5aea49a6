package org.wideec.transport;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a peer may hold of a slice port, each a {@code wide-ec.transport.} key with a safe default: unacknowledged
 * slices it may grant a producer (what a consumer can make a producer buffer), connections in total and per remote
 * host, how long a connection may take to authenticate and ask, how long it may stay silent, and how many helper
 * threads one principal's requests may occupy at once (so a slow consumer pins its own share, never every thread).
 * Peers that have not proved the cluster secret (connections still in their handshake, and clients) get a low cap
 * per address and together at most the connections not reserved for the cluster's DataNodes, and one still in its
 * handshake gives its place to a newcomer when there is no other ({@link Gate}), so no outside party can lock
 * DataNodes out of each other. And on the asking side: how many authenticated connections to one peer this node
 * keeps for reuse, and for how long (below the peers' idle timeout, so a peer does not close one as it is reused).
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

  /** Addresses remembered as having proved the cluster secret (least recently seen forgotten first). */
  static final int KNOWN_PEER_ADDRESSES = 4096;

  // The handshake deadline covers three crossings of a path (challenge, proof, request): behind a full rack uplink a
  // dropped segment alone costs a second of retransmission, so 5 s refused busy peers that were merely slow.
  public static final PeerLimits DEFAULTS = new PeerLimits(64, 2048, 512, 15_000, 120_000, 32, 8, 10_000, 1024, 64);

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

  /**
   * Counts what peers hold now, against the limits. A connection is an outsider from accept until it proves the
   * cluster secret ({@link #provedPeer}): still in its handshake, or a client once it authenticates with a block token
   * ({@link #admitClient}). Outsiders count against their address's cap and together hold at most the connections
   * that are not reserved. A connection from an address that proved the secret before (a DataNode reconnecting) may
   * handshake in a reserved one, and so may a stranger while the outsiders are all clients (a DataNode never seen
   * since this one started); a client must then fit the outsiders' share. When a newcomer finds no free connection,
   * the oldest connection still in its handshake makes room (as a SYN cache drops its oldest entry), so connections
   * that never authenticate cannot keep anyone out: to evict an honest peer's handshake an attacker must open a whole
   * share of connections within that handshake's round trip. Connection bookkeeping is rare (once per connection)
   * and runs under the gate's lock; request counts are lock-free. Every structure is bounded by the connections
   * admitted, or by {@link #KNOWN_PEER_ADDRESSES}.
   */
  final class Gate {
    private int connections;
    private int outsiders;
    private final Map<String, Integer> perHost = new HashMap<>();
    private final Map<String, Integer> unprovenPerHost = new HashMap<>();
    /** Connections still in their handshake, oldest first: the ones a full pool evicts. */
    private final Set<Place> handshaking = new LinkedHashSet<>();
    /** Addresses that proved the cluster secret, most recent last. */
    private final Map<String, Boolean> knownPeers = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
        return size() > KNOWN_PEER_ADDRESSES;
      }
    };
    private final ConcurrentHashMap<String, AtomicInteger> perPeer = new ConcurrentHashMap<>();
    private final AtomicLong evicted = new AtomicLong();

    /** One admitted connection's place, from accept to close (or eviction). Guarded by the gate. */
    final class Place {
      final String host;
      private final Runnable evict;
      private boolean outsider;
      private boolean proved;
      private boolean released;

      private Place(String host, Runnable evict) {
        this.host = host;
        this.evict = evict;
      }
    }

    /**
     * Admits a connection from host, evicting the oldest connection still in its handshake if the newcomer's pool is
     * full ({@code evict} closes this one if it is evicted in turn); throws the limit it would break when nothing can
     * make room.
     */
    Place admitConnection(String host, Runnable evict) throws Refused {
      Place out;
      Place place;
      synchronized (this) {
        if (count(perHost, host) >= maxConnectionsPerHost) {
          throw new Refused(host + " already has " + maxConnectionsPerHost + " slice connections here ("
              + MAX_CONNECTIONS_PER_HOST + ")");
        }
        if (count(unprovenPerHost, host) >= maxClientConnectionsPerHost) {
          throw new Refused(host + " already has " + maxClientConnectionsPerHost + " connections here that are not"
              + " DataNodes of this cluster (" + MAX_CLIENT_CONNECTIONS_PER_HOST + ")");
        }
        boolean known = knownPeers.containsKey(host);
        out = null;
        // A stranger handshakes in the outsiders' share; in a reserved connection only while the share holds clients
        // alone (nothing there to evict). An address that proved the secret before may take any free connection.
        boolean fits = connections < maxConnections
            && (known || outsiders < outsiderShare() || oldestHandshaking(false) == null);
        if (!fits) {
          out = oldestHandshaking(false);
          if (out == null && (known || connections >= maxConnections)) {
            out = oldestHandshaking(true);
          }
          if (out == null) { // every connection proved itself: DataNodes, or clients within their share
            throw new Refused("this node already has " + maxConnections + " slice connections (" + MAX_CONNECTIONS
                + ")");
          }
          free(out);
        }
        place = new Place(host, evict);
        connections++;
        add(perHost, host, 1);
        add(unprovenPerHost, host, 1);
        place.outsider = !known && outsiders < outsiderShare();
        if (place.outsider) {
          outsiders++;
        }
        handshaking.add(place);
      }
      if (out != null) {
        evicted.incrementAndGet();
        out.evict.run();
      }
      return place;
    }

    /**
     * The connection proved the cluster secret: it leaves the outsiders and its address's cap, and its address may
     * handshake in the reserved connections from now on. False if it was evicted meanwhile.
     */
    synchronized boolean provedPeer(Place p) {
      if (p.released) {
        return false;
      }
      handshaking.remove(p);
      p.proved = true;
      add(unprovenPerHost, p.host, -1);
      if (p.outsider) {
        p.outsider = false;
        outsiders--;
      }
      knownPeers.put(p.host, Boolean.TRUE);
      return true;
    }

    /**
     * The connection authenticated as a client: it stays an outsider (one from a known address becomes one, within
     * the share), or the reason it may not.
     */
    synchronized String admitClient(Place p) {
      if (p.released) {
        return "its place was given to a newer connection while it was handshaking";
      }
      if (!p.outsider) {
        if (outsiders >= outsiderShare()) {
          return outsidersFull();
        }
        p.outsider = true;
        outsiders++;
      }
      handshaking.remove(p);
      return null;
    }

    /** Releases a connection's place (once; nothing if it was evicted). */
    synchronized void releaseConnection(Place p) {
      if (!p.released) {
        free(p);
      }
    }

    /** The oldest connection in its handshake among the outsiders, or among every one ({@code anyone}). */
    private Place oldestHandshaking(boolean anyone) {
      for (Place p : handshaking) {
        if (anyone || p.outsider) {
          return p;
        }
      }
      return null;
    }

    private void free(Place p) {
      p.released = true;
      handshaking.remove(p);
      connections--;
      add(perHost, p.host, -1);
      if (!p.proved) {
        add(unprovenPerHost, p.host, -1);
      }
      if (p.outsider) {
        outsiders--;
      }
    }

    private int outsiderShare() {
      return maxConnections - reservedPeerConnections;
    }

    private String outsidersFull() {
      return "connections that are not DataNodes of this cluster (in their handshake, or clients) already hold "
          + outsiderShare() + " slice connections here; the other " + reservedPeerConnections + " are reserved for"
          + " this cluster's DataNodes (" + RESERVED_PEER_CONNECTIONS + ")";
    }

    /** Starts a request of a principal, or says which limit it would break. */
    String admitRequest(String peer) {
      AtomicInteger c = perPeer.computeIfAbsent(peer, k -> new AtomicInteger());
      if (c.incrementAndGet() > maxRequestsPerPeer) {
        c.decrementAndGet();
        return peer + " already has " + maxRequestsPerPeer + " requests running here (" + MAX_REQUESTS_PER_PEER + ")";
      }
      return null;
    }

    void releaseRequest(String peer) {
      perPeer.computeIfPresent(peer, (k, c) -> c.decrementAndGet() <= 0 ? null : c);
    }

    /** Requests running now under {@code peer}'s name. */
    int requestsOf(String peer) {
      AtomicInteger c = perPeer.get(peer);
      return c == null ? 0 : c.get();
    }

    synchronized int connections() {
      return connections;
    }

    /** Connections evicted in their handshake to make room for a newcomer, since start. */
    long evicted() {
      return evicted.get();
    }

    private static int count(Map<String, Integer> m, String key) {
      return m.getOrDefault(key, 0);
    }

    private static void add(Map<String, Integer> m, String key, int delta) {
      m.merge(key, delta, (a, b) -> a + b <= 0 ? null : a + b);
    }
  }

  /** A connection the port cannot admit, and the limit it would break. */
  static final class Refused extends Exception {
    Refused(String why) {
      super(why, null, false, false);
    }
  }

  Gate gate() {
    return new Gate();
  }
}
