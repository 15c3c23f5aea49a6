package org.wideec.code;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.wideec.gf.Matrix;

/**
 * On-disk format 1 never drifts: every pinned code has exactly the checked-in generator and codeword
 * bytes (golden vectors, hashes for the whole table), and no code is pinned without them. The coders are
 * checked against the same vectors in org.wideec.coder.GoldenVectorCoderTest.
 */
class GoldenVectorTest {

  static List<GoldenVectors.Vector> vectors() {
    return GoldenVectors.vectors();
  }

  @ParameterizedTest
  @MethodSource("vectors")
  void goldenCodeIsPinnedWithExactlyTheGoldenGenerator(GoldenVectors.Vector golden) {
    LinearCode code = Codes.fromSpec(golden.spec());
    assertTrue(code.pinned(), golden.spec());
    assertEquals(1, code.formatVersion());
    assertEquals(golden.generator().length, code.n(), golden.spec() + " units");
    for (int u = 0; u < code.n(); u++) {
      byte[] row = new byte[code.k()];
      for (int i = 0; i < row.length; i++) {
        row[i] = (byte) code.generator().get(u, i);
      }
      assertArrayEquals(golden.generator()[u], row, golden.spec() + " generator row " + u);
    }
  }

  @ParameterizedTest
  @MethodSource("vectors")
  void goldenCodewordIsTheFixedDataTimesThePinnedGenerator(GoldenVectors.Vector golden) {
    byte[][] units = GoldenData.codeword(Codes.fromSpec(golden.spec()).generator());
    assertEquals(golden.codeword().length, units.length);
    for (int u = 0; u < units.length; u++) {
      assertArrayEquals(golden.codeword()[u], units[u], golden.spec() + " unit " + u);
    }
  }

  @Test
  void everyPinnedCodeHasItsGoldenGeneratorAndCodewordHashes() {
    Map<String, GoldenVectors.Hashes> golden = GoldenVectors.hashes();
    assertEquals(golden.keySet(), CodeFormat.pinnedSpecs(), "pinned codes and golden hashes must list the same specs");
    List<String> differing = new ArrayList<>();
    for (String spec : CodeFormat.pinnedSpecs()) {
      LinearCode code = Codes.fromSpec(spec);
      assertTrue(code.pinned(), spec);
      assertEquals(spec, code.spec());
      GoldenVectors.Hashes h = GoldenVectors.hashesOf(spec, code.generator(), GoldenData.codeword(code.generator()));
      if (!h.equals(golden.get(spec))) {
        differing.add(spec);
      }
    }
    assertEquals(List.of(), differing, "codes whose bytes differ from format 1");
  }

  @Test
  void formatOnePinsTheWideAndArchivalCatalogue() {
    assertEquals(1, CodeFormat.FORMAT_VERSION);
    for (String spec : FormatGenerator.CATALOGUE) {
      assertTrue(CodeFormat.isPinned(spec), spec);
    }
    for (int n = 2; n <= 16; n++) {
      for (int k = (n + 1) / 2; k < n; k++) {
        assertTrue(CodeFormat.isPinned("rapidraid:n=" + n + ",k=" + k), "rapidraid n=" + n + " k=" + k);
      }
    }
    for (GoldenVectors.Vector v : GoldenVectors.vectors()) {
      assertTrue(CodeFormat.isPinned(v.spec()), v.spec());
    }
  }

  /** Format 1 is what the constructions of this version produced; the searched families show it best. */
  @ParameterizedTest
  @ValueSource(strings = {"azure-lrc:k=12,l=2,g=2", "azure-lrc+1:k=10,l=2,g=2", "azure-lrc:k=6,l=2,g=2",
      "rapidraid:n=8,k=4", "rapidraid:n=12,k=8", "uniform-cauchy-lrc:k=10,l=2,g=2", "unilrc:alpha=1,z=3"})
  void pinnedCoefficientsAreWhatTheConstructionProduces(String spec) {
    LinearCode searched = Codes.construct(spec);
    LinearCode pinned = Codes.fromSpec(spec);
    assertFalse(searched.pinned());
    assertEquals(searched.generator(), pinned.generator());
    assertEquals(searched.notes(), pinned.notes());
    assertEquals(searched.guaranteedTolerance(), pinned.guaranteedTolerance());
    assertEquals(searched.localGroups().size(), pinned.localGroups().size());
  }

