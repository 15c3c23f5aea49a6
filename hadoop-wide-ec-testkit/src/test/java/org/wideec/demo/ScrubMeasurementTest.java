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
  void onePassDetectsEveryInjectedCorruptionTheRepairRestoresEachAndACleanPassSendsOnlyTheRacksSums()
      throws Exception {
    long block = 256 * 1024;
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    Map<String, Object> j = ScrubMeasurement.run(dir, 3, block, new PrintStream(text, true, StandardCharsets.UTF_8));
    String printed = text.toString(StandardCharsets.UTF_8);
    assertEquals(3, j.get("scrubInjected"), printed);
    assertEquals(3, j.get("scrubDetected"), printed);
    assertEquals(3, j.get("scrubRepaired"), printed);
    // The NameNode is in no DataNode's rack. RS(10,4) on 4 racks of 4 fills three racks with 4 units, more than the
    // 2 check rows, so each sends 2 pages, and the last rack's 2 units send their own: 8 pages a group. A group at
    // fault then has each of its 12 summed units send its own page too.
    double groupBytes = 14.0 * block;
    assertEquals((8 + 12) * UnitSummary.DEFAULT_PAGE_SIZE / groupBytes, (double) j.get("scrubCrossRackFraction"),
        1e-12, printed);
    assertEquals(4 * 2 * UnitSummary.DEFAULT_PAGE_SIZE / groupBytes, (double) j.get("scrubCleanCrossRackFraction"),
        1e-12, printed);
  }
}
