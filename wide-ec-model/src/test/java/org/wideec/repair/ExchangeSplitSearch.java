package org.wideec.repair;

import java.util.List;

/**
 * The quadratic search for the fastest split of copies and rebuilds that {@link CopyOrRebuildSplit} replaced, kept as
 * the reference that search is tested and measured against: from rebuilding every unit the others can, the single
 * change of way that shortens the time most, priced by copying the whole load, while one does; then, where no single
 * change does, the copied and the rebuilt unit whose exchange of ways does most (plans of at most 64 units). Each step
 * prices every unit, so a plan of n units takes about n^2 load copies. Pure.
 */
public final class ExchangeSplitSearch {
  private ExchangeSplitSearch() {}

  public static CopyOrRebuildSplit.Split fastest(List<CopyOrRebuildSplit.Ways> units, RackLinkLoad inFlight,
      LinkRates rates) {
    boolean[] copy = new boolean[units.size()];
    for (int i = 0; i < copy.length; i++) {
      copy[i] = units.get(i).rebuild() == null;
    }
    RackLinkLoad load = CopyOrRebuildSplit.loadOf(units, copy, inFlight);
    while (true) {
      int best = -1;
      RackLinkLoad bestLoad = load;
      for (int i = 0; i < copy.length; i++) {
        if (units.get(i).rebuild() == null) {
          continue;
        }
        RackLinkLoad trial = switched(load, units.get(i), copy[i]);
        if (trial.compareSeconds(bestLoad, rates) < 0) {
          best = i;
          bestLoad = trial;
        }
      }
      if (best < 0 && copy.length <= CopyOrRebuildSplit.MAX_UNITS_FOR_SWAPS) {
        int[] pair = bestSwap(units, copy, load, rates);
        if (pair != null) {
          load = switched(switched(load, units.get(pair[0]), copy[pair[0]]), units.get(pair[1]), copy[pair[1]]);
          copy[pair[0]] = !copy[pair[0]];
          copy[pair[1]] = !copy[pair[1]];
          continue;
        }
      }
      if (best < 0) {
        return new CopyOrRebuildSplit.Split(copy, load);
      }
      copy[best] = !copy[best];
      load = bestLoad;
    }
  }

  /** The copied and the rebuilt unit whose exchange of ways shortens the time most; null when none does. */
  private static int[] bestSwap(List<CopyOrRebuildSplit.Ways> units, boolean[] copy, RackLinkLoad load,
      LinkRates rates) {
    int[] best = null;
    RackLinkLoad bestLoad = load;
    for (int i = 0; i < copy.length; i++) {
      if (!copy[i] || units.get(i).rebuild() == null) {
        continue;
      }
      RackLinkLoad half = switched(load, units.get(i), true);
      for (int j = 0; j < copy.length; j++) {
        if (copy[j] || units.get(j).rebuild() == null) {
          continue;
        }
        RackLinkLoad trial = switched(half, units.get(j), false);
        if (trial.compareSeconds(bestLoad, rates) < 0) {
          best = new int[] {i, j};
          bestLoad = trial;
        }
      }
    }
    return best;
  }

  /** The load with one unit's way changed (copied now: rebuilt after, and the other way round). */
  private static RackLinkLoad switched(RackLinkLoad load, CopyOrRebuildSplit.Ways w, boolean copiedNow) {
    RackLinkLoad t = load.copy();
    t.add(copiedNow ? w.copy() : w.rebuild(), -1);
    t.add(copiedNow ? w.rebuild() : w.copy(), 1);
    return t;
  }
}
