package org.wideec.placement;

import java.util.Arrays;
import org.wideec.code.LinearCode;
import org.wideec.code.LocalGroup;

/**
 * UniLRC's placement (UniLRC §3.1, §4.1): one local group per rack (cluster), so a single-unit repair never
 * crosses a rack; with t > 1 (the §3.3 relaxation "one local group, t clusters") each group is split evenly
 * over t racks and a repair crosses t - 1 of them. Units outside every local group share one extra rack.
 * The plan is rejected when a rack's loss is not decodable (e.g. an Azure-LRC group in one rack).
 */
public final class GroupPerRackPlanner implements PlacementPlanner {
  private final int t;

  public GroupPerRackPlanner(int t) {
    if (t < 1) {
      throw new PlacementException("racks per local group t must be at least 1, got " + t);
    }
    this.t = t;
  }

  @Override
  public String name() {
    return t == 1 ? "unilrc" : "unilrc-t" + t;
  }

  @Override
  public PlacementPlan plan(LinearCode code) {
    if (code.localGroups().isEmpty()) {
      throw new PlacementException(code.spec() + " has no local groups to place one per rack");
    }
    int[] rack = new int[code.n()];
    Arrays.fill(rack, -1);
    int next = 0;
    for (LocalGroup g : code.localGroups()) {
      int[] members = Arrays.stream(g.members()).filter(u -> rack[u] < 0).toArray();
      if (members.length == 0) {
        continue;
      }
      int parts = Math.min(t, members.length);
      for (int i = 0; i < members.length; i++) {
        rack[members[i]] = next + (int) ((long) i * parts / members.length);
      }
      next += parts;
    }
    for (int u = 0; u < rack.length; u++) {
      if (rack[u] < 0) {
        rack[u] = next;
      }
    }
    return PlacementPlanner.requireRackTolerant(new PlacementPlan(name(), code, rack));
  }
}
