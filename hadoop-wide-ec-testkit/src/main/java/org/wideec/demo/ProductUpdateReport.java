package org.wideec.demo;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code bench update --product} prints and reports ({@link ProductUpdateBench}): its header, a line and the
 * JSON figures per churn and per sweep, and the run's summary.
 */
final class ProductUpdateReport {
  private final PrintStream out;
  private final ProductUpdateBench.Settings s;

  ProductUpdateReport(PrintStream out, ProductUpdateBench.Settings s) {
    this.out = out;
    this.s = s;
  }

  void header() {
    out.printf("product layer: %d racks x %d DataNodes, %d MiB blocks, codes %s, executor %s%n", s.racks(),
        s.nodesPerRack(), s.blockBytes() >> 20, s.codes(), s.executor() == null ? "as configured" : s.executor());
  }

  /**
   * One churn's figures: the removal's cross-rack bytes against its plan and what each scheme's run would choose, the
   * space it reclaimed and its seconds, the replace's bytes, the fill's against its plan and choice, and the stripes
   * checked after.
   */
  record Churn(int filesRemoved, long reclaimedBytes, long crossRackBytes, long plannedCrossRackBytes,
      Map<String, Long> chosenByScheme, boolean chosenReEncodes, double reclaimSeconds, long replaceCrossRackBytes,
      int filesFilled, long fillCrossRackBytes, long fillPlannedCrossRackBytes, long fillChosenCrossRackBytes,
      boolean fillChosenReEncodes, int stripesChecked) {}

  /** Prints the churn's line; its JSON. */
  Map<String, Object> churn(String code, String scheme, Churn c) {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("filesRemoved", c.filesRemoved());
    j.put("reclaimedBytes", c.reclaimedBytes());
    j.put("crossRackBytes", c.crossRackBytes());
    j.put("plannedCrossRackBytes", c.plannedCrossRackBytes());
    j.put("chosenCrossRackBytes", c.chosenByScheme().get(scheme));
    j.put("chosenCrossRackBytesByScheme", c.chosenByScheme());
    j.put("chosenReEncodes", c.chosenReEncodes());
    j.put("crossRackBytesPerReclaimedGiB", ProductCrossover.perReclaimedGiB(c.crossRackBytes(), c.reclaimedBytes()));
    j.put("reclaimSeconds", c.reclaimSeconds());
    j.put("replaceCrossRackBytes", c.replaceCrossRackBytes());
    j.put("filesFilled", c.filesFilled());
    j.put("fillCrossRackBytes", c.fillCrossRackBytes());
    j.put("fillPlannedCrossRackBytes", c.fillPlannedCrossRackBytes());
    j.put("fillChosenCrossRackBytes", c.fillChosenCrossRackBytes());
    j.put("fillChosenReEncodes", c.fillChosenReEncodes());
    j.put("stripesChecked", c.stripesChecked());
    out.printf(Locale.ROOT, "%-24s %-8s rm %d files: %,d B cross-rack (plan %,d), %,d B reclaimed, %.2f s; replace %,d"
        + " B; fill %d files %,d B (plan %,d); %d stripes checked%n", code, scheme, c.filesRemoved(),
        c.crossRackBytes(), c.plannedCrossRackBytes(), c.reclaimedBytes(), c.reclaimSeconds(),
        c.replaceCrossRackBytes(), c.filesFilled(), c.fillCrossRackBytes(), c.fillChosenCrossRackBytes(),
        c.stripesChecked());
    return j;
  }

  /** Prints the sweep's line; its JSON ({@link ProductCrossover#toJson}). */
  Map<String, Object> sweep(String code, String scheme, List<ProductCrossover.Point> points) {
    Map<String, Object> j = ProductCrossover.toJson(points);
    Object wins = j.get("reEncodeWinsFromChangedUnits");
    out.printf(Locale.ROOT, "%-24s %-8s sweep (changed units: delta measured B / re-encode B / default run B): %s;"
        + " re-encode wins %s%n", code, scheme, String.join(", ", points.stream().map(p -> p.changed() + ": "
            + p.measuredCrossRackBytes() + " / " + p.reEncodeCrossRackBytes() + " / "
            + p.whenCheaper().measuredCrossRackBytes() + (p.whenCheaper().reEncodes() ? " re-encoded" : "")).toList()),
        wins == null ? "nowhere" : "from " + wins + " units");
    return j;
  }

  /** The run's JSON: its layer and settings, every code's figures, and what was read back. */
  Map<String, Object> summary(Map<String, Object> perCode, List<String> executors, long bytesCompared,
      int stripesDecoded) {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("layer", ProductUpdateBench.LAYER);
    j.put("executor", String.join(",", executors.stream().distinct().toList()));
    j.put("racks", s.racks() + " racks of " + s.nodesPerRack() + " DataNodes");
    j.put("blockBytes", s.blockBytes());
    j.put("nodeBytesPerSecond", s.nodeRate());
    j.put("oversubscription", s.oversubscription());
    j.put("codes", perCode);
    j.put("bytesCompared", bytesCompared);
    j.put("stripesDecoded", stripesDecoded);
    j.put("bytesLost", 0); // any difference stops the run with an IOException
    return j;
  }
}
