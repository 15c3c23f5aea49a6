package org.wideec.coder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The choice of wide-stripe slicing: parsing, the processor table, fallbacks that never throw; the cache probe. */
class WideTuningTest {

  @Test
  void aPinnedTuningParsesWithUnits() {
    assertEquals(new WideTuning(8, 16 << 10, 0), WideTuning.parse("group=8,slice=16k,prefetch=0"));
    assertEquals(new WideTuning(12, 1 << 20, 4096), WideTuning.parse(" slice=1m , group=12, prefetch=4k"));
    assertEquals(new WideTuning(4, 64 << 10, 0), WideTuning.parse("group=4"));
    assertEquals("group=8,slice=16k,prefetch=0", new WideTuning(8, 16 << 10, 0).toString());
  }

  @Test
  void malformedTuningsAreRefusedNamingTheProblem() {
    assertThrows(IllegalArgumentException.class, () -> WideTuning.parse("group=0"));
    assertThrows(IllegalArgumentException.class, () -> WideTuning.parse("group=8,slice=100"));
    assertThrows(IllegalArgumentException.class, () -> WideTuning.parse("groups=8"));
    assertThrows(IllegalArgumentException.class, () -> WideTuning.parse("fast"));
  }

  @Test
  void theTableChoosesByProcessorAndFallsBackToTheDefaults() {
    assertEquals(new WideTuning(8, 16 << 10, 0), WideTuning.choose("auto", "AuthenticAMD 25"));
    assertEquals(new WideTuning(16, 16 << 10, 0, true), WideTuning.choose("auto", "AuthenticAMD 26"));
    assertEquals(WideTuning.DEFAULT, WideTuning.choose(null, "GenuineIntel 6"));
    assertEquals(WideTuning.DEFAULT, WideTuning.choose("auto", "AuthenticAMD 27"));
    assertEquals(WideTuning.DEFAULT, WideTuning.choose("auto", "unknown"));
    assertEquals(WideTuning.DEFAULT, WideTuning.choose("default", "AuthenticAMD 25"));
    assertEquals(new WideTuning(16, 32 << 10, 0), WideTuning.choose("group=16,slice=32k", "AuthenticAMD 25"));
    assertEquals(new WideTuning(8, 16 << 10, 0, true), WideTuning.choose("group=8,slice=16k,kernel=GFNI", "x"));
    assertEquals(WideTuning.DEFAULT, WideTuning.choose("kernel=avx9", "x"), "an unknown kernel: the defaults");
    assertEquals("group=16,slice=16k,prefetch=0,kernel=gfni", new WideTuning(16, 16 << 10, 0, true).toString());
  }

  @Test
  void everyTableChoiceIsACalibrationCandidate() {
    // Calibration times wide (sliced) multiplies, where the kernel flag changes nothing: each table entry's slicing
    // must be among what it tries (WideTuningKernelTest checks the table's entries' bytes themselves).
    for (var e : WideTuning.BY_PROCESSOR.entrySet()) {
      WideTuning t = e.getValue();
      assertEquals(true, WideTuning.candidates().contains(new WideTuning(t.group(), t.sliceBytes(), t.prefetchBytes())),
          e.getKey() + ": " + t);
    }
  }

  @Test
  void aBadSettingFallsBackToTheDefaultsInsteadOfThrowing() {
    assertEquals(WideTuning.DEFAULT, WideTuning.choose("group=banana", "AuthenticAMD 25"));
    assertEquals(WideTuning.DEFAULT, WideTuning.choose("slice=3", "AuthenticAMD 25"));
  }

  @Test
  void calibrationPicksOneOfTheCandidates() {
    NativeRequirement.nativeCoder();
    WideTuning t = WideTuning.choose("calibrate", WideTuning.processor());
    assertEquals(true, WideTuning.candidates().contains(new WideTuning(t.group(), t.sliceBytes(), t.prefetchBytes())),
        t + "'s slicing is a candidate");
    assertEquals(WideTuning.forProcessor(WideTuning.processor()).gfni(), t.gfni(), t + ": the table's kernel is kept");
  }

  @Test
  void theLastLevelCacheIsTheHighestDataOrUnifiedLevel(@TempDir Path dir) throws IOException {
    cache(dir, 0, 1, "Data", "32K");
    cache(dir, 1, 1, "Instruction", "32K");
    cache(dir, 2, 2, "Unified", "1024K");
    cache(dir, 3, 3, "Unified", "32768K");
    assertEquals(OptionalLong.of(32L << 20), LastLevelCache.bytes(dir));
    assertEquals(OptionalLong.empty(), LastLevelCache.bytes(dir.resolve("missing")));
    assertEquals(1L << 30, LastLevelCache.parseSize("1G"));
  }

  private static void cache(Path dir, int index, int level, String type, String size) throws IOException {
    Path d = Files.createDirectories(dir.resolve("index" + index));
    Files.writeString(d.resolve("level"), level + "\n");
    Files.writeString(d.resolve("type"), type + "\n");
    Files.writeString(d.resolve("size"), size + "\n");
  }
}
