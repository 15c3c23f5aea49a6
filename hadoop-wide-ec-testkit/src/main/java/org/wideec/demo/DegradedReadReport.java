package org.wideec.demo;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the degraded-read bench prints and reports ({@link DegradedReadBench}): its lines as the figures come, the
 * run's own JSON ({@link #figures}), and its headline ratios in the repair bench's top level.
 */
final class DegradedReadReport {
  private final PrintStream out;
  /** The repair bench's top level. */
  private final Map<String, Object> json;
  private final Map<String, Object> m = new LinkedHashMap<>();
  private Shaped shaped;

  DegradedReadReport(PrintStream out, Map<String, Object> json) {
    this.out = out;
    this.json = json;
  }

  /** The reads' range and slice. */
  void start(int rangeBytes, String stripe, int lost, int sliceBytes) {
    out.printf("degraded reads of a %d KiB cell of %s, unit %d lost (its DataNode stopped), in %d KiB slices, node "
        + "links shaped:%n", rangeBytes / 1024, stripe, lost, sliceBytes / 1024);
    m.put("rangeBytes", rangeBytes);
    m.put("sliceBytes", sliceBytes);
  }

  /**
   * The medians over the shaped links, in seconds: the normal read, our FileSystem's chain, the star of the same
   * helpers, the cyclic variant, the rack star, and the fixed costs of one stream and of the chain on a probe.
   */
  record Shaped(double normal, double pipelined, double star, double cyclic, double rackStar, int probeBytes,
      double streamSetup, double chainSetup) {}

  void shaped(Shaped f) {
    shaped = f;
    m.put("normalReadSeconds", f.normal());
    m.put("pipelinedSeconds", f.pipelined());
    m.put("directStarSeconds", f.star());
    m.put("cyclicSeconds", f.cyclic());
    m.put("probeBytes", f.probeBytes());
    m.put("streamSetupSeconds", f.streamSetup());
    m.put("chainSetupSeconds", f.chainSetup());
    out.printf("  %-44s %7.3f s%n", "normal read (healthy unit, one stream)", f.normal());
    out.printf("  %-44s %7.3f s  %5.2fx normal%n", "pipelined, WideEcFileSystem", f.pipelined(),
        f.pipelined() / f.normal());
    out.printf("  %-44s %7.3f s  %5.2fx normal%n", "direct decode (star of the same helpers)", f.star(),
        f.star() / f.normal());
    out.printf("  %-44s %7.3f s  %5.2fx normal%n", "cyclic (rotations of the chain)", f.cyclic(),
        f.cyclic() / f.normal());
    out.printf("  fixed costs (%d KiB): one stream %.3f s, the chain %.3f s%n", f.probeBytes() / 1024, f.streamSetup(),
        f.chainSetup());
    m.put("rackStarSeconds", f.rackStar());
    out.printf("  %-44s %7.3f s  %5.2fx normal%n", "rack star (a partial sum per rack at the NIC)", f.rackStar(),
        f.rackStar() / f.normal());
  }

  /** The same reads unshaped through HDFS, for orientation: stock, pipelined and direct-decoding clients. */
  void unshaped(double normal, double pipelined, double direct) {
    Map<String, Object> hdfs = new LinkedHashMap<>();
    hdfs.put("normalReadSeconds", normal);
    hdfs.put("pipelinedSeconds", pipelined);
    hdfs.put("directDecodeSeconds", direct);
    out.printf("  unshaped, through HDFS: normal %.3f s, pipelined %.3f s, direct decode %.3f s%n", normal, pipelined,
        direct);
    m.put("unshapedHdfs", hdfs);
  }

  /** The shaped reads' headline ratios, into the repair bench's top level. */
  void ratios() {
    double pipelined = shaped.pipelined();
    json.put("degradedReadOverNormal", pipelined / shaped.normal());
    json.put("degradedReadDirectOverPipelined", shaped.star() / pipelined);
    out.printf("degraded read / normal read = %.2f (target <= 1.3); direct decode / pipelined = %.2f%n",
        pipelined / shaped.normal(), shaped.star() / pipelined);
  }

  /** The degraded reads during the unit's repair ({@link DegradedReadDuringRepairBench}). */
  void duringRepair(Map<String, Object> during) {
    m.put("duringRepair", during);
    json.put("degradedReadDuringRepairOverNormal", during.get("degradedReadDuringRepairOverNormal"));
    out.printf("degraded read during the unit's repair / normal read = %.2f (target <= 1.3)%n",
        (Double) during.get("degradedReadDuringRepairOverNormal"));
  }

  /** Foreground reads during a recovery, with and without caps ({@link ForegroundDuringRecoveryBench}). */
  void foreground(Map<String, Object> foreground) {
    m.put("foregroundDuringRecovery", foreground);
    json.put("foregroundFractionWithCaps", foreground.get("foregroundFractionWithCaps"));
    json.put("foregroundFractionWithoutCaps", foreground.get("foregroundFractionWithoutCaps"));
  }

  /** The run's own JSON, in the order its figures came. */
  Map<String, Object> figures() {
    return m;
  }
}
