package org.wideec.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.wideec.transport.RefusalReason;
import org.wideec.transport.RefusedHandshakes;

/**
 * Which DataNodes' cluster secrets disagree with their peers', read from every DataNode's worker bean: the handshakes
 * its slice port refused, and those of its own that peers refused, in the last ten minutes. A DataNode with a
 * secret of its own conflicts with every peer it talked to, and each of those only with it; so a DataNode is named
 * when it conflicts with at least as many DataNodes as any DataNode it conflicts with. Two DataNodes that refused
 * only each other are both named: nothing tells which of them is wrong. Nothing shows before DataNodes talk (a
 * repair, an archived read, an encode): a DataNode no peer has dialled yet cannot have been refused.
 */
final class SecretMismatch {
  static final String MINUTES = RefusedHandshakes.RECENT_MS / 60_000 + " minutes";
  private static final String WRONG = RefusalReason.WRONG_SECRET.toString();
  /** Per DataNode, the peers it conflicts with over a wrong secret (refused by it, or refusing it). */
  private final Map<String, Set<String>> conflicts = new TreeMap<>();
  private final Map<String, JsonNode> beans;

  private SecretMismatch(Map<String, JsonNode> beans) {
    this.beans = beans;
    beans.forEach((node, bean) -> {
      Set<String> peers = new TreeSet<>();
      for (String attribute : new String[] {"RefusedHandshakes", "HandshakesRefusedByPeers"}) {
        for (JsonNode r : bean.path(attribute)) {
          if (WRONG.equals(r.path("reason").asText())) {
            peers.add(r.path("peer").asText());
          }
        }
      }
      conflicts.put(node, peers);
    });
  }

  /** @param beans each DataNode's worker bean, by transfer address (DataNodes without one left out) */
  static SecretMismatch of(Map<String, JsonNode> beans) {
    return new SecretMismatch(beans);
  }

  /** Whether this DataNode's secret disagrees with its peers' (see the class comment). */
  boolean named(String node) {
    Set<String> mine = conflicts.getOrDefault(node, Set.of());
    return !mine.isEmpty() && mine.stream().allMatch(p -> conflicts.getOrDefault(p, Set.of()).size() <= mine.size());
  }

  /** The DataNodes this one conflicts with over a wrong secret. */
  Set<String> conflicts(String node) {
    return conflicts.getOrDefault(node, Set.of());
  }

  /** check-cluster's line for a named DataNode. */
  String problem(String node) {
    Set<String> peers = conflicts(node);
    return node + ": its wide-ec.transport.secret does not match its peers': " + peers.size() + " DataNode"
        + (peers.size() == 1 ? "" : "s") + " " + peers + " refused its handshakes or were refused by it for a wrong"
        + " secret in the last " + MINUTES + "; set the same wide-ec.transport.secret on every DataNode";
  }

  /**
   * What `wide-ec nodes` prints under its table for a DataNode: the peers it refused and the peers that refused it,
   * with reasons and counts, and whether its secret is named as the odd one.
   */
  List<String> lines(String node) {
    List<String> out = new ArrayList<>();
    JsonNode bean = beans.get(node);
    if (bean == null) {
      return out;
    }
    String refused = list(bean.path("RefusedHandshakes"));
    if (!refused.isEmpty()) {
      out.add(node + ": refused the handshakes of " + refused + " in the last " + MINUTES);
    }
    String refusedBy = list(bean.path("HandshakesRefusedByPeers"));
    if (!refusedBy.isEmpty()) {
      out.add(node + ": its own handshakes were refused by " + refusedBy + " in the last " + MINUTES);
    }
    if (named(node)) {
      out.add(node + ": SECRET MISMATCH: its wide-ec.transport.secret differs from its peers' (" + conflicts(node).size()
          + " DataNodes disagree with it); set the same secret on every DataNode");
    }
    return out;
  }

  /** "a (wrong secret, 2 times), b (no credential, 1 time)", peers in order. */
  private static String list(JsonNode refusals) {
    Map<String, String> byPeer = new TreeMap<>();
    for (JsonNode r : refusals) {
      long n = r.path("count").asLong();
      byPeer.merge(r.path("peer").asText() + "\t" + r.path("reason").asText(), r.path("peer").asText() + " ("
          + r.path("reason").asText() + ", " + n + (n == 1 ? " time)" : " times)"), (a, b) -> a);
    }
    return String.join(", ", byPeer.values());
  }
}
