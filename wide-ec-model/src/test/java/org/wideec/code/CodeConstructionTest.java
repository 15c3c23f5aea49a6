package org.wideec.code;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CodeConstructionTest {

  static long binomial(int n, int r) {
    return RepairPlanner.binomial(n, r);
  }

  static double averageCost(LinearCode c, int from, int to) {
    double sum = 0;
    for (int u = from; u < to; u++) {
      sum += c.repairPlan(u).cost();
    }
    return sum / (to - from);
  }

  @ParameterizedTest
  @ValueSource(strings = {"azure-lrc:k=12,l=2,g=2", "azure-lrc:k=6,l=2,g=2", "azure-lrc:k=10,r=5,g=2",
      "azure-lrc:k=16,l=4,g=2", "azure-lrc:k=14,l=2,g=3", "azure-lrc:k=20,r=5,g=3", "azure-lrc+1:k=12,l=2,g=2"})
  void azureLrcToleratesAnyNMinusKMinusCeilKOverRPlusOneLosses(String spec) {
    LinearCode c = Codes.fromSpec(spec);
    int dataGroups = (int) c.localGroups().stream().filter(g -> g.members().length > 0
        && c.role(g.members()[0]) == UnitRole.DATA).count();
    int tolerated = c.n() - c.k() - dataGroups + 1 - (spec.startsWith("azure-lrc+1") ? 1 : 0);
    ErasurePatterns p = ErasurePatterns.of(c);
    assertEquals(binomial(c.n(), tolerated), p.countDecodable(tolerated), spec + " must survive any " + tolerated);
    assertTrue(p.countDecodable(tolerated + 1) < binomial(c.n(), tolerated + 1), spec + " cannot survive every " + (tolerated + 1));
  }

  /**
   * Information-theoretic decodability of an Azure-LRC pattern (Huang et al. §2): each surviving local parity
   * fixes one lost data unit of its group; the rest must be covered by surviving global parities.
   */
  static boolean azureDecodableInPrinciple(int k, int l, int g, int[] erased) {
    int per = k / l;
    int[] lostData = new int[l];
    boolean[] localAlive = new boolean[l];
    java.util.Arrays.fill(localAlive, true);
    int globalsAlive = g;
    for (int u : erased) {
      if (u < k) {
        lostData[u / per]++;
      } else if (u < k + g) {
        globalsAlive--;
      } else {
        localAlive[u - k - g] = false;
      }
    }
    int excess = 0;
    for (int i = 0; i < l; i++) {
      excess += Math.max(0, lostData[i] - (localAlive[i] ? 1 : 0));
    }
    return excess <= globalsAlive;
  }

  @Test
  void azureLrc12_2_2DecodesEveryInformationTheoreticallyDecodableFourLossPattern() {
    LinearCode c = Codes.fromSpec("azure-lrc:k=12,l=2,g=2");
    int[] e = {0, 1, 2, 3};
    int decodable = 0;
    do {
      boolean principle = azureDecodableInPrinciple(12, 2, 2, e);
      assertEquals(principle, c.isDecodable(e), "pattern " + java.util.Arrays.toString(e));
      decodable += principle ? 1 : 0;
    } while (RepairPlanner.next(e, 16));
    assertEquals(1568, decodable);
  }

  @Test
  void unitsAreOrderedDataThenGlobalThenLocal() {
    LinearCode c = Codes.fromSpec("azure-lrc:k=12,l=2,g=2");
    assertTrue(c.isSystematic());
    for (int u = 0; u < 16; u++) {
      UnitRole expected = u < 12 ? UnitRole.DATA : u < 14 ? UnitRole.GLOBAL_PARITY : UnitRole.LOCAL_PARITY;
      assertEquals(expected, c.role(u));
    }
    assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5, 14}, c.localGroups().get(0).members());
  }

  @Test
  void recoveryLocalityOfTheN42K30ExamplesMatchesUniLrcFigure1() {
    assertEquals(8.57, averageCost(Codes.fromSpec("azure-lrc:k=30,l=6,g=6"), 0, 42), 0.005);
    assertEquals(25.0, averageCost(Codes.fromSpec("optimal-cauchy-lrc:k=30,l=2,g=10"), 0, 42), 1e-9);
    assertEquals(7.43, averageCost(Codes.fromSpec("uniform-cauchy-lrc:k=30,l=5,g=7"), 0, 42), 0.005);
    LinearCode uni = Codes.fromSpec("unilrc:alpha=1,z=6");
    assertEquals(6.0, averageCost(uni, 0, 42), 1e-9);
    for (int u = 0; u < 42; u++) {
      assertTrue(uni.repairPlan(u).xorOnly(), "UniLRC repairs unit " + u + " by XOR");
    }
  }

  @ParameterizedTest
  @CsvSource({"1,3", "2,2", "1,4", "2,3", "3,2"})
  void uniLrcToleratesAnyRPlusOneLossesAndStaysWithinTheLrcBound(int alpha, int z) {
    LinearCode c = Codes.fromSpec("unilrc:alpha=" + alpha + ",z=" + z);
    int r = alpha * z;
    assertEquals(alpha * z * z + z, c.n());
    assertEquals(alpha * z * (z - 1), c.k());
    assertEquals(z, c.localGroups().size());
    for (LocalGroup g : c.localGroups()) {
      assertEquals(r + 1, g.size());
      assertTrue(g.xor());
    }
    int d = MinimumDistance.of(c).value();
    // Theorem 3.2 claims d = r + 2 exactly. Exhaustive enumeration confirms d >= r + 2 (any r + 1 losses
    // decode), the property the paper's one-cluster-failure argument needs; for some small (alpha, z), e.g.
    // (1, 3), the exact distance is r + 3, which the Singleton-type bound n - k - ceil(k/r) + 2 still allows.
    assertTrue(d >= r + 2, "distance " + d + " < r + 2 = " + (r + 2));
    assertTrue(d <= c.n() - c.k() - (c.k() + r - 1) / r + 2);
  }

  @Test
  void uniLrc42_30HasRecoveryLocalitySixAndSurvivesAnySevenLosses() {
    LinearCode c = Codes.fromSpec("unilrc:alpha=1,z=6");
    for (int u = 0; u < c.n(); u++) {
      assertEquals(6, c.repairPlan(u).cost());
    }
    assertEquals(binomial(42, 7), ErasurePatterns.of(c).countDecodable(7));
  }

  @Test
  void rapidRaid8_4HasExactlyOneDependentFourSubset() {
    LinearCode c = Codes.fromSpec("rapidraid:n=8,k=4");
    List<int[]> natural = RapidRaid.naturalDependencies(8, 4);
    assertEquals(1, natural.size());
    assertArrayEquals(new int[] {0, 1, 4, 5}, natural.get(0)); // {c1, c2, c5, c6}
    int dependent = 0;
    int[] kept = {0, 1, 2, 3};
    do {
      if (c.generator().selectRows(kept).rank() < 4) {
        dependent++;
        assertArrayEquals(new int[] {0, 1, 4, 5}, kept);
      }
    } while (RepairPlanner.next(kept, 8));
    assertEquals(1, dependent);
  }

  @Test
  void rapidRaidCodesUpToTwelveAreMdsExactlyWhenKAtLeastNMinusThree() {
    for (int n = 4; n <= 12; n++) {
      for (int k = (n + 1) / 2; k < n; k++) {
        LinearCode c = Codes.fromSpec("rapidraid:n=" + n + ",k=" + k);
        boolean mds = ErasurePatterns.of(c).countDecodable(n - k) == binomial(n, n - k);
        assertEquals(k >= n - 3, mds, "RapidRAID(" + n + "," + k + ")");
      }
    }
  }

  @Test
  void rapidRaidIsPipelinedEquationsThreeAndFour() {
    // c_i differs from c_{i+1} only by what node i and i+1 hold: row i+1 - row i touches only their blocks.
    LinearCode c = Codes.fromSpec("rapidraid:n=8,k=4");
    for (int i = 0; i + 1 < 8; i++) {
      int[] a = c.generator().row(i);
      int[] b = c.generator().row(i + 1);
      for (int col = 0; col < 4; col++) {
        final int j = col;
        final int node = i;
        boolean touched = java.util.Arrays.stream(RapidRaid.blocksOnNode(8, 4, node)).anyMatch(x -> x == j)
            || java.util.Arrays.stream(RapidRaid.blocksOnNode(8, 4, node + 1)).anyMatch(x -> x == j);
        if (!touched) {
          assertEquals(a[j], b[j], "column " + j + " between c" + (i + 1) + " and c" + (i + 2));
        }
      }
    }
    assertFalse(c.isSystematic());
  }

  @Test
  void reedSolomonIsMdsAndRepairsFromKUnits() {
    LinearCode c = Codes.fromSpec("rs:k=10,m=4");
    assertEquals(binomial(14, 4), ErasurePatterns.of(c).countDecodable(4));
    assertEquals(0, ErasurePatterns.of(c).countDecodable(5));
    assertEquals(10, c.repairPlan(3).cost());
    assertEquals(5, MinimumDistance.of(c).value());
    assertTrue(MinimumDistance.of(c).exact());
  }

  @Test
  void localRepairUsesTheGroupAndXor() {
    LinearCode c = Codes.fromSpec("azure-lrc:k=12,l=2,g=2");
    RepairPlan p = c.repairPlan(7);
    assertArrayEquals(new int[] {6, 8, 9, 10, 11, 15}, p.helpers());
    assertTrue(p.xorOnly());
    assertTrue(p.local());
    assertEquals(12, c.repairPlan(12).cost());
  }
}
