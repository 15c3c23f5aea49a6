package org.wideec.update;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SyntheticVolumeTest {
  @Test
  void generatedTracesAreSeededSectorAlignedAndHaveTheirMeanUpdateSize() {
    for (SyntheticVolume v : SyntheticVolume.figure6Range()) {
      List<TraceUpdate> t = v.generate(20_000, 1L);
      assertEquals(t, v.generate(20_000, 1L));
      double mean = t.stream().mapToInt(TraceUpdate::length).average().orElse(0);
      assertEquals(v.meanUpdateBytes(), mean, 0.03 * v.meanUpdateBytes(), v.name());
      long previous = -1;
      for (TraceUpdate u : t) {
        assertEquals(0, u.offset() % SyntheticVolume.SECTOR);
        assertEquals(0, u.length() % SyntheticVolume.SECTOR);
        assertTrue(u.offset() + u.length() <= v.volumeBytes());
        assertTrue(u.timeMicros() >= previous);
        previous = u.timeMicros();
      }
    }
  }

  @Test
  void offsetsAreZipfSkewedTheHottestRegionTakesAboutOneUpdateInNine() {
    SyntheticVolume v = SyntheticVolume.withMeanUpdate("skew", 8192);
    Map<Long, Long> perRegion = v.generate(50_000, 2L).stream()
        .collect(java.util.stream.Collectors.groupingBy(u -> u.offset() / v.regionBytes(), java.util.stream.Collectors.counting()));
    long hottest = perRegion.values().stream().mapToLong(Long::longValue).max().orElse(0);
    // Zipf s = 1 over 4096 regions: rank 1 has weight 1 / H(4096) = 0.113.
    assertEquals(0.113, hottest / 50_000.0, 0.01);
  }

  @Test
  void traceFormatRoundTripsAndBadLinesAreNamed() throws IOException {
    List<TraceUpdate> t = SyntheticVolume.withMeanUpdate("rt", 4096).generate(100, 3L);
    StringWriter w = new StringWriter();
    UpdateTraceFormat.write("volume=rt seed=3", t, w);
    assertTrue(w.toString().startsWith("# wide-ec update trace v1: time_us offset_bytes length_bytes; volume=rt seed=3\n"));
    assertEquals(t, UpdateTraceFormat.read(new StringReader(w.toString())));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> UpdateTraceFormat.read(new StringReader("# h\n10 4096\n")));
    assertEquals("trace line 2 '10 4096' is not 'time offset length'", e.getMessage());
  }

  @Test
  void paperFaithfulReplayCountsEachTouchedStripeAndRackCuNeverCrossesMoreThanCauOrBaseline() {
    UpdateTraceReplayer r = UpdateTraceReplayer.paperFaithful();
    // 4 KiB at offset 46 KiB: chunks 11 and 12, the last unit of stripe 0 and the first of stripe 1.
    Map<String, UpdateTraffic> one = r.replay(List.of(new TraceUpdate(0, 46 * 1024, 4096)));
    assertEquals(2, one.get("rackcu").stripeUpdates());
    assertEquals(2 * 4, one.get("baseline").crossRackChunks());
    assertEquals(2 * 8, one.get("parix").crossRackChunks());
    for (SyntheticVolume v : SyntheticVolume.figure6Range()) {
      Map<String, UpdateTraffic> t = r.replay(v.generate(1000, 4L));
      long rackcu = t.get("rackcu").crossRackChunks();
      assertTrue(rackcu <= t.get("cau").crossRackChunks() && t.get("cau").crossRackChunks() <= t.get("baseline").crossRackChunks(), v.name() + " " + t);
    }
  }
}