  @Test
  void aSpecOutsideTheTableIsBuiltForAnalysisButNeverForStoredData() {
    LinearCode analysed = Codes.fromSpec("azure-lrc:k=20,r=5,g=3");
    assertFalse(analysed.pinned());
    assertEquals(0, analysed.formatVersion());
    InvalidCodeSpecException e = assertThrows(InvalidCodeSpecException.class,
        () -> Codes.pinnedFromSpec("azure-lrc:g=3,k=20,r=5"));
    assertTrue(e.getMessage().startsWith("azure-lrc:k=20,r=5,g=3 is not a code of on-disk format 1"), e.getMessage());
    assertTrue(e.getMessage().contains("refusing to encode or decode stored data"), e.getMessage());
  }

  @Test
  void aClosedFormConstructionThatNoLongerYieldsItsPinnedGeneratorIsRefused() {
    PinnedCode other = new PinnedCode("rs:k=2,m=1", 3, 2, new int[][] {{1, 2}}, 1, "");
    InvalidCodeSpecException e = assertThrows(InvalidCodeSpecException.class,
        () -> Codes.fromPinned(CodeSpec.parse("rs:k=2,m=1"), other));
    assertTrue(e.getMessage().startsWith("rs:k=2,m=1: its construction no longer yields the generator that on-disk"
        + " format 1 pins"), e.getMessage());
  }

  @Test
  void parameterOrderDoesNotChangeWhichCodeASpecMeans() {
    assertSame(Codes.fromSpec("azure-lrc:k=12,l=2,g=2"), Codes.fromSpec("azure-lrc:g=2,l=2,k=12"));
    assertEquals("unilrc:alpha=1,z=3", Codes.canonical(" UniLRC: z=3, alpha=1"));
    assertTrue(Codes.pinnedFromSpec("rapidraid:k=4,n=8").pinned());
  }

  @Test
  void aTableOfAnotherVersionOrWithADuplicateIsRejectedNamingTheLine() {
    String line = PinnedCode.of(Codes.construct("rs:k=2,m=1")).toLine();
    IllegalArgumentException wrongVersion = assertThrows(IllegalArgumentException.class,
        () -> CodeFormat.read(new StringReader("# c\nformat\t2\n" + line + "\n"), "t"));
    assertTrue(wrongVersion.getMessage().startsWith("t:2: expected 'format 1'"), wrongVersion.getMessage());
    IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
        () -> CodeFormat.read(new StringReader("format\t1\n" + line + "\n" + line + "\n"), "t"));
    assertEquals("t:3: rs:k=2,m=1 pinned twice", twice.getMessage());
    IllegalArgumentException shortRow = assertThrows(IllegalArgumentException.class,
        () -> CodeFormat.read(new StringReader("format\t1\nrs:k=2,m=1\t3\t2\t1\t01\tx\n"), "t"));
    assertTrue(shortRow.getMessage().startsWith("t:2: rs:k=2,m=1: a pinned row has 1 coefficients, k = 2"),
        shortRow.getMessage());
  }

  @Test
  void aPinnedLineRoundTrips() throws Exception {
    PinnedCode c = PinnedCode.of(Codes.construct("rapidraid:n=6,k=4"));
    PinnedCode back = CodeFormat.read(new StringReader("format\t1\n" + c.toLine() + "\n"), "t").get("rapidraid:n=6,k=4");
    assertFalse(back.systematic());
    Matrix g = back.generator();
    assertEquals(Codes.construct("rapidraid:n=6,k=4").generator(), g);
    assertEquals(c.notes(), back.notes());
  }
}
