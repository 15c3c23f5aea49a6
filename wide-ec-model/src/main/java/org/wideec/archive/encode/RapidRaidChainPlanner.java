package org.wideec.archive.encode;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.wideec.code.LinearCode;
import org.wideec.topology.Site;

/**
 * Chooses RapidRAID's chain from where an object's replicas already are: n distinct live nodes, one per
 * position, such that position i's node holds the pieces position i reads (RapidRaidPipeline#piecesAt).
 *
 * <p>Objectives, in order: (0) no position on a node the caller barred it from, when some chain can do without;
 * (1) the fewest moves (a move copies one piece's replica onto a chain node), exact: an
 * assignment problem of positions to nodes, costed by the pieces a node lacks, solved by the Hungarian method; (2)
 * among chains with that many moves, codewords spread so that losing any one rack leaves a decodable set (checked
 * with the code's exact decodability: RapidRAID is not MDS unless k >= n-3); (3) the fewest hops of the chain that
 * cross racks (a rack's positions adjacent). (2) and (3) are sought by a seeded local search (swap two positions'
 * nodes, or give a position an unused node) that never adds a move; the chain reports exactly what it achieved.
 */
public final class RapidRaidChainPlanner {
  static final int RESTARTS = 24;

  private final LinearCode code;
  private final int n;
  private final int k;
  private final List<Site> nodes;
  /** nodes x pieces: whether a live replica of the piece is on the node. */
  private final boolean[][] holds;
  private final int[][] cost;
  private final Map<String, Integer> rackIds = new LinkedHashMap<>();
  private final int[] rackOf;
  private final Map<BitSet, Boolean> decodable = new HashMap<>();

  private RapidRaidChainPlanner(LinearCode code, List<Site> nodes, boolean[][] holds, Map<Integer, Set<String>> barred) {
    this.code = code;
    this.n = code.n();
    this.k = code.k();
    this.nodes = nodes;
    this.holds = holds;
    this.rackOf = new int[nodes.size()];
    for (int v = 0; v < nodes.size(); v++) {
      rackOf[v] = rackIds.computeIfAbsent(nodes.get(v).rack(), r -> rackIds.size());
    }
    this.cost = new int[n][nodes.size()];
    for (int i = 0; i < n; i++) {
      for (int v = 0; v < nodes.size(); v++) {
        for (int j : RapidRaidPipeline.piecesAt(n, k, i)) {
          cost[i][v] += holds[v][j] ? 0 : 1;
        }
        // Dearer than every move of a whole chain: taken only when no chain avoids it.
        if (barred.getOrDefault(i, Set.of()).contains(nodes.get(v).node())) {
          cost[i][v] += n * k + 1;
        }
      }
    }
  }

  /**
   * @param replicas piece (0..k-1) to the sites of its replicas (dead ones are ignored)
   * @param live the live nodes a chain may use
   * @throws IllegalArgumentException naming the object and the piece or the shortfall: a piece with no live replica,
   *     fewer live nodes than positions
   */
  public static RapidRaidChain plan(String object, LinearCode code, Map<Integer, List<Site>> replicas, List<Site> live) {
    return plan(object, code, replicas, live, Map.of());
  }

