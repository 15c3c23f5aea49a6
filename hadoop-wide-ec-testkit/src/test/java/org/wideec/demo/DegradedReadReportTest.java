package org.wideec.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The degraded-read bench's lines and JSON as BenchCommand and RESULTS.md read them: every figure under its key, in
 * the order measured, the headline ratios in the repair bench's top level.
 */
class DegradedReadReportTest {
  @Test
  void theFiguresArePrintedAndReportedUnderTheirKeys() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Map<String, Object> top = new LinkedHashMap<>();
    DegradedReadReport r = new DegradedReadReport(new PrintStream(bytes, true, StandardCharsets.UTF_8), top);
    r.start(1 << 20, "azure-lrc 12+2+2", 3, 64 << 10);
    r.shaped(new DegradedReadReport.Shaped(0.5, 0.6, 1.2, 0.9, 0.75, 4096, 0.001, 0.004));
    r.unshaped(0.01, 0.02, 0.03);
    r.ratios();
    r.duringRepair(Map.of("degradedReadDuringRepairOverNormal", 1.25));
    r.foreground(Map.of("foregroundFractionWithCaps", 0.9, "foregroundFractionWithoutCaps", 0.4));

    assertEquals(List.of(
        "degraded reads of a 1024 KiB cell of azure-lrc 12+2+2, unit 3 lost (its DataNode stopped), in 64 KiB slices,"
            + " node links shaped:",
        "  normal read (healthy unit, one stream)         0.500 s",
        "  pipelined, WideEcFileSystem                    0.600 s   1.20x normal",
        "  direct decode (star of the same helpers)       1.200 s   2.40x normal",
        "  cyclic (rotations of the chain)                0.900 s   1.80x normal",
        "  fixed costs (4 KiB): one stream 0.001 s, the chain 0.004 s",
        "  rack star (a partial sum per rack at the NIC)   0.750 s   1.50x normal",
        "  unshaped, through HDFS: normal 0.010 s, pipelined 0.020 s, direct decode 0.030 s",
        "degraded read / normal read = 1.20 (target <= 1.3); direct decode / pipelined = 2.00",
        "degraded read during the unit's repair / normal read = 1.25 (target <= 1.3)"),
        bytes.toString(StandardCharsets.UTF_8).lines().toList());
    assertEquals(List.of("rangeBytes", "sliceBytes", "normalReadSeconds", "pipelinedSeconds", "directStarSeconds",
        "cyclicSeconds", "probeBytes", "streamSetupSeconds", "chainSetupSeconds", "rackStarSeconds", "unshapedHdfs",
        "duringRepair", "foregroundDuringRecovery"), List.copyOf(r.figures().keySet()));
    assertEquals(Map.of("normalReadSeconds", 0.01, "pipelinedSeconds", 0.02, "directDecodeSeconds", 0.03),
        r.figures().get("unshapedHdfs"));
    assertEquals(Map.of("degradedReadOverNormal", 0.6 / 0.5, "degradedReadDirectOverPipelined", 1.2 / 0.6,
        "degradedReadDuringRepairOverNormal", 1.25, "foregroundFractionWithCaps", 0.9,
        "foregroundFractionWithoutCaps", 0.4), top);
  }
}
