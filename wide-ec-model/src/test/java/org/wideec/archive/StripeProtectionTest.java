package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.code.UnitSpan;

/**
 * The replication a stripe's remaining units need after members changed for good, held against the codes' exact
 * decodability: every way of losing {@code d} units for good and then {@code f} nodes (each remaining unit at the
 * computed replication on nodes of its own, so a unit is lost only when all its replicas' nodes are) leaves every
 * remaining member readable, and for an MDS code one replica fewer does not.
 */
class StripeProtectionTest {
  private static final String[] CODES = {"rs:k=4,m=2", "rs:k=4,m=3", "azure-lrc:k=6,l=2,g=2", "azure-lrc:k=4,l=2,g=1"};

  @Test
  void theReplicationIsTheSmallestThatKeepsTheStripeDecodable() {
    assertEquals(1, StripeProtection.of(3, 0).replication());
    assertEquals(2, StripeProtection.of(3, 1).replication()); // floor(3/2) + 1 = 2 <= 3
    assertEquals(2, StripeProtection.of(3, 2).replication()); // floor(3/2) + 2 = 3
    assertEquals(4, StripeProtection.of(3, 3).replication()); // floor(3/r) must be 0
    assertEquals(4, StripeProtection.of(3, 7).replication()); // d > f: each block alone survives f losses
    assertEquals(2, StripeProtection.of(4, 2).replication()); // floor(4/2) + 2 = 4
    assertEquals(3, StripeProtection.of(4, 3).replication()); // floor(4/3) + 3 = 4
    assertEquals(1, StripeProtection.of(0, 0).replication());
    assertEquals(1, StripeProtection.of(0, 2).replication()); // a code that claims nothing asks for nothing more
    for (int f = 0; f <= 12; f++) {
      for (int d = 0; d <= f + 3; d++) {
        int r = StripeProtection.of(f, d).replication();
        if (d <= f) {
          assertTrue(f / r + d <= f, "f=" + f + " d=" + d + " r=" + r);
          assertTrue(r == 1 || f / (r - 1) + d > f, "f=" + f + " d=" + d + ": " + (r - 1) + " would do");
        } else {
          assertEquals(f + 1, r, "f=" + f + " d=" + d);
        }
      }
    }
    assertThrows(IllegalArgumentException.class, () -> StripeProtection.of(-1, 0));
  }

  @Test
  void everyRemainingMemberIsReadableAfterTheCodesLossesAtTheComputedReplication() {
    for (String spec : CODES) {
      LinearCode code = Codes.fromSpec(spec);
      int f = StripeProtection.toleranceOf(code);
      for (int d = 0; d <= f + 2; d++) {
        int r = StripeProtection.of(code, d).replication();
        for (int[] gone : subsets(code.n(), d)) {
          // f node losses take the units all of whose r nodes they hit: floor(f / r) of them at worst.
          int[] remaining = without(code.n(), gone);
          for (int[] lost : subsets(remaining.length, f / r)) {
            assertTrue(readable(code, remaining, lost), spec + " with units " + java.util.Arrays.toString(gone)
                + " gone and " + indexes(remaining, lost) + " lost at replication " + r);
          }
        }
      }
    }
  }

  @Test
  void oneReplicaFewerLeavesSomeMemberOfAnMdsStripeUnreadable() {
    for (String spec : new String[] {"rs:k=4,m=2", "rs:k=4,m=3"}) {
      LinearCode code = Codes.fromSpec(spec);
      int f = StripeProtection.toleranceOf(code);
      for (int d = 1; d <= f; d++) {
        int r = StripeProtection.of(code, d).replication() - 1;
        int[] gone = subsets(code.n(), d).get(0);
        int[] remaining = without(code.n(), gone);
        boolean someUnreadable = false;
        for (int[] lost : subsets(remaining.length, f / r)) {
          someUnreadable |= !readable(code, remaining, lost);
        }
        assertTrue(someUnreadable, spec + " d=" + d + ": replication " + r + " already survives " + f + " losses");
      }
    }
  }

  /** Each lost remaining unit is rebuilt from the remaining units not lost (units gone for good never help). */
  private static boolean readable(LinearCode code, int[] remaining, int[] lostIdx) {
    boolean[] lost = new boolean[remaining.length];
    for (int i : lostIdx) {
      lost[i] = true;
    }
    UnitSpan span = new UnitSpan(code);
    for (int i = 0; i < remaining.length; i++) {
      if (!lost[i]) {
        span.add(remaining[i]);
      }
    }
    for (int i : lostIdx) {
      if (!span.canRebuild(remaining[i])) {
        return false;
      }
    }
    return true;
  }

  private static String indexes(int[] remaining, int[] idx) {
    List<Integer> out = new ArrayList<>();
    for (int i : idx) {
      out.add(remaining[i]);
    }
    return out.toString();
  }

  private static int[] without(int n, int[] gone) {
    boolean[] g = new boolean[n];
    for (int u : gone) {
      g[u] = true;
    }
    return java.util.stream.IntStream.range(0, n).filter(u -> !g[u]).toArray();
  }

  /** Every subset of {0..n-1} of size k (none when k > n). */
  private static List<int[]> subsets(int n, int k) {
    List<int[]> out = new ArrayList<>();
    collect(n, k, 0, new int[k], 0, out);
    return out;
  }

  private static void collect(int n, int k, int from, int[] acc, int depth, List<int[]> out) {
    if (depth == k) {
      out.add(acc.clone());
      return;
    }
    for (int u = from; u < n; u++) {
      acc[depth] = u;
      collect(n, k, u + 1, acc, depth + 1, out);
    }
  }
}
