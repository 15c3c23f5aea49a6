package org.wideec.placement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.wideec.code.LinearCode;
import org.wideec.code.LocalGroup;
import org.wideec.code.StockStripedReader;
import org.wideec.code.UnitRole;

/**
 * Makes a striped plan readable by HDFS's stock client through the loss of any one rack (DESIGN.md §2). The
 * stock reader takes the lowest-index surviving parities, so a rack may hold three data units of Azure-LRC
 * 12+2+2's first local group (the reader's third parity is L1) but at most g of the second. This keeps the
 * planner's local groups and the number of racks each spans (its cross-rack repair cost, ECWide §3.4) and
 * rearranges units within them: how many data units each rack of a group takes, which rack takes the local
 * parity, and which group racks with room take the units outside the groups (global parities). Only when no
 * such arrangement exists does a group spread over one more rack, and the plan's cost says so.
 */
public final class StockReadablePlacement {
  private static final int SPAN_WEIGHT = 1000;

  private StockReadablePlacement() {}

  /** Racks of the plan whose loss a stock client cannot read through (empty when there are none). */
  public static List<Integer> unreadableRacks(PlacementPlan plan) {
    List<Integer> out = new ArrayList<>();
    for (int r = 0; r < plan.racks(); r++) {
      if (!readable(plan.code(), plan.units(r))) {
        out.add(r);
      }
    }
    return out;
  }

  /** The plan itself when every single-rack loss is stock-readable, else the cheapest arrangement that is. */
  public static PlacementPlan of(PlacementPlan base) {
    LinearCode code = base.code();
    if (!code.isSystematic() || unreadableRacks(base).isEmpty()) {
      return base;
    }
    int cap = PlacementPlanner.tolerance(code);
    List<int[]> groups = groupsOf(code);
    int[] rest = IntStream.range(0, code.n()).filter(u -> groups.stream().noneMatch(g -> contains(g, u))).toArray();
    GroupLayouts layouts = GroupLayouts.none(1 << rest.length);
    for (int[] group : groups) {
      layouts = withGroup(code, group, rest, cap, layouts);
    }
    PlacementPlan bestPlan = cheapestWithRest(base, rest, cap, layouts);
    if (bestPlan == null) {
      throw new PlacementException(base.scheme() + " placement of " + code.spec() + ": no arrangement of its local groups"
          + " lets a stock client read through the loss of every rack");
    }
    return PlacementPlanner.requireRackTolerant(bestPlan);
  }

  /**
   * best[mask]: score of the racks holding the groups done so far plus the rest units in mask (layout: those
   * racks). A rack of a group weighs more than a rack of its own: a group's span is its repair cost.
   */
  private record GroupLayouts(int[] best, List<List<int[]>> layout) {
    /** Before any group: only the empty mask, at no score. */
    static GroupLayouts none(int subsets) {
      int[] best = new int[subsets];
      Arrays.fill(best, Integer.MAX_VALUE);
      best[0] = 0;
      List<List<int[]>> layout = new ArrayList<>(java.util.Collections.nCopies(subsets, null));
      layout.set(0, new ArrayList<>());
      return new GroupLayouts(best, layout);
    }
  }

  /** The layouts once one more local group is arranged, with each subset of the rest units not yet placed. */
  private static GroupLayouts withGroup(LinearCode code, int[] group, int[] rest, int cap, GroupLayouts done) {
    int[] best = done.best();
    List<List<int[]>> layout = done.layout();
    int subsets = best.length;
    int[] next = new int[subsets];
    Arrays.fill(next, Integer.MAX_VALUE);
    List<List<int[]>> nextLayout = new ArrayList<>(java.util.Collections.nCopies(subsets, null));
    Map<Integer, List<int[]>> arrangements = new HashMap<>();
    for (int mask = 0; mask < subsets; mask++) {
      if (best[mask] == Integer.MAX_VALUE) {
        continue;
      }
      int free = (subsets - 1) & ~mask;
      for (int extra = free; ; extra = (extra - 1) & free) {
        List<int[]> racks = arrangements.computeIfAbsent(extra, e -> arrange(code, group, pick(rest, e), cap));
        if (racks != null && best[mask] + SPAN_WEIGHT * racks.size() < next[mask | extra]) {
          next[mask | extra] = best[mask] + SPAN_WEIGHT * racks.size();
          List<int[]> l = new ArrayList<>(layout.get(mask));
          l.addAll(racks);
          nextLayout.set(mask | extra, l);
        }
        if (extra == 0) {
          break;
        }
      }
    }
    return new GroupLayouts(next, nextLayout);
  }

  /** The cheapest plan of every group's layout with the rest units it left packed into racks of their own, or null. */
  private static PlacementPlan cheapestWithRest(PlacementPlan base, int[] rest, int cap, GroupLayouts layouts) {
    int[] best = layouts.best();
    int subsets = best.length;
    PlacementPlan bestPlan = null;
    int bestScore = Integer.MAX_VALUE;
    for (int done = 0; done < subsets; done++) {
      if (best[done] == Integer.MAX_VALUE) {
        continue;
      }
      List<int[]> leftover = packRest(base.code(), pick(rest, (subsets - 1) & ~done), cap);
      if (leftover != null && best[done] + leftover.size() < bestScore) {
        List<int[]> racks = new ArrayList<>(layouts.layout().get(done));
        racks.addAll(leftover);
        bestScore = best[done] + leftover.size();
        bestPlan = toPlan(base, racks);
      }
    }
    return bestPlan;
  }

