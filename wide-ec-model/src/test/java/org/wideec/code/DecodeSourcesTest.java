package org.wideec.code;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DecodeSourcesTest {
  static final LinearCode AZURE_12_2_2 = Codes.fromSpec("azure-lrc:k=12,l=2,g=2");

  static BitSet allBut(LinearCode code, int... lost) {
    BitSet b = new BitSet();
    b.set(0, code.n());
    for (int u : lost) {
      b.clear(u);
    }
    return b;
  }

  static boolean rebuilds(LinearCode code, int[] sources, int[] wanted) {
    try {
      code.decodingMatrix(sources, wanted);
      return true;
    } catch (NotDecodableException e) {
      return false;
    }
  }

  /** Every subset of [0, n) of the given size, as sorted arrays. */
  static List<int[]> subsets(int n, int size) {
    List<int[]> out = new ArrayList<>();
    int[] idx = IntStream.range(0, size).toArray();
    if (size > n) {
      return out;
    }
    do {
      out.add(idx.clone());
    } while (RepairPlanner.next(idx, n));
    return out;
  }

  @Test
  void oneLostDataUnitIsReadFromItsLocalGroup() {
    assertArrayEquals(new int[] {0, 1, 2, 4, 5, 14}, DecodeSources.choose(AZURE_12_2_2, allBut(AZURE_12_2_2, 3), new int[] {3}));
    assertArrayEquals(new int[] {6, 7, 8, 10, 11, 15},
        DecodeSources.choose(AZURE_12_2_2, allBut(AZURE_12_2_2, 9, 0), new int[] {9}), "the other group's loss is no concern");
  }

  @Test
  void threeLostUnitsOfTheSecondGroupAreReadWithItsLocalParityNotTheStockReadersL1() {
    int[] lost = {9, 10, 11};
    int[] s = DecodeSources.choose(AZURE_12_2_2, allBut(AZURE_12_2_2, lost), lost);
    assertTrue(rebuilds(AZURE_12_2_2, s, lost), Arrays.toString(s));
    assertEquals(12, s.length, "three losses in one group need k units: " + Arrays.toString(s));
    assertTrue(Arrays.binarySearch(s, 15) >= 0, "L2 is a source: " + Arrays.toString(s));
    assertFalse(rebuilds(AZURE_12_2_2, new int[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 14}, lost),
        "the stock reader's choice (G1, G2, L1) cannot rebuild them (DESIGN.md §2)");
  }

  @Test
  void fourLossesAcrossBothGroupsDecode() {
    int[] lost = {0, 1, 6, 7};
    assertTrue(ErasurePatterns.of(AZURE_12_2_2).isDecodable(lost));
    int[] s = DecodeSources.choose(AZURE_12_2_2, allBut(AZURE_12_2_2, lost), lost);
    assertTrue(rebuilds(AZURE_12_2_2, s, lost));
    int[] one = DecodeSources.choose(AZURE_12_2_2, allBut(AZURE_12_2_2, lost), new int[] {0});
    assertTrue(rebuilds(AZURE_12_2_2, one, new int[] {0}));
  }

  @Test
  void anUndecodablePatternIsRejectedNamingCodeAndUnits() {
    int[] lost = {0, 1, 2, 3};
    NotDecodableException e = assertThrows(NotDecodableException.class,
        () -> DecodeSources.choose(AZURE_12_2_2, allBut(AZURE_12_2_2, lost), lost));
    assertTrue(e.getMessage().contains("azure-lrc:k=12,l=2,g=2") && e.getMessage().contains("[0, 1, 2, 3]"), e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> DecodeSources.choose(AZURE_12_2_2, allBut(AZURE_12_2_2), new int[] {3}), "an available unit is read, not rebuilt");
  }

  @Test
  void freeUnitsAreUsedFirstAndNeverPruned() {
    // A short group: units 6..11 hold nothing in this range, so they are zero and free.
    BitSet free = new BitSet();
    free.set(6, 12);
    int[] lost = {0, 1};
    int[] s = DecodeSources.choose(AZURE_12_2_2, allBut(AZURE_12_2_2, lost), free, lost);
    assertTrue(rebuilds(AZURE_12_2_2, s, lost));
    long paid = Arrays.stream(s).filter(u -> !free.get(u)).count();
    assertEquals(6, paid, "four data units and two parities are read: " + Arrays.toString(s));
  }

  @ParameterizedTest
  @ValueSource(strings = {"azure-lrc:k=12,l=2,g=2", "azure-lrc+1:k=10,l=2,g=2", "uniform-cauchy-lrc:k=10,l=2,g=2",
      "unilrc:alpha=1,z=3"})
  void everyDecodablePatternIsServedAndEveryOtherIsRejected(String spec) {
    LinearCode c = Codes.fromSpec(spec);
    ErasurePatterns patterns = ErasurePatterns.of(c);
    int served = 0;
    for (int f = 1; f <= c.m(); f++) {
      for (int[] lost : subsets(c.n(), f)) {
        boolean decodable = patterns.isDecodable(lost);
        if (!decodable) {
          assertThrows(NotDecodableException.class, () -> DecodeSources.choose(c, allBut(c, lost), lost));
          continue;
        }
        int[] s = DecodeSources.choose(c, allBut(c, lost), lost);
        assertTrue(rebuilds(c, s, lost), spec + " " + Arrays.toString(lost) + " from " + Arrays.toString(s));
        for (int drop = 0; drop < s.length; drop++) {
          int d = drop;
          int[] fewer = IntStream.range(0, s.length).filter(i -> i != d).map(i -> s[i]).toArray();
          assertFalse(rebuilds(c, fewer, lost), spec + " " + Arrays.toString(lost) + ": source " + s[d] + " is not needed");
        }
        served++;
      }
    }
    assertTrue(served > 0);
  }

  /**
   * Exhaustive search: no smaller set of available units rebuilds the wanted units (UniLRC up to three
   * losses, where the greedy answer alone was beaten, to keep the brute force short).
   */
  @ParameterizedTest
  @CsvSource({"'azure-lrc:k=6,l=2,g=2', 4", "'unilrc:alpha=1,z=3', 3"})
  void readsNoMoreUnitsThanTheFewestThatSuffice(String spec, int maxLosses) {
    LinearCode c = Codes.fromSpec(spec);
    ErasurePatterns patterns = ErasurePatterns.of(c);
    for (int f = 1; f <= maxLosses; f++) {
      for (int[] lost : subsets(c.n(), f)) {
        if (!patterns.isDecodable(lost)) {
          continue;
        }
        int[] lostData = Arrays.stream(lost).filter(u -> u < c.k()).toArray();
        List<int[]> wantedSets = new ArrayList<>();
        if (lostData.length > 0) {
          wantedSets.add(lostData);
        }
        Arrays.stream(lostData).forEach(u -> wantedSets.add(new int[] {u}));
        int[] available = allBut(c, lost).stream().toArray();
        for (int[] wanted : wantedSets) {
          int chosen = DecodeSources.choose(c, allBut(c, lost), wanted).length;
          assertEquals(fewest(c, available, wanted), chosen, spec + " lost " + Arrays.toString(lost) + " wanted " + Arrays.toString(wanted));
        }
      }
    }
  }

  static int fewest(LinearCode c, int[] available, int[] wanted) {
    for (int size = 1; size <= available.length; size++) {
      for (int[] idx : subsets(available.length, size)) {
        if (rebuilds(c, Arrays.stream(idx).map(i -> available[i]).toArray(), wanted)) {
          return size;
        }
      }
    }
    throw new AssertionError("nothing rebuilds " + Arrays.toString(wanted));
  }
}
