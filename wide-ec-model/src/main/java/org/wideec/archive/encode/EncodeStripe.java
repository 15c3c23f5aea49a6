package org.wideec.archive.encode;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntFunction;
import org.wideec.code.LinearCode;
import org.wideec.placement.PlacementPlan;
import org.wideec.topology.Site;

/**
 * What an encoder is given: a stripe's code, where each data unit is held and how long it is, and where each parity
 * unit is to be written. A data unit of length 0 is virtual padding (the short last stripe of a directory, DESIGN.md
 * §3.2): it is never read and counts as zeros; a shorter unit reads as zeros past its end. Parities are as long as the
 * longest data unit.
 *
 * @param holders data unit (0..k-1) to the node holding the replica the encoder reads; units of length 0 need none
 * @param targets parity unit (k..n-1) to the node that stores it
 */
public record EncodeStripe(String name, LinearCode code, Map<Integer, Site> holders, long[] dataLengths,
    Map<Integer, Site> targets) {

  /**
   * @throws IllegalArgumentException naming the stripe and the code, unit or node at fault: an unpinned or
   *     non-systematic code, a missing holder or target, a negative length, a stripe without data
   */
  public EncodeStripe {
    if (!code.pinned()) {
      throw new IllegalArgumentException("stripe " + name + ": " + code.spec() + " is not a code of an on-disk format "
          + "(its coefficients are not pinned, code/CodeFormat): refusing to encode stored data with it");
    }
    if (!code.isSystematic()) {
      throw new IllegalArgumentException("stripe " + name + ": " + code.spec() + " is not systematic; these encoders "
          + "keep the data units as they are and compute parities (RapidRAID's pipelined archival is another encoder)");
    }
    if (dataLengths.length != code.k()) {
      throw new IllegalArgumentException("stripe " + name + ": " + dataLengths.length + " data lengths for " + code.spec()
          + " (k = " + code.k() + ")");
    }
    dataLengths = dataLengths.clone();
    holders = Map.copyOf(holders);
    targets = Map.copyOf(targets);
    for (int u = 0; u < code.k(); u++) {
      if (dataLengths[u] < 0) {
        throw new IllegalArgumentException("stripe " + name + ": data unit " + u + " has length " + dataLengths[u]);
      }
      if (dataLengths[u] > 0 && !holders.containsKey(u)) {
        throw new IllegalArgumentException("stripe " + name + ": data unit " + u + " (" + dataLengths[u]
            + " bytes) has no holder");
      }
    }
    for (int u : holders.keySet()) {
      if (u < 0 || u >= code.k()) {
        throw new IllegalArgumentException("stripe " + name + ": unit " + u + " is held as data but " + code.spec()
            + " has data units 0.." + (code.k() - 1));
      }
    }
    for (int p = code.k(); p < code.n(); p++) {
      if (!targets.containsKey(p)) {
        throw new IllegalArgumentException("stripe " + name + ": parity unit " + p + " (" + code.role(p) + ") has no target");
      }
    }
    if (targets.size() != code.n() - code.k()) {
      throw new IllegalArgumentException("stripe " + name + ": targets " + new TreeMap<>(targets).keySet()
          + " name units that are not parities of " + code.spec());
    }
    if (Arrays.stream(dataLengths).max().orElse(0) == 0) {
      throw new IllegalArgumentException("stripe " + name + ": every data unit is empty; nothing to encode");
    }
  }

  /**
   * A stripe laid out by a placement plan: unit u on node {@code nodeOf(u)} in rack "r" + its rack, each data unit
   * read where the plan keeps it and each parity written where the plan puts it (an archival stripe's layout).
   */
  public static EncodeStripe placed(String name, PlacementPlan plan, long[] dataLengths, IntFunction<String> nodeOf) {
    LinearCode code = plan.code();
    Map<Integer, Site> holders = new HashMap<>();
    Map<Integer, Site> targets = new HashMap<>();
    for (int u = 0; u < code.n(); u++) {
      Site site = new Site(nodeOf.apply(u), "r" + plan.rackOf(u));
      if (u >= code.k()) {
        targets.put(u, site);
      } else if (dataLengths.length == code.k() && dataLengths[u] > 0) {
        holders.put(u, site);
      }
    }
    return new EncodeStripe(name, code, holders, dataLengths, targets);
  }

  /**
   * An archival stripe as both the dry run and the chain encoder see it: the stored data units' holders and the
   * stored parities' targets. A virtual parity (zero, never stored) is given the holder of the lowest stored data
   * unit as its target, so its tree (no steps) costs nothing and the plan is the same wherever it is made.
   */
  public static EncodeStripe archival(String name, LinearCode code, Map<Integer, Site> holders, long[] dataLengths,
      Map<Integer, Site> storedTargets) {
    Site first = null;
    for (int u = 0; u < code.k() && first == null; u++) {
      first = holders.get(u);
    }
    Map<Integer, Site> targets = new HashMap<>(storedTargets);
    for (int p = code.k(); p < code.n(); p++) {
      if (!targets.containsKey(p) && first != null) {
        targets.put(p, first);
      }
    }
    return new EncodeStripe(name, code, holders, dataLengths, targets);
  }

  @Override
  public long[] dataLengths() {
    return dataLengths.clone();
  }

  public long dataLength(int unit) {
    return dataLengths[unit];
  }

  /** Length of every parity unit: the longest data unit (shorter ones count as zero padded). */
  public long parityLength() {
    return Arrays.stream(dataLengths).max().orElse(0);
  }

  /** Data units that hold bytes (length > 0), ascending: the only ones an encoder reads. */
  public int[] nonEmptyDataUnits() {
    return java.util.stream.IntStream.range(0, code.k()).filter(u -> dataLengths[u] > 0).toArray();
  }
}
