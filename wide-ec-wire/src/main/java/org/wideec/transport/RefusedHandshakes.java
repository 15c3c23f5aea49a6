package org.wideec.transport;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The handshakes a node's slice port refused, and those of its own that peers refused, per peer and reason: how a
 * DataNode whose cluster secret differs from its peers' becomes visible (it refuses every peer that talks to it,
 * and every peer refuses it), where its worker otherwise looks healthy. A peer is named by the DataNode name its
 * AUTH claimed when that name is on the address the connection came from (the claim is unproven, so it must at
 * least agree with the socket), else by its address; a refusing server by the name this node dialled it under.
 * Kept for at most {@link #MAX_PEERS} peers per direction, the least recently refused forgotten first.
 */
public final class RefusedHandshakes {
  /** How far back reports look: "recently" in `wide-ec nodes` and `check-cluster`. */
  public static final long RECENT_MS = 10 * 60_000L;
  static final int MAX_PEERS = 256;
  private final Map<String, Refusal> refused = recentFirst();
  private final Map<String, Refusal> refusedBy = recentFirst();

  /** Refusals of one peer for one reason: how many, and when the last one was (epoch ms). */
  public static final class Refusal {
    private final String peer;
    private final RefusalReason reason;
    private final long count;
    private final long lastMillis;

    Refusal(String peer, RefusalReason reason, long count, long lastMillis) {
      this.peer = peer;
      this.reason = reason;
      this.count = count;
      this.lastMillis = lastMillis;
    }

    public String getPeer() {
      return peer;
    }

    public String getReason() {
      return reason.toString();
    }

    public long getCount() {
      return count;
    }

    public long getLastMillis() {
      return lastMillis;
    }

    RefusalReason reason() {
      return reason;
    }
  }

  /** This node's slice port refused {@code peer}'s handshake. */
  void refused(String peer, RefusalReason why, long now) {
    note(refused, peer, why, now);
  }

  /** {@code peer}'s slice port refused this node's handshake. */
  void refusedBy(String peer, RefusalReason why, long now) {
    note(refusedBy, peer, why, now);
  }

  /** The peers this node refused since {@code since} (epoch ms), each with its counts. */
  public List<Refusal> refused(long since) {
    return recent(refused, since);
  }

  /** The peers that refused this node since {@code since}. */
  public List<Refusal> refusedBy(long since) {
    return recent(refusedBy, since);
  }

  /**
   * The name a refused peer is reported under: the DataNode name its AUTH claimed, if that name's host is the
   * address the connection came from, else the address (with the claim beside it, for the log).
   */
  static String peerName(String claimed, String address) {
    if (claimed == null || claimed.isEmpty()) {
      return address;
    }
    int colon = claimed.lastIndexOf(':');
    return colon > 0 && claimed.substring(0, colon).equals(address) ? claimed : address;
  }

  private static void note(Map<String, Refusal> m, String peer, RefusalReason why, long now) {
    synchronized (m) {
      String key = peer + "\t" + why;
      Refusal r = m.remove(key);
      m.put(key, new Refusal(peer, why, r == null ? 1 : r.count + 1, now));
    }
  }

  private static List<Refusal> recent(Map<String, Refusal> m, long since) {
    List<Refusal> out = new ArrayList<>();
    synchronized (m) {
      for (Refusal r : m.values()) {
        if (r.lastMillis >= since) {
          out.add(new Refusal(r.peer, r.reason, r.count, r.lastMillis));
        }
      }
    }
    return out;
  }

  private static Map<String, Refusal> recentFirst() {
    return new LinkedHashMap<>() {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, Refusal> eldest) {
        return size() > MAX_PEERS;
      }
    };
  }
}
