package org.wideec.archive;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import org.wideec.code.LinearCode;
import org.wideec.code.NotDecodableException;

/**
 * Which k codewords of a sealed stripe to decode from. A RapidRAID code is not MDS in general:
 * some k-subsets are dependent, so "any k" is wrong and every choice is checked against the exact generator. The
 * reader's choice is {@link #basis}: the first independent codewords in unit order among the live ones, the rule
 * {@code ErasureCoder.reconstructData} applies, so verifying that subset verifies what reads will use.
 */
public final class CodewordSubsets {
  private CodewordSubsets() {}

  /** The first k available codewords (unit order) whose generator rows are independent; NotDecodableException if none. */
  public static int[] basis(LinearCode code, BitSet available) {
    List<Integer> chosen = new ArrayList<>();
    for (int u = available.nextSetBit(0); u >= 0 && chosen.size() < code.k(); u = available.nextSetBit(u + 1)) {
      chosen.add(u);
      if (!independent(code, chosen)) {
        chosen.remove(chosen.size() - 1);
      }
    }
    if (chosen.size() < code.k()) {
      throw new NotDecodableException(code.spec() + ": codewords " + available + " span rank " + chosen.size()
          + " < k = " + code.k() + "; the stripe cannot be decoded");
    }
    return chosen.stream().mapToInt(Integer::intValue).toArray();
  }

  /** True when the given k codewords decode the data. */
  public static boolean decodable(LinearCode code, int[] units) {
    List<Integer> l = new ArrayList<>();
    for (int u : units) {
      l.add(u);
    }
    return units.length == code.k() && independent(code, l);
  }

  /**
   * Up to {@code count} distinct decodable k-subsets drawn at random, each different from {@code except} (sorted
   * units); fewer only when the code has fewer. Tries a bounded number of draws.
   */
  public static List<int[]> randomDecodable(LinearCode code, Random rnd, int count, int[] except) {
    List<int[]> out = new ArrayList<>();
    java.util.Set<String> seen = new java.util.HashSet<>();
    seen.add(java.util.Arrays.toString(except));
    for (int tries = 0; out.size() < count && tries < 1000; tries++) {
      List<Integer> all = new ArrayList<>();
      for (int u = 0; u < code.n(); u++) {
        all.add(u);
      }
      java.util.Collections.shuffle(all, rnd);
      int[] pick = all.subList(0, code.k()).stream().mapToInt(Integer::intValue).sorted().toArray();
      if (decodable(code, pick) && seen.add(java.util.Arrays.toString(pick))) {
        out.add(pick);
      }
    }
    return out;
  }

  private static boolean independent(LinearCode code, List<Integer> units) {
    return code.generator().selectRows(units.stream().mapToInt(Integer::intValue).toArray()).rank() == units.size();
  }
}
