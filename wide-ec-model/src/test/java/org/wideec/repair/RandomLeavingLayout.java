package org.wideec.repair;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.topology.Site;

/**
 * A random decommission: one leaving node holding one unit of each of many stripes (Azure-LRC 6+2+2 and 12+2+2,
 * RS-6-3), their other units on distinct nodes, half the stripes with each local group packed in one rack and half
 * spread at random, at random link rates. What the tests and the benchmark of the copy-or-rebuild search plan over, so
 * both see the same layouts from the same seed. Pure.
 *
 * @param leaving the one leaving node's name
 * @param stripes one stripe per leaving unit
 * @param candidates every node but the leaving one
 * @param rates the NICs' and rack links' speeds
 */
public record RandomLeavingLayout(String leaving, List<DecommissionPlanner.LeavingStripe> stripes,
    List<Site> candidates, LinkRates rates) {
  private static final LinearCode[] CODES = {Codes.fromSpec("azure-lrc:k=6,l=2,g=2"),
      Codes.fromSpec("azure-lrc:k=12,l=2,g=2"), Codes.fromSpec("rs:k=6,m=3")};
  private static final double[] OVERSUBSCRIPTION = {0.1, 0.2, 0.5, 1, 2};

  /**
   * @param seed the layout's seed
   * @param units how many units the leaving node holds
   */
  public static RandomLeavingLayout of(long seed, int units) {
    Random r = new Random(seed);
    int racks = 4 + r.nextInt(4);
    int perRack = 8 + r.nextInt(6);
    List<List<Site>> byRack = new ArrayList<>();
    List<Site> all = new ArrayList<>();
    for (int k = 0; k < racks; k++) {
      List<Site> rack = new ArrayList<>();
      for (int i = 0; i < perRack; i++) {
        rack.add(new Site("r" + k + "n" + i, "/r" + k));
      }
      byRack.add(rack);
      all.addAll(rack);
    }
    Site leaving = all.get(0);
    List<DecommissionPlanner.LeavingStripe> stripes = new ArrayList<>();
    for (int s = 0; s < units; s++) {
      LinearCode code = CODES[r.nextInt(CODES.length)];
      int onLeaving = r.nextInt(code.n());
      Map<Integer, UnitLocation> at = new HashMap<>();
      List<Site> free = new ArrayList<>(all);
      free.remove(leaving);
      boolean packed = r.nextBoolean() && code.localGroups().size() > 1;
      for (int u = 0; u < code.n(); u++) {
        if (u == onLeaving) {
          at.put(u, new UnitLocation(u, leaving));
          continue;
        }
        List<Site> from = free;
        if (packed) {
          // The unit's first local group decides its rack, a rack per group (group g in rack g mod racks).
          int g = 0;
          for (int i = 0; i < code.localGroups().size(); i++) {
            if (code.localGroups().get(i).contains(u)) {
              g = i;
              break;
            }
          }
          String rack = "/r" + (g % racks);
          List<Site> inRack = free.stream().filter(x -> x.rack().equals(rack)).toList();
          from = inRack.isEmpty() ? free : inRack;
        }
        Site x = from.get(r.nextInt(from.size()));
        free.remove(x);
        at.put(u, new UnitLocation(u, x));
      }
      long[] lengths = new long[code.n()];
      Arrays.fill(lengths, 1000L * (1 + r.nextInt(4)));
      stripes.add(new DecommissionPlanner.LeavingStripe("s" + s, code, at, Set.of(), lengths, code.n()));
    }
    double node = 1000.0 * (1 + r.nextInt(10));
    LinkRates rates = new LinkRates(node, node * OVERSUBSCRIPTION[r.nextInt(OVERSUBSCRIPTION.length)]);
    List<Site> candidates = all.stream().filter(x -> !x.equals(leaving)).toList();
    return new RandomLeavingLayout(leaving.node(), stripes, candidates, rates);
  }

  /** The units' two ways as a planner with this layout's rates priced them. */
  public List<CopyOrRebuildSplit.Ways> ways(RepairScheme scheme) {
    DecommissionPlan p = new DecommissionPlanner(scheme, RackLinkLoad.Links.FULL_DUPLEX, rates)
        .plan(Set.of(leaving), stripes, candidates);
    return p.rebuilds().stream().map(x -> x.fromLeavingNode() ? new CopyOrRebuildSplit.Ways(x.flows(), x.otherWay())
        : new CopyOrRebuildSplit.Ways(x.otherWay(), x.flows())).toList();
  }
}
