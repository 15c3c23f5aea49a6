package org.wideec.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.wideec.protocol.StepRequest;
import org.wideec.repair.RebuildValidation;

/** The streams a second decode asks for: every sampled slice, nothing else, in as few streams as the wire allows. */
class SecondDecodeTest {
  @Test
  void theDefaultSampleAndEverySliceAreOneStream() {
    RebuildValidation v = new RebuildValidation(true, RebuildValidation.DEFAULT_SLICES);
    for (int seed = 0; seed < 50; seed++) {
      int[] sample = v.sample(40, new Random(seed));
      assertEquals(List.of(new SecondDecode.Progression(sample[0], 39 - sample[0], 39)),
          SecondDecode.Progression.cover(sample));
    }
    assertEquals(List.of(new SecondDecode.Progression(0, 1, 12)),
        SecondDecode.Progression.cover(new RebuildValidation(true, 0).sample(13, new Random(1))));
    assertEquals(List.of(new SecondDecode.Progression(5, 1, 5)), SecondDecode.Progression.cover(new int[] {5}));
  }

  @Test
  void aLargerSampleIsCoveredExactlyByAtMostHalfAsManyStreams() {
    for (int seed = 0; seed < 200; seed++) {
      int slices = 3 + seed % 6;
      int[] sample = new RebuildValidation(true, slices).sample(64, new Random(seed));
      List<SecondDecode.Progression> cover = SecondDecode.Progression.cover(sample);
      TreeSet<Integer> carried = new TreeSet<>();
      for (SecondDecode.Progression p : cover) {
        // What the helpers send for such a stream: its range ends with the progression's last slice.
        StepRequest req = new StepRequest(new org.wideec.repair.BlockRef("BP", 1, 1, 64 * 10), 1,
            (long) (p.last() + 1) * 10, 10, 0, 1, List.of()).carrying(p.first(), p.stride());
        for (int s = req.firstSlice(); s < req.slices(); s += req.stride()) {
          carried.add(s);
        }
      }
      TreeSet<Integer> expected = new TreeSet<>();
      for (int s : sample) {
        expected.add(s);
      }
      assertEquals(expected, carried, "seed " + seed);
      assertTrue(cover.size() <= (slices + 1) / 2, cover + " for " + slices);
    }
  }
}
