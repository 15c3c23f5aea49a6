package org.wideec.placement;

import java.util.List;

/**
 * How many units of one block group a rack may hold, when HDFS describes the group only by its real unit count
 * ({@code verifyBlockPlacement(locations, realTotalBlockNum)} is not told the block or its policy). A group of
 * policy (k, m) has m parities and 1..k real data units, so only policies with m < units <= k + m can be meant.
 * Among those, the cap is the loosest plan of ours: a correctly placed group of ours is never called misplaced
 * (which would make the NameNode move its units); when a stock policy could also be meant, the caller accepts
 * the group if either our cap or the stock check is satisfied.
 *
 * @param ours some policy of ours can be meant; {@code cap} is then the most units per rack any of them allows
 * @param stock some stock policy can be meant
 */
public record GroupCap(boolean ours, boolean stock, int cap) {
  /** One enabled policy: its codec and HDFS's (k, m). */
  public record Shape(String codec, int k, int m) {}

  public static GroupCap of(List<Shape> enabled, int units, String scheme) {
    boolean ours = false;
    boolean stock = false;
    int cap = 0;
    for (Shape s : enabled) {
      if (units <= s.m() || units > s.k() + s.m()) {
        continue;
      }
      PlacementPlan plan;
      try {
        plan = StripedPlacement.planFor(s.codec(), s.k(), s.m(), scheme);
      } catch (RuntimeException e) {
        continue; // an unbuildable policy of ours places nothing by plan (reported by the NameNode plugin)
      }
      if (plan == null) {
        stock = true;
      } else {
        ours = true;
        cap = Math.max(cap, plan.maxUnitsPerRack());
      }
    }
    return new GroupCap(ours, stock, cap);
  }
}
