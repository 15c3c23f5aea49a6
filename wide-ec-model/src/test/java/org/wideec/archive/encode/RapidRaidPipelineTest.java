package org.wideec.archive.encode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.gf.Gf256;

/**
 * psi/xi read back from the pinned generators: running the pipeline symbolically (each x and c as a vector of piece
 * coefficients) yields exactly the generator's rows, for every (n, k) the issue names and small ones.
 */
class RapidRaidPipelineTest {
  @ParameterizedTest
  @ValueSource(strings = {"rapidraid:n=16,k=11", "rapidraid:n=8,k=4", "rapidraid:n=12,k=8", "rapidraid:n=6,k=4",
      "rapidraid:n=5,k=3", "rapidraid:n=7,k=6", "rapidraid:n=10,k=5"})
  void thePipelinesCodewordsAreTheGeneratorsRows(String spec) {
    LinearCode code = Codes.pinnedFromSpec(spec);
    RapidRaidPipeline p = RapidRaidPipeline.of(code);
    int n = code.n();
    int k = code.k();
    int[] x = new int[k];
    for (int i = 0; i < n; i++) {
      RapidRaidPipeline.Position pos = p.position(i);
      assertArrayEquals(RapidRaidPipeline.piecesAt(n, k, i), pos.pieces());
      int[] c = x.clone();
      for (int t = 0; t < pos.pieces().length; t++) {
        int j = pos.pieces()[t];
        assertTrue(j == i || j == i - (n - k), spec + ": position " + i + " holds piece " + j);
        c[j] ^= pos.xi()[t];
        x[j] ^= pos.psi()[t];
      }
      assertArrayEquals(code.generator().row(i), c, spec + ": c_" + i);
      for (int t = 0; t < pos.pieces().length; t++) {
        assertTrue(pos.psi()[t] < Gf256.INSTANCE.size() && pos.xi()[t] < Gf256.INSTANCE.size());
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"rs:k=6,m=3", "azure-lrc:k=6,l=2,g=2"})
  void aCodeThatIsNotARapidRaidPipelineIsRefused(String spec) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> RapidRaidPipeline.of(Codes.pinnedFromSpec(spec)));
    assertTrue(e.getMessage().startsWith(Codes.pinnedFromSpec(spec).spec() + " is not a pinned RapidRAID code"),
        e.getMessage());
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 3, 4, 7})
  void positionsHoldTheTwoReplicasAsThePaperLaysThemOut(int i) {
    int[][] expected = {{0}, {1}, {2, 0}, {3, 1}, {4, 2}, {5, 3}, {4}, {5}};
    assertArrayEquals(expected[i], RapidRaidPipeline.piecesAt(8, 6, i));
    assertEquals(8, Codes.pinnedFromSpec("rapidraid:n=8,k=6").n());
  }
}
