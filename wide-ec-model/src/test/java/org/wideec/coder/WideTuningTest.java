package org.wideec.coder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
    assertEquals(new WideTuning(8, 16 << 10, 0), WideTuning.choose("auto", "AuthenticAMD 25", true));
    assertEquals(new WideTuning(4, 64 << 10, 3 << 10, true), WideTuning.choose("auto", "AuthenticAMD 26", true));
    assertEquals(new WideTuning(10, 64 << 10, 3 << 10, true), WideTuning.choose(null, "GenuineIntel 6", true));
    assertEquals(WideTuning.DEFAULT, WideTuning.choose("auto", "GenuineIntel 6", false), "an Intel core without GFNI");
    assertEquals(WideTuning.DEFAULT, WideTuning.choose("auto", "AuthenticAMD 27", true));
    assertEquals(WideTuning.DEFAULT, WideTuning.choose("auto", "unknown", false));
    assertEquals(WideTuning.DEFAULT, WideTuning.choose("default", "AuthenticAMD 25", true));
    assertEquals(new WideTuning(16, 32 << 10, 0), WideTuning.choose("group=16,slice=32k", "AuthenticAMD 25", false));
    assertEquals(new WideTuning(8, 16 << 10, 0, true), WideTuning.choose("group=8,slice=16k,kernel=GFNI", "x", true));
    assertEquals(WideTuning.DEFAULT, WideTuning.choose("kernel=avx9", "x", true), "an unknown kernel: the defaults");
    assertEquals("group=4,slice=64k,prefetch=3072,kernel=gfni", new WideTuning(4, 64 << 10, 3 << 10, true).toString());
  }

  @Test
  void aGfniTuningOnAProcessorWithoutGfniFallsBackToTheDefaults() {
    assertEquals(WideTuning.DEFAULT, WideTuning.choose("auto", "AuthenticAMD 26", false), "a Zen 5 table entry");
    assertEquals(WideTuning.DEFAULT, WideTuning.choose("group=4,kernel=gfni", "GenuineIntel 6", false), "pinned");
    assertEquals(new WideTuning(4, 64 << 10, 0), WideTuning.choose("group=4,kernel=isal", "GenuineIntel 6", false));
  }

  @Test
  void everyTableChoiceIsACalibrationCandidate() {
    for (var e : WideTuning.BY_PROCESSOR.entrySet()) {
      assertEquals(true, WideTuning.candidates().contains(e.getValue()), e.getKey() + ": " + e.getValue());
    }
  }

  @Test
  void calibrationTriesGfniCandidatesOnlyWhereTheProcessorHasGfni() {
    assertEquals(List.of(), WideTuning.candidates(false).stream().filter(WideTuning::gfni).toList());
    assertEquals(WideTuning.candidates(), WideTuning.candidates(true));
    assertEquals(true, WideTuning.candidates(false).contains(WideTuning.DEFAULT));
  }

  @Test
  void aBadSettingFallsBackToTheDefaultsInsteadOfThrowing() {
    assertEquals(WideTuning.DEFAULT, WideTuning.choose("group=banana", "AuthenticAMD 25", true));
    assertEquals(WideTuning.DEFAULT, WideTuning.choose("slice=3", "AuthenticAMD 25", true));
  }

  @Test
  void calibrationPicksOneOfTheCandidatesThisProcessorRuns() {
    NativeRequirement.nativeCoder();
    WideTuning t = WideTuning.choose("calibrate", WideTuning.processor(), IsalNative.gfniKernel());
    assertEquals(true, WideTuning.candidates(IsalNative.gfniKernel()).contains(t), t + " is a candidate");
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
