package org.wideec.bench;

import java.util.List;
import java.util.Locale;
import org.wideec.repair.CopyOrRebuildSplit;
import org.wideec.repair.ExchangeSplitSearch;
import org.wideec.repair.RackLinkLoad;
import org.wideec.repair.RandomLeavingLayout;
import org.wideec.repair.RepairScheme;

/**
 * The decommission planner's search for the split of copies and rebuilds, near-linear ({@link CopyOrRebuildSplit})
 * against the quadratic search it replaced ({@link ExchangeSplitSearch}), in the same run on the same random layouts
 * (one leaving node holding 50, 500 and 5000 units): milliseconds per search, the ratio, and each split's predicted
 * seconds. Run: {@code java -cp benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)
 * org.wideec.bench.DecommissionSplitBench [sizes...]}; the quadratic search runs up to the size in the system property
 * {@code quadratic.max} (default 5000, where it takes many minutes).
 */
public final class DecommissionSplitBench {
  private DecommissionSplitBench() {}

  public static void main(String[] args) {
    int[] sizes = args.length == 0 ? new int[] {50, 500, 5000}
        : java.util.Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
    System.out.println("units  layouts  near-linear ms  quadratic ms  quadraticOverNearLinear  predicted s (near-linear"
        + " / quadratic, summed)");
    for (int n : sizes) {
      int layouts = n >= 5000 ? 1 : n >= 500 ? 3 : 10;
      double fastMs = 0;
      double oldMs = 0;
      double fastSeconds = 0;
      double oldSeconds = 0;
      for (int seed = 0; seed < layouts; seed++) {
        RandomLeavingLayout layout = RandomLeavingLayout.of(1000 + seed, n);
        List<CopyOrRebuildSplit.Ways> ways = layout.ways(RepairScheme.PIPELINED);
        RackLinkLoad none = new RackLinkLoad(RackLinkLoad.Links.FULL_DUPLEX);
        // Warm both up on this layout first: JIT, not the first call, is what a NameNode's pass meets.
        CopyOrRebuildSplit.fastest(ways, none, layout.rates());
        int reps = Math.max(1, 20_000 / n);
        long t0 = System.nanoTime();
        CopyOrRebuildSplit.Split fast = null;
        for (int r = 0; r < reps; r++) {
          fast = CopyOrRebuildSplit.fastest(ways, none, layout.rates());
        }
        fastMs += (System.nanoTime() - t0) / 1e6 / reps;
        if (n > Integer.getInteger("quadratic.max", 5000)) {
          fastSeconds += fast.seconds(layout.rates());
          continue;
        }
        int oldReps = n >= 500 ? 1 : Math.max(1, reps / 10);
        if (n < 500) {
          ExchangeSplitSearch.fastest(ways, none, layout.rates());
        }
        long t1 = System.nanoTime();
        CopyOrRebuildSplit.Split old = null;
        for (int r = 0; r < oldReps; r++) {
          old = ExchangeSplitSearch.fastest(ways, none, layout.rates());
        }
        oldMs += (System.nanoTime() - t1) / 1e6 / oldReps;
        fastSeconds += fast.seconds(layout.rates());
        oldSeconds += old.seconds(layout.rates());
      }
      System.out.println(oldMs == 0
          ? String.format(Locale.ROOT, "%5d  %7d  %14.2f  %12s  %23s  %.3f / -", n, layouts, fastMs / layouts, "-", "-",
              fastSeconds)
          : String.format(Locale.ROOT, "%5d  %7d  %14.2f  %12.2f  %23.1f  %.3f / %.3f", n, layouts, fastMs / layouts,
              oldMs / layouts, oldMs / fastMs, fastSeconds, oldSeconds));
    }
  }
}
