package org.wideec.archive;

import java.util.Arrays;
import java.util.PriorityQueue;

/**
 * Minimum-cost flow by successive shortest paths (Dijkstra over reduced costs with Johnson potentials; edge costs
 * are never negative, so the first potentials are zero). Each augmentation follows a cheapest residual path, so
 * after sending F units the cost is the least of any flow of F (the classical invariant: no negative residual
 * cycle); the planner's matchings and rack assignments are therefore exact. Small graphs only: a few thousand
 * vertices, paths found in O(E log V).
 */
final class MinCostFlow {
  private final int vertices;
  private int[] head;
  private int[] next = new int[16];
  private int[] to = new int[16];
  private long[] capacity = new long[16];
  private long[] cost = new long[16];
  private long[] original = new long[16];
  private int edges;

  MinCostFlow(int vertices) {
    this.vertices = vertices;
    this.head = new int[vertices];
    Arrays.fill(head, -1);
  }

  /** Adds an edge and its residual twin; returns the edge's id for {@link #flow}. */
  int edge(int from, int target, long cap, long edgeCost) {
    if (edgeCost < 0) {
      throw new IllegalArgumentException("negative edge cost " + edgeCost);
    }
    int id = edges;
    add(from, target, cap, edgeCost);
    add(target, from, 0, -edgeCost);
    return id;
  }

  private void add(int from, int target, long cap, long edgeCost) {
    if (edges == to.length) {
      int n = edges * 2;
      next = Arrays.copyOf(next, n);
      to = Arrays.copyOf(to, n);
      capacity = Arrays.copyOf(capacity, n);
      cost = Arrays.copyOf(cost, n);
      original = Arrays.copyOf(original, n);
    }
    to[edges] = target;
    capacity[edges] = cap;
    original[edges] = cap;
    cost[edges] = edgeCost;
    next[edges] = head[from];
    head[from] = edges++;
  }

  /** Flow sent along an edge. */
  long flow(int edge) {
    return original[edge] - capacity[edge];
  }

  /** Flow sent and its total cost. */
  record Result(long flow, long cost) {}

  /** Sends up to {@code limit} units from source to sink at the least cost. */
  Result run(int source, int sink, long limit) {
    long[] potential = new long[vertices];
    long[] dist = new long[vertices];
    int[] via = new int[vertices];
    long sent = 0;
    long total = 0;
    while (sent < limit) {
      Arrays.fill(dist, Long.MAX_VALUE);
      Arrays.fill(via, -1);
      dist[source] = 0;
      PriorityQueue<long[]> queue = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
      queue.add(new long[] {0, source});
      while (!queue.isEmpty()) {
        long[] top = queue.poll();
        int v = (int) top[1];
        if (top[0] > dist[v]) {
          continue;
        }
        for (int e = head[v]; e >= 0; e = next[e]) {
          if (capacity[e] <= 0) {
            continue;
          }
          int w = to[e];
          long d = dist[v] + cost[e] + potential[v] - potential[w];
          if (d < dist[w]) {
            dist[w] = d;
            via[w] = e;
            queue.add(new long[] {d, w});
          }
        }
      }
      if (dist[sink] == Long.MAX_VALUE) {
        break;
      }
      for (int v = 0; v < vertices; v++) {
        if (dist[v] != Long.MAX_VALUE) {
          potential[v] += dist[v];
        }
      }
      long push = limit - sent;
      for (int v = sink; v != source; v = to[via[v] ^ 1]) {
        push = Math.min(push, capacity[via[v]]);
      }
      for (int v = sink; v != source; v = to[via[v] ^ 1]) {
        capacity[via[v]] -= push;
        capacity[via[v] ^ 1] += push;
        total += push * cost[via[v]];
      }
      sent += push;
    }
    return new Result(sent, total);
  }
}
