package org.wideec.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.wideec.update.SyntheticVolume;
import org.wideec.update.UpdateTraceReplayer;

/** {@code bench update} end to end on a few updates (its figures are not checked here, only what it reports). */
class UpdateBenchTest {
  @Test
  @SuppressWarnings("unchecked")
  void theBenchReportsEverySchemesTransportBytesAsThePlansCountThemAndTheRatiosAsked() throws Exception {
    SyntheticVolume v = SyntheticVolume.figure6Range().get(4);
    UpdateBench.Settings s = new UpdateBench.Settings(List.of(v), 8, List.of(1_000_000_000L), 10, 2, 1);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Map<String, Object> json = new UpdateBench(s, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)).run();
    assertEquals(UpdateBench.LAYER, json.get("layer"));
    assertEquals(true, json.get("transportBytesEqualPlansAndParitiesEqualFreshEncode"));
    Map<String, Object> schemes = (Map<String, Object>) json.get("schemes");
    assertEquals(UpdateBench.SCHEMES, List.copyOf(schemes.keySet()));
    var modelled = UpdateTraceReplayer.paperFaithful().replay(v.generate(8, 1));
    for (String name : UpdateBench.SCHEMES) {
      Map<String, Object> j = (Map<String, Object>) schemes.get(name);
      assertEquals(modelled.get(name).crossRackBytes(), ((Number) j.get("crossRackBytes")).longValue(), name);
      assertTrue(((Number) j.get("updatesPerSecond")).doubleValue() > 0, name);
    }
    assertEquals((double) modelled.get("baseline").crossRackChunks() / modelled.get("rackcu").crossRackChunks(),
        ((Number) json.get("baselineOverRackcuTraffic")).doubleValue(), 1e-9);
    assertTrue(json.containsKey("cauOverRackcuTraffic") && json.containsKey("rackcuOverBaselineThroughput"));
    // Beside the testbed's transports, the seed's simulation setting counted by the model, ten runs.
    var sim = org.wideec.update.SeedSimulation.run(List.of(v), 8, 1, 10);
    Map<String, Object> simulation = (Map<String, Object>) json.get("simulation");
    assertEquals(10, simulation.get("runs"));
    assertEquals(sim.crossRackChunks().get("rackcu") * 4096,
        ((Map<String, Object>) simulation.get("crossRackBytes")).get("rackcu"));
    assertEquals(sim.cauOverRackcu(), ((Number) json.get("simulationCauOverRackcuTraffic")).doubleValue(), 0.0005);
    assertEquals(sim.baselineOverRackcu(), ((Number) json.get("simulationBaselineOverRackcuTraffic")).doubleValue(),
        0.0005);
    String text = out.toString(StandardCharsets.UTF_8);
    assertTrue(text.contains("cross-rack 1000 Mb/s, node links 10x faster") && !text.contains("CHECK FAILED"), text);
  }

  @Test
  void ratesAreDecimalBitsPerSecond() {
    assertEquals(100_000_000L, UpdateBench.bitsPerSecond("100m"));
    assertEquals(1_000_000_000L, UpdateBench.bitsPerSecond("1G"));
    assertEquals(50_000L, UpdateBench.bitsPerSecond("50k"));
  }
}
