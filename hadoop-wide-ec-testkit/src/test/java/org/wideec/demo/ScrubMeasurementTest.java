package org.wideec.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.scrub.UnitSummary;

class ScrubMeasurementTest {
  @TempDir
  java.io.File dir;

  @Test
  void onePassDetectsEveryInjectedCorruptionTheRepairRestoresEachAndOnlyOnePagePerUnitCrossesRacks()
      throws Exception {
    long block = 256 * 1024;
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    Map<String, Object> j = ScrubMeasurement.run(dir, 3, block, new PrintStream(text, true, StandardCharsets.UTF_8));
    String printed = text.toString(StandardCharsets.UTF_8);
    assertEquals(3, j.get("scrubInjected"), printed);
    assertEquals(3, j.get("scrubDetected"), printed);
    assertEquals(3, j.get("scrubRepaired"), printed);
    // The NameNode is in no DataNode's rack: each unit's one summary page crosses, and nothing else does.
    assertEquals((double) UnitSummary.DEFAULT_PAGE_SIZE / block, (double) j.get("scrubCrossRackFraction"), 1e-12,
        printed);
  }
}
