package org.wideec.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.wideec.repair.RepairScheme;

class BenchProgressTest {
  @Test
  void everyStepSaysHowFarAndAboutHowLongIsLeft() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    BenchProgress p = new BenchProgress(new PrintStream(err, true, StandardCharsets.UTF_8), "bench encode", 3);
    p.step("rs:k=64,m=4 classic warm-up");
    p.step("rs:k=64,m=4 classic run 1");
    p.step("rs:k=64,m=4 classic run 2");
    List<String> lines = err.toString(StandardCharsets.UTF_8).lines().toList();
    assertEquals(3, lines.size());
    assertTrue(lines.get(0).matches("bench encode: step 1 of 3 done \\(rs:k=64,m=4 classic warm-up\\), \\d+s spent, "
        + "about \\d+s left"), lines.get(0));
    assertTrue(lines.get(2).matches("bench encode: step 3 of 3 done \\(.*\\), \\d+s spent, finishing"), lines.get(2));
  }

  @Test
  void theRepairBenchPlansItsStepsFromItsSettings() {
    int schemes = RepairScheme.values().length;
    RepairBench.Settings quick = new RepairBench.Settings(8 << 20, 25 << 20, 10, List.of(256 << 10), 8, 2 << 20,
        5 << 20, true, true);
    // best slice (direct send + 1 size), 2 codes x (direct send + every scheme), gateways 3, full node 6 + 2 over the
    // racks, stock 1, CL 5 (direct send, repair, degraded reads idle and during a repair, foreground reads during a
    // recovery with and without caps)
    assertEquals(2 + 2 * (1 + schemes) + 3 + 6 + 2 + 1 + 5, RepairBench.plannedSteps(quick));
    RepairBench.Settings fullNodeOnly = new RepairBench.Settings(8 << 20, 25 << 20, 10, List.of(256 << 10), 8, 2 << 20,
        5 << 20, false, false);
    assertEquals(6 + 2, RepairBench.plannedSteps(fullNodeOnly));
  }
}