  /**
   * As {@link #plan(String, LinearCode, Map, List)}, keeping each position off the nodes {@code barred} names for it
   * whenever some chain can (a copy the position needs on that node has no source, say), at any number of moves; a
   * position takes a barred node only when every chain needs one.
   *
   * @param barred position to the nodes it should not take
   */
  public static RapidRaidChain plan(String object, LinearCode code, Map<Integer, List<Site>> replicas, List<Site> live,
      Map<Integer, Set<String>> barred) {
    RapidRaidPipeline.of(code); // refuses a code that is not a RapidRAID pipeline
    Map<String, Site> byNode = new LinkedHashMap<>();
    live.stream().sorted(Comparator.comparing(Site::rack).thenComparing(Site::node))
        .forEach(s -> byNode.putIfAbsent(s.node(), s));
    List<Site> nodes = new ArrayList<>(byNode.values());
    if (nodes.size() < code.n()) {
      throw new IllegalArgumentException(object + ": " + code.spec() + " needs " + code.n() + " distinct live nodes for "
          + "its chain, only " + nodes.size() + " are live");
    }
    Map<String, Integer> index = new HashMap<>();
    for (int v = 0; v < nodes.size(); v++) {
      index.put(nodes.get(v).node(), v);
    }
    boolean[][] holds = new boolean[nodes.size()][code.k()];
    for (int j = 0; j < code.k(); j++) {
      boolean any = false;
      for (Site s : replicas.getOrDefault(j, List.of())) {
        Integer v = index.get(s.node());
        if (v != null) {
          holds[v][j] = true;
          any = true;
        }
      }
      if (!any) {
        throw new IllegalArgumentException(object + ": piece " + j + " has no replica on a live node (replicas "
            + replicas.getOrDefault(j, List.of()) + "); it cannot be archived");
      }
    }
    for (int j : replicas.keySet()) {
      if (j < 0 || j >= code.k()) {
        throw new IllegalArgumentException(object + ": replicas named for piece " + j + "; " + code.spec()
            + " has pieces 0.." + (code.k() - 1));
      }
    }
    return new RapidRaidChainPlanner(code, nodes, holds, barred).solve();
  }

  private RapidRaidChain solve() {
    int[] best = hungarian();
    long[] bestScore = score(best);
    Random rnd = new Random(0x4a91d);
    for (int r = 0; r < RESTARTS && (bestScore[1] > 0 || bestScore[2] > racks(best) - 1); r++) {
      int[] a = best.clone();
      if (r > 0) {
        perturb(a, rnd);
      }
      a = descend(a);
      long[] s = score(a);
      if (less(s, bestScore)) {
        best = a;
        bestScore = s;
      }
    }
    List<Site> sites = Arrays.stream(best).mapToObj(nodes::get).toList();
    return new RapidRaidChain(sites, moves(best), bestScore[1] == 0, (int) bestScore[2]);
  }

  /** (racks whose loss is not decodable, moves, cross-rack hops) of an assignment, only moves-preserving changes. */
  private long[] score(int[] a) {
    int moves = 0;
    for (int i = 0; i < n; i++) {
      moves += cost[i][a[i]];
    }
    int hops = 0;
    for (int i = 0; i + 1 < n; i++) {
      hops += rackOf[a[i]] == rackOf[a[i + 1]] ? 0 : 1;
    }
    Map<Integer, BitSet> lost = new HashMap<>();
    for (int i = 0; i < n; i++) {
      lost.computeIfAbsent(rackOf[a[i]], r -> new BitSet()).set(i);
    }
    int bad = 0;
    for (BitSet erased : lost.values()) {
      bad += decodable.computeIfAbsent(erased, e -> code.isDecodable(e.stream().toArray())) ? 0 : 1;
    }
    // Moves first: ordered (moves, bad racks, hops) so that no search step trades a copy for spread.
    return new long[] {moves - minMoves(), bad, hops};
  }

  private int minMoves = -1;

  private int minMoves() {
    if (minMoves < 0) {
      int[] a = hungarian();
      int m = 0;
      for (int i = 0; i < n; i++) {
        m += cost[i][a[i]];
      }
      minMoves = m;
    }
    return minMoves;
  }

  /** Racks an assignment uses: a chain crosses racks at least one fewer times. */
  private int racks(int[] a) {
    return (int) Arrays.stream(a).map(v -> rackOf[v]).distinct().count();
  }

  private static boolean less(long[] a, long[] b) {
    for (int i = 0; i < a.length; i++) {
      if (a[i] != b[i]) {
        return a[i] < b[i];
      }
    }
    return false;
  }

