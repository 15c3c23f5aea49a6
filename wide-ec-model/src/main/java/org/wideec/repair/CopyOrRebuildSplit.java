package org.wideec.repair;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The split of a decommission's units into copies from the leaving node and rebuilds by the other units with the
 * shortest time under the link model: the busiest link's seconds, then the next busiest's, and so on ({@link
 * RackLinkLoad#compareSeconds}). A local search over single changes of way, in near-linear time: a change touches only
 * the few links of the unit's two ways, so it is priced against the whole load by those links alone (the sorted link
 * times of two loads that differ in a few links first differ at the largest time the change adds or removes), and the
 * changes are tried best first from a queue keyed by that price, each priced again against the load of the moment
 * before it is taken and queued again when no longer the best (lazy greedy; at most 16 n log2 n + 64 times a
 * round, after which a change that still shortens the time is taken as it comes). A round ends when the queue is
 * empty; the next prices every unit afresh, until a round changes nothing (a local optimum: no single change shortens
 * the time) or {@code 2 + log2 n} rounds. Plans of at most {@link #MAX_UNITS_FOR_SWAPS} units also try a copy and a
 * rebuild exchanging ways. The quadratic search it replaced (ExchangeSplitSearch, in the model's tests) is kept as the
 * reference it is tested and measured against. Pure.
 */
public final class CopyOrRebuildSplit {
  /** Up to this many units a plan also tries exchanges of a copy and a rebuild (quadratic in the units). */
  static final int MAX_UNITS_FOR_SWAPS = 64;

  /**
   * A unit's two ways off its leaving node.
   *
   * @param copy what copying it from the leaving node puts on the links
   * @param rebuild what rebuilding it from the other units puts on them; null when they cannot
   */
  public record Ways(RackLinkLoad copy, RackLinkLoad rebuild) {
    public Ways {
      if (copy == null) {
        throw new IllegalArgumentException("every unit leaving can be copied from its leaving node");
      }
    }
  }

  /**
   * A split and its load.
   *
   * @param copy per unit, whether it is copied
   * @param load what the split puts on the links, the load in flight included
   */
  public record Split(boolean[] copy, RackLinkLoad load) {
    public double seconds(LinkRates rates) {
      return load.seconds(rates);
    }

    public long copies() {
      long n = 0;
      for (boolean c : copy) {
        n += c ? 1 : 0;
      }
      return n;
    }
  }

  private CopyOrRebuildSplit() {}

  /** The load of a split: the load in flight plus each unit's chosen way. */
  static RackLinkLoad loadOf(List<Ways> units, boolean[] copy, RackLinkLoad inFlight) {
    RackLinkLoad load = inFlight.copy();
    for (int i = 0; i < copy.length; i++) {
      load.add(copy[i] ? units.get(i).copy() : units.get(i).rebuild(), 1);
    }
    return load;
  }

  /**
   * @param units each unit's two ways
   * @param inFlight what work under way already puts on the links
   * @param rates the links' speeds
   */
  public static Split fastest(List<Ways> units, RackLinkLoad inFlight, LinkRates rates) {
    return new Search(units, inFlight, rates).run();
  }

  /** The links indexed once, each unit's ways as (link, bytes) arrays, and the load as one array. */
  private static final class Search {
    private final List<Ways> units;
    private final RackLinkLoad inFlight;
    private final double[] rate;
    private final long[] load;
    /** Per unit: links and bytes of its copy [0] and its rebuild [1] (null when it cannot be rebuilt). */
    private final int[][][] links;
    private final long[][][] bytes;
    private final boolean[] copy;
    /** Per unit, the version its queued price was computed at; a change of way bumps it. */
    private final int[] version;
    /** Scratch of {@link #price}: each link's place among those a change touches (-1: none), and those links. */
    private final int[] slot;
    private final int[] link;
    private final long[] delta;

    Search(List<Ways> units, RackLinkLoad inFlight, LinkRates rates) {
      this.units = units;
      this.inFlight = inFlight;
      Map<String, Integer> index = new HashMap<>();
      List<Double> rates0 = new ArrayList<>();
      int n = units.size();
      links = new int[n][2][];
      bytes = new long[n][2][];
      copy = new boolean[n];
      version = new int[n];
      for (int i = 0; i < n; i++) {
        Ways w = units.get(i);
        copy[i] = w.rebuild() == null;
        for (int way = 0; way < 2; way++) {
          RackLinkLoad f = way == 0 ? w.copy() : w.rebuild();
          if (f == null) {
            continue;
          }
          List<int[]> at = new ArrayList<>();
          List<Long> b = new ArrayList<>();
          for (int side = 0; side < 2; side++) {
            Map<String, Long> m = side == 0 ? f.bytes() : f.nodeBytes();
            for (Map.Entry<String, Long> e : m.entrySet()) {
              String key = (side == 0 ? "r " : "n ") + e.getKey();
              Integer j = index.get(key);
              if (j == null) {
                j = index.size();
                index.put(key, j);
                rates0.add(side == 0 ? rates.rackBytesPerSecond() : rates.nodeBytesPerSecond());
              }
              at.add(new int[] {j});
              b.add(e.getValue());
            }
          }
          links[i][way] = at.stream().mapToInt(a -> a[0]).toArray();
          bytes[i][way] = b.stream().mapToLong(Long::longValue).toArray();
        }
      }
      for (int side = 0; side < 2; side++) {
        Map<String, Long> m = side == 0 ? inFlight.bytes() : inFlight.nodeBytes();
        for (String link : m.keySet()) {
          String key = (side == 0 ? "r " : "n ") + link;
          if (!index.containsKey(key)) {
            index.put(key, index.size());
            rates0.add(side == 0 ? rates.rackBytesPerSecond() : rates.nodeBytesPerSecond());
          }
        }
      }
      rate = rates0.stream().mapToDouble(Double::doubleValue).toArray();
      load = new long[rate.length];
      slot = new int[rate.length];
      Arrays.fill(slot, -1);
      int most = 0;
      for (int i = 0; i < n; i++) {
        most = Math.max(most, links[i][0].length + (links[i][1] == null ? 0 : links[i][1].length));
      }
      link = new int[2 * most];
      delta = new long[2 * most];
      for (int side = 0; side < 2; side++) {
        Map<String, Long> m = side == 0 ? inFlight.bytes() : inFlight.nodeBytes();
        for (Map.Entry<String, Long> e : m.entrySet()) {
          load[index.get((side == 0 ? "r " : "n ") + e.getKey())] += e.getValue();
        }
      }
      for (int i = 0; i < n; i++) {
        apply(i, copy[i] ? 0 : 1, 1);
      }
    }

    private void apply(int unit, int way, int sign) {
      int[] l = links[unit][way];
      long[] b = bytes[unit][way];
      for (int x = 0; x < l.length; x++) {
        load[l[x]] += sign * b[x];
      }
    }

    Split run() {
      int n = units.size();
      int rounds = 2 + 32 - Integer.numberOfLeadingZeros(Math.max(1, n));
      for (int round = 0; round < rounds; round++) {
        boolean changed = round(n);
        if (!changed && n <= MAX_UNITS_FOR_SWAPS) {
          changed = bestSwap(n);
        }
        if (!changed) {
          break;
        }
      }
      return new Split(copy.clone(), loadOf(units, copy, inFlight));
    }

    /** One round of lazy greedy single changes; whether any was taken. */
    private boolean round(int n) {
      PriorityQueue<Queued> queue = new PriorityQueue<>((a, b) -> {
        int c = Price.compare(a.price, b.price);
        return c != 0 ? c : Integer.compare(a.unit, b.unit);
      });
      for (int i = 0; i < n; i++) {
        if (links[i][1] != null) {
          Price p = price(i);
          if (p.improves()) {
            queue.add(new Queued(i, version[i], p));
          }
        }
      }
      boolean changed = false;
      // Re-queued changes at most, log n per unit: where every change's price moves with each one taken (they all
      // load the leaving node's NIC), best first exactly would price every unit again after each, n^2 in all.
      int requeues = 16 * n * (32 - Integer.numberOfLeadingZeros(n)) + 64;
      while (!queue.isEmpty()) {
        Queued q = queue.poll();
        if (q.version != version[q.unit]) {
          continue;
        }
        Price now = price(q.unit);
        if (!now.improves()) {
          continue;
        }
        Queued next = queue.peek();
        if (next != null && requeues > 0 && Price.compare(now, next.price) > 0) {
          requeues--;
          queue.add(new Queued(q.unit, version[q.unit], now)); // no longer the best: its turn comes again
          continue;
        }
        flip(q.unit);
        changed = true;
      }
      return changed;
    }

    private void flip(int unit) {
      int from = copy[unit] ? 0 : 1;
      apply(unit, from, -1);
      apply(unit, 1 - from, 1);
      copy[unit] = !copy[unit];
      version[unit]++;
    }

    /** The exchange of ways of a copy and a rebuild that shortens the time most; whether one did. */
    private boolean bestSwap(int n) {
      int[] best = null;
      Price bestPrice = Price.NONE;
      for (int i = 0; i < n; i++) {
        if (!copy[i] || links[i][1] == null) {
          continue;
        }
        for (int j = 0; j < n; j++) {
          if (copy[j] || links[j][1] == null) {
            continue;
          }
          Price p = price(i, j);
          if (Price.compare(p, bestPrice) < 0) {
            best = new int[] {i, j};
            bestPrice = p;
          }
        }
      }
      if (best == null) {
        return false;
      }
      flip(best[0]);
      flip(best[1]);
      return true;
    }

    /** What changing the way of these units does to the load's link times. */
    private Price price(int... changed) {
      int touched = 0;
      for (int u : changed) {
        int from = copy[u] ? 0 : 1;
        for (int way = 0; way < 2; way++) {
          int[] l = links[u][way];
          long[] b = bytes[u][way];
          long sign = way == from ? -1 : 1;
          for (int x = 0; x < l.length; x++) {
            int j = l[x];
            if (slot[j] < 0) {
              slot[j] = touched;
              link[touched] = j;
              delta[touched++] = 0;
            }
            delta[slot[j]] += sign * b[x];
          }
        }
      }
      double[] before = new double[touched];
      double[] after = new double[touched];
      for (int x = 0; x < touched; x++) {
        int j = link[x];
        before[x] = load[j] / rate[j];
        after[x] = (load[j] + delta[x]) / rate[j];
        slot[j] = -1;
      }
      return Price.of(before, after);
    }
  }

  private record Queued(int unit, int version, Price price) {}

  /**
   * A change's effect on the multiset of link times: the times it adds (+1) and removes (-1), equal ones cancelled,
   * largest first. Two loads that differ only in some links compare, busiest link first, as their changes do: the
   * first difference of their sorted times is at the largest time one change has more of than the other.
   */
  static final class Price {
    static final Price NONE = new Price(new double[0], new int[0]);
    private final double[] times;
    private final int[] counts;

    private Price(double[] times, int[] counts) {
      this.times = times;
      this.counts = counts;
    }

    static Price of(double[] before, double[] after) {
      double[] b = before.clone();
      double[] a = after.clone();
      Arrays.sort(b);
      Arrays.sort(a);
      double[] times = new double[a.length + b.length];
      int[] counts = new int[times.length];
      int n = 0;
      int i = a.length - 1;
      int j = b.length - 1;
      while (i >= 0 || j >= 0) {
        double t = Math.max(i >= 0 ? a[i] : Double.NEGATIVE_INFINITY, j >= 0 ? b[j] : Double.NEGATIVE_INFINITY);
        int c = 0;
        while (i >= 0 && a[i] == t) {
          c++;
          i--;
        }
        while (j >= 0 && b[j] == t) {
          c--;
          j--;
        }
        if (c != 0 && t != 0) { // an idle link is no link
          times[n] = t;
          counts[n++] = c;
        }
      }
      return new Price(Arrays.copyOf(times, n), Arrays.copyOf(counts, n));
    }

    /** Whether the change shortens the time (or, the busiest links alike, the next busiest's). */
    boolean improves() {
      return counts.length > 0 && counts[0] < 0;
    }

    /** Negative when the load after change {@code a} is the shorter. */
    static int compare(Price a, Price b) {
      int i = 0;
      int j = 0;
      while (i < a.times.length || j < b.times.length) {
        double ta = i < a.times.length ? a.times[i] : Double.NEGATIVE_INFINITY;
        double tb = j < b.times.length ? b.times[j] : Double.NEGATIVE_INFINITY;
        if (ta > tb) {
          return Integer.compare(a.counts[i], 0);
        }
        if (tb > ta) {
          return Integer.compare(0, b.counts[j]);
        }
        if (a.counts[i] != b.counts[j]) {
          return Integer.compare(a.counts[i], b.counts[j]);
        }
        i++;
        j++;
      }
      return 0;
    }
  }
}
