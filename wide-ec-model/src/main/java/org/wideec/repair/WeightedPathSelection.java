package org.wideec.repair;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * ECPipe §4.2, Algorithm 1: the path of {@code size} helpers ending at the requestor that minimises the
 * heaviest link, by depth-first extension from the requestor backwards that prunes any link at least as
 * heavy as the best complete path found so far. {@code acceptable} restricts complete paths to helper sets
 * that can rebuild the lost unit (any k for an MDS code; the local group for an LRC).
 */
public final class WeightedPathSelection {
  private final List<UnitLocation> candidates;
  private final String requestor;
  private final int size;
  private final LinkWeights weights;
  private final Predicate<List<UnitLocation>> acceptable;
  private final List<UnitLocation> path = new ArrayList<>();
  private final boolean[] used;
  private List<UnitLocation> best;
  private double bestWeight = Double.POSITIVE_INFINITY;

  private WeightedPathSelection(List<UnitLocation> candidates, String requestor, int size, LinkWeights weights,
      Predicate<List<UnitLocation>> acceptable) {
    this.candidates = candidates;
    this.requestor = requestor;
    this.size = size;
    this.weights = weights;
    this.acceptable = acceptable;
    this.used = new boolean[candidates.size()];
  }

  /**
   * The optimal chain (first element sends first; the last sends to the requestor), or null when no
   * acceptable chain of that size exists.
   */
  public static List<UnitLocation> optimal(List<UnitLocation> candidates, String requestor, int size, LinkWeights weights,
      Predicate<List<UnitLocation>> acceptable) {
    if (size < 1 || size > candidates.size()) {
      throw new IllegalArgumentException("a path of " + size + " helpers from " + candidates.size() + " candidates");
    }
    WeightedPathSelection s = new WeightedPathSelection(candidates, requestor, size, weights, acceptable);
    s.extend(0.0);
    return s.best;
  }

  /** Heaviest link of a chain ending at the requestor. */
  public static double bottleneck(List<UnitLocation> chain, String requestor, LinkWeights weights) {
    double max = 0;
    for (int i = 0; i < chain.size(); i++) {
      String to = i + 1 < chain.size() ? chain.get(i + 1).node() : requestor;
      max = Math.max(max, weights.weight(chain.get(i).node(), to));
    }
    return max;
  }

  // path holds the chain built so far from its head (index 0 = the node sending first) to the requestor.
  private void extend(double maxSoFar) {
    if (path.size() == size) {
      if (acceptable.test(path)) {
        best = new ArrayList<>(path);
        bestWeight = maxSoFar;
      }
      return;
    }
    String head = path.isEmpty() ? requestor : path.get(0).node();
    for (int i = 0; i < candidates.size(); i++) {
      if (used[i]) {
        continue;
      }
      double w = weights.weight(candidates.get(i).node(), head);
      if (w < bestWeight) {
        used[i] = true;
        path.add(0, candidates.get(i));
        extend(Math.max(maxSoFar, w));
        path.remove(0);
        used[i] = false;
      }
    }
  }
}