  /** First improvement over swaps of two positions and replacements by an unused node, until none improves. */
  private int[] descend(int[] a) {
    long[] cur = score(a);
    boolean improved = true;
    while (improved) {
      improved = false;
      Set<Integer> used = Arrays.stream(a).boxed().collect(Collectors.toSet());
      for (int i = 0; i < n && !improved; i++) {
        for (int j = i + 1; j < n && !improved; j++) {
          swap(a, i, j);
          long[] s = score(a);
          if (less(s, cur)) {
            cur = s;
            improved = true;
          } else {
            swap(a, i, j);
          }
        }
        for (int v = 0; v < nodes.size() && !improved; v++) {
          if (used.contains(v)) {
            continue;
          }
          int was = a[i];
          a[i] = v;
          long[] s = score(a);
          if (less(s, cur)) {
            cur = s;
            improved = true;
          } else {
            a[i] = was;
          }
        }
      }
    }
    return a;
  }

  /** A few random swaps among positions whose nodes cost the same for both (moves unchanged). */
  private void perturb(int[] a, Random rnd) {
    for (int t = 0; t < n; t++) {
      int i = rnd.nextInt(n);
      int j = rnd.nextInt(n);
      if (cost[i][a[j]] + cost[j][a[i]] == cost[i][a[i]] + cost[j][a[j]]) {
        swap(a, i, j);
      }
    }
  }

  private static void swap(int[] a, int i, int j) {
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
  }

  /** The copies an assignment needs: each piece a position's node lacks, from a replica in its rack when one is. */
  private List<RapidRaidChain.Move> moves(int[] a) {
    List<RapidRaidChain.Move> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Site to = nodes.get(a[i]);
      for (int j : RapidRaidPipeline.piecesAt(n, k, i)) {
        if (holds[a[i]][j]) {
          continue;
        }
        Site from = null;
        for (int v = 0; v < nodes.size(); v++) {
          if (holds[v][j] && (from == null || (!from.sameRack(to) && nodes.get(v).sameRack(to)))) {
            from = nodes.get(v);
          }
        }
        out.add(new RapidRaidChain.Move(j, from, to));
      }
    }
    return out;
  }

  /**
   * Positions to nodes at the least total cost (Hungarian method with potentials, rows = positions, columns =
   * nodes, n <= nodes): each phase adds one position along a shortest augmenting path in reduced costs.
   */
  private int[] hungarian() {
    int m = nodes.size();
    long inf = Long.MAX_VALUE / 4;
    long[] u = new long[n + 1];
    long[] v = new long[m + 1];
    int[] p = new int[m + 1];
    int[] way = new int[m + 1];
    for (int i = 1; i <= n; i++) {
      p[0] = i;
      int j0 = 0;
      long[] minv = new long[m + 1];
      Arrays.fill(minv, inf);
      boolean[] used = new boolean[m + 1];
      do {
        used[j0] = true;
        int i0 = p[j0];
        long delta = inf;
        int j1 = 0;
        for (int j = 1; j <= m; j++) {
          if (!used[j]) {
            long cur = cost[i0 - 1][j - 1] - u[i0] - v[j];
            if (cur < minv[j]) {
              minv[j] = cur;
              way[j] = j0;
            }
            if (minv[j] < delta) {
              delta = minv[j];
              j1 = j;
            }
          }
        }
        for (int j = 0; j <= m; j++) {
          if (used[j]) {
            u[p[j]] += delta;
            v[j] -= delta;
          } else {
            minv[j] -= delta;
          }
        }
        j0 = j1;
      } while (p[j0] != 0);
      do {
        int j1 = way[j0];
        p[j0] = p[j1];
        j0 = j1;
      } while (j0 != 0);
    }
    int[] a = new int[n];
    for (int j = 1; j <= m; j++) {
      if (p[j] != 0) {
        a[p[j] - 1] = j - 1;
      }
    }
    return a;
  }
}
