package org.wideec.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.Test;

class UpdateCommandTest {
  /** RackCU Figures 3-4: RS(6,4), every data unit changed. */
  private static final String[] FIGURE_3 = {"update", "plan", "--racks", "R1:d0,d1;R2:d2,d3;R3:d4,d5;R4:p0,p1;R5:p2,p3",
      "--changed", "d0-d5"};

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) throws Exception {
    out.reset();
    err.reset();
    return ToolRunner.run(new Configuration(), new WideEcTool(new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8)), args);
  }

  private static String[] with(String[] base, String... more) {
    String[] a = java.util.Arrays.copyOf(base, base.length + more.length);
    System.arraycopy(more, 0, a, base.length, more.length);
    return a;
  }

  @Test
  void figure3PrintsBaseline24TwoCollectors10AndRackCu8() throws Exception {
    assertEquals(0, run(with(FIGURE_3, "--collectors", "R1:R2,R3:R4")));
    String text = out.toString(StandardCharsets.UTF_8);
    assertTrue(text.contains("cross-rack chunks: baseline 24 cau 12 parix 48 rackcu 8 reencode 14 coordinated 10\n"), text);
    assertTrue(text.contains("rackcu: 8 cross-rack chunks, 2 inside racks; collector [R1]"), text);
    assertTrue(text.contains("chosen: rackcu"), text);
  }

  @Test
  void figure4JsonNamesTheCollectorAndEveryTransfer() throws Exception {
    assertEquals(0, run(with(FIGURE_3, "--scheme", "rackcu", "--json")));
    JsonNode j = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8));
    assertEquals("rs:k=6,m=4", j.get("code").asText());
    assertEquals(8, j.get("crossRackChunks").get("rackcu").asInt());
    assertEquals("rackcu", j.get("chosen").asText());
    JsonNode plan = j.get("plans").get(0);
    assertEquals("R1", plan.get("collectorRacks").get(0).asText());
    assertEquals(8, plan.get("crossRackChunks").asInt());
    int cross = 0;
    for (JsonNode t : plan.get("transfers")) {
      if (t.get("crossRack").asBoolean()) {
        cross += t.get("chunks").asInt();
      }
    }
    assertEquals(8, cross);
    JsonNode first = plan.get("transfers").get(0);
    assertEquals("DELTA_COLLECTING", first.get("phase").asText());
    assertEquals("DATA_DELTA", first.get("kind").asText());
    assertEquals("d0", first.get("from").get("unit").asText());
    assertEquals("R1", first.get("to").get("rack").asText());
    assertEquals("R4", j.get("racks").get(3).get("name").asText());
  }

  @Test
  void aRealPlannerLayoutKeepsUniLrcLocalParitiesInTheirRacks() throws Exception {
    assertEquals(0, run("update", "plan", "--code", "unilrc:alpha=1,z=3", "--placement", "unilrc", "--changed", "d0,d2,d5",
        "--scheme", "rackcu", "--json"));
    JsonNode plan = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8)).get("plans").get(0);
    for (JsonNode t : plan.get("transfers")) {
      if (t.get("phase").asText().equals("LOCAL_PARITY_UPDATE")) {
        assertTrue(!t.get("crossRack").asBoolean(), t.toString());
      }
    }
  }

  @Test
  void badArgumentsAreUsageErrorsNamingTheOption() throws Exception {
    assertEquals(2, run("update", "plan", "--racks", "R1:d0,d1;R2:p0,x1", "--changed", "d0"));
    assertEquals("wide-ec update: --racks: unit 'x1' of rs:k=2,m=1 is not one of d0..d1 or p0..p0 (see 'wide-ec help update')",
        err.toString(StandardCharsets.UTF_8).trim());
    assertEquals(2, run(with(FIGURE_3, "--scheme", "fastest")));
    assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("wide-ec update: --scheme: unknown update scheme 'fastest'"));
    assertEquals(2, run("update", "plan", "--racks", "R1:d0,d1;R2:p0", "--changed", "d7"));
    assertEquals("wide-ec update: --changed: unit 'd7' of rs:k=2,m=1 is not one of d0..d1 (see 'wide-ec help update')",
        err.toString(StandardCharsets.UTF_8).trim());
    assertEquals(2, run(with(FIGURE_3, "--collectors", "R1:R9")));
    assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("wide-ec update: --collectors: no rack named 'R9'"));
    assertEquals(2, run("update", "plan", "--changed", "d0"));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("exactly one of --racks or --placement"));
  }
}
