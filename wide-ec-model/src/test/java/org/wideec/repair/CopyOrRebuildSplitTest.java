package org.wideec.repair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The near-linear copy-or-rebuild search against the quadratic one it replaced, on random layouts: never slower by the
 * predicted time, and where they differ, counted.
 */
class CopyOrRebuildSplitTest {
  @Test
  void theNearLinearSearchIsNeverSlowerThanTheQuadraticOneOnRandomLayouts() {
    int better = 0;
    int same = 0;
    int worse = 0;
    StringBuilder worst = new StringBuilder();
    for (long seed = 0; seed < 300; seed++) {
      int units = 2 + (int) (seed % 7) * 11; // 2 .. 68: below and above the exchange search's 64
      RandomLeavingLayout layout = RandomLeavingLayout.of(seed, units);
      for (RepairScheme scheme : List.of(RepairScheme.PIPELINED, RepairScheme.RACK_AGGREGATED)) {
        List<CopyOrRebuildSplit.Ways> ways = layout.ways(scheme);
        RackLinkLoad none = new RackLinkLoad(RackLinkLoad.Links.FULL_DUPLEX);
        CopyOrRebuildSplit.Split fast = CopyOrRebuildSplit.fastest(ways, none, layout.rates());
        CopyOrRebuildSplit.Split old = ExchangeSplitSearch.fastest(ways, none, layout.rates());
        assertEquals(CopyOrRebuildSplit.loadOf(ways, fast.copy(), none).toString(), fast.load().toString());
        double a = fast.seconds(layout.rates());
        double b = old.seconds(layout.rates());
        if (a < b) {
          better++;
        } else if (a == b) {
          same++;
        } else {
          worse++;
          worst.append("seed ").append(seed).append(' ').append(scheme).append(": ").append(a).append(" s against ")
              .append(b).append(" s\n");
        }
      }
    }
    assertEquals(0, worse, worst.toString());
    // Up to 68 units its queue of changes is never cut short, so it takes the quadratic search's changes in its order.
    assertEquals(0, better);
    assertEquals(600, same);
  }
}