  private static boolean readable(LinearCode code, int[] rack) {
    return code.isDecodable(rack) && StockStripedReader.canReadEveryStripe(code, code.k(), rack);
  }

  /** The local groups a planner keeps together: data-covering groups, each unit in its first group only. */
  static List<int[]> groupsOf(LinearCode code) {
    boolean[] placed = new boolean[code.n()];
    List<int[]> groups = new ArrayList<>();
    for (LocalGroup g : code.localGroups()) {
      int[] members = Arrays.stream(g.members()).filter(u -> !placed[u]).toArray();
      if (members.length > 0 && Arrays.stream(g.members()).anyMatch(u -> code.role(u) == UnitRole.DATA)) {
        Arrays.stream(members).forEach(u -> placed[u] = true);
        groups.add(members);
      }
    }
    return groups;
  }

  /**
   * The racks of one local group plus some extra units, in as few racks as the cap allows (one more if none
   * works), each rack's loss stock-readable; null when no arrangement exists. Data units are interchangeable
   * for the reader's choice, so only their count per rack is searched (in unit order); every other member picks
   * its rack. Compositions are tried fullest-first, which reproduces the combined-locality packing when it works.
   */
  static List<int[]> arrange(LinearCode code, int[] group, int[] extra, int cap) {
    int[] data = Arrays.stream(group).filter(u -> code.role(u) == UnitRole.DATA).toArray();
    int[] others = concat(Arrays.stream(group).filter(u -> code.role(u) != UnitRole.DATA).toArray(), extra);
    int size = data.length + others.length;
    int minRacks = (size + cap - 1) / cap;
    for (int racks = minRacks; racks <= Math.min(size, minRacks + 1); racks++) {
      for (int[] counts : compositions(data.length, racks, cap)) {
        List<int[]> found = placeOthers(code, data, counts, others, racks, cap);
        if (found != null) {
          return found;
        }
      }
    }
    // Last resort: one unit per rack. A stock client reads through the loss of any single unit (it takes the
    // lowest surviving parity), so this always works, at the cost of the group's locality.
    List<int[]> single = new ArrayList<>();
    for (int u : concat(data, others)) {
      if (!readable(code, new int[] {u})) {
        return null;
      }
      single.add(new int[] {u});
    }
    return single;
  }

  private static List<int[]> placeOthers(LinearCode code, int[] data, int[] counts, int[] others, int racks, int cap) {
    int combos = (int) Math.pow(racks, others.length);
    for (int c = 0; c < combos; c++) {
      List<List<Integer>> content = new ArrayList<>();
      int d = 0;
      for (int r = 0; r < racks; r++) {
        List<Integer> units = new ArrayList<>();
        for (int i = 0; i < counts[r]; i++) {
          units.add(data[d++]);
        }
        content.add(units);
      }
      // Others try the last rack first: the packing puts a group's parity after its data.
      int code2 = c;
      for (int o : others) {
        content.get(racks - 1 - code2 % racks).add(o);
        code2 /= racks;
      }
      boolean ok = true;
      List<int[]> out = new ArrayList<>();
      for (List<Integer> units : content) {
        int[] rack = units.stream().mapToInt(Integer::intValue).sorted().toArray();
        ok &= rack.length > 0 && rack.length <= cap && readable(code, rack);
        out.add(rack);
      }
      if (ok) {
        return out;
      }
    }
    return null;
  }

  /** Ways to split {@code total} into {@code parts} counts of at most cap each, fullest racks first. */
  static List<int[]> compositions(int total, int parts, int cap) {
    List<int[]> out = new ArrayList<>();
    compose(new int[parts], 0, total, cap, out);
    return out;
  }

  private static void compose(int[] acc, int i, int left, int cap, List<int[]> out) {
    if (i == acc.length - 1) {
      if (left <= cap) {
        acc[i] = left;
        out.add(acc.clone());
      }
      return;
    }
    for (int c = Math.min(cap, left); c >= 0; c--) {
      acc[i] = c;
      compose(acc, i + 1, left - c, cap, out);
    }
  }

  /** Units outside every group, in racks of their own: together when that is readable, else fewer per rack. */
  private static List<int[]> packRest(LinearCode code, int[] units, int cap) {
    if (units.length == 0) {
      return List.of();
    }
    for (int per = Math.min(cap, units.length); per >= 1; per--) {
      List<int[]> racks = new ArrayList<>();
      boolean ok = true;
      for (int i = 0; i < units.length; i += per) {
        int[] rack = Arrays.copyOfRange(units, i, Math.min(units.length, i + per));
        ok &= readable(code, rack);
        racks.add(rack);
      }
      if (ok) {
        return racks;
      }
    }
    return null;
  }

  private static PlacementPlan toPlan(PlacementPlan base, List<int[]> racks) {
    int[] rackOf = new int[base.code().n()];
    for (int r = 0; r < racks.size(); r++) {
      for (int u : racks.get(r)) {
        rackOf[u] = r;
      }
    }
    return new PlacementPlan(base.scheme(), base.code(), rackOf);
  }

  private static int[] pick(int[] units, int mask) {
    return IntStream.range(0, units.length).filter(i -> (mask & (1 << i)) != 0).map(i -> units[i]).toArray();
  }

  private static int[] concat(int[] a, int[] b) {
    int[] c = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }

  private static boolean contains(int[] units, int u) {
    return Arrays.stream(units).anyMatch(x -> x == u);
  }
}
