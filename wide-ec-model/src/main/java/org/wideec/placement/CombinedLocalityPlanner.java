package org.wideec.placement;

import java.util.ArrayList;
import java.util.List;
import org.wideec.code.LinearCode;
import org.wideec.code.LocalGroup;

/**
 * Combined locality CL (ECWide §3.4): each local group (its data units and local parity) goes into
 * ceil((r+1)/f) racks, f per rack, so a lost unit is repaired from its group's other racks only; the
 * units outside the local groups (global parities) go together, into the last partly filled rack when it
 * has room for all of them within f, else into racks of their own. f = losses the code always survives.
 */
public final class CombinedLocalityPlanner implements PlacementPlanner {
  @Override
  public String name() {
    return "cl";
  }

  @Override
  public PlacementPlan plan(LinearCode code) {
    int f = PlacementPlanner.tolerance(code);
    if (f < 1) {
      throw new PlacementException(code.spec() + " tolerates no loss; it cannot be placed with combined locality");
    }
    boolean[] placed = new boolean[code.n()];
    List<int[]> groups = new ArrayList<>();
    for (LocalGroup g : code.localGroups()) {
      int[] members = java.util.Arrays.stream(g.members()).filter(u -> !placed[u]).toArray();
      if (members.length > 0 && coversData(code, g)) {
        for (int u : members) {
          placed[u] = true;
        }
        groups.add(members);
      }
    }
    int[] rest = java.util.stream.IntStream.range(0, code.n()).filter(u -> !placed[u]).toArray();
    int[] sizes = groups.stream().mapToInt(m -> m.length).toArray();
    int[] packed = pack(sizes, rest.length, f);
    int[] rack = new int[code.n()];
    int i = 0;
    for (int[] g : groups) {
      for (int u : g) {
        rack[u] = packed[i++];
      }
    }
    for (int u : rest) {
      rack[u] = packed[i++];
    }
    return PlacementPlanner.requireRackTolerant(new PlacementPlan(name(), code, rack));
  }

  /** Local groups that repair data (not Azure-LRC+1's group of global parities). */
  private static boolean coversData(LinearCode code, LocalGroup g) {
    for (int u : g.members()) {
      if (code.role(u) == org.wideec.code.UnitRole.DATA) {
        return true;
      }
    }
    return false;
  }

  /**
   * ECWide's packing: groups of the given sizes each start a new rack and fill racks of c; then
   * {@code rest} units go into the fullest partly filled rack that can take them all within c, or into
   * new racks of c. Returns the rack of each unit, groups first, then the rest.
   */
  public static int[] pack(int[] groupSizes, int rest, int c) {
    int total = rest;
    for (int s : groupSizes) {
      total += s;
    }
    int[] rack = new int[total];
    List<Integer> fill = new ArrayList<>();
    int i = 0;
    for (int size : groupSizes) {
      for (int j = 0; j < size; j++) {
        if (j % c == 0) {
          fill.add(0);
        }
        int r = fill.size() - 1;
        rack[i++] = r;
        fill.set(r, fill.get(r) + 1);
      }
    }
    int best = -1;
    for (int r = 0; r < fill.size(); r++) {
      if (fill.get(r) + rest <= c && (best < 0 || fill.get(r) > fill.get(best))) {
        best = r;
      }
    }
    for (int j = 0; j < rest; j++) {
      if (best >= 0) {
        rack[i++] = best;
      } else {
        if (j % c == 0) {
          fill.add(0);
        }
        rack[i++] = fill.size() - 1;
      }
    }
    return rack;
  }
}
