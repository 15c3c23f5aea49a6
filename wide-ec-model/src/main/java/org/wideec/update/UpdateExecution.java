package org.wideec.update;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.wideec.gf.Gf256;

/**
 * The reference executor of update plans: runs a plan's transfers in order on real bytes and returns the stripe
 * after the update. It checks as it goes that every sender holds what it sends, and at the end that every parity's
 * accumulated delta is exactly its generator row applied to the deltas of the units that change (so a contribution
 * missed, counted twice, or taken from a parity before it was complete is an error naming the parity); a parity the
 * pattern drops must receive nothing and comes out as a zero block. The engine that carries plans out on DataNodes
 * must agree with it; tests compare its output with a fresh encode.
 */
public final class UpdateExecution {
  private final UpdatePlan plan;
  private final UpdatePattern pattern;
  private final int k;

  /** A delta as it travels: its bytes and, for checking, its coefficient on each data unit's delta. */
  private record Delta(byte[] bytes, int[] coef) {}

  private UpdateExecution(UpdatePlan plan) {
    this.plan = plan;
    this.pattern = plan.pattern();
    this.k = pattern.code().k();
  }

  /**
   * Parix's per-parity-node log of the last content it saw of each data unit, kept across updates (mutable; one
   * per stripe).
   */
  public static final class ParixLog {
    private final Map<Long, byte[]> last = new HashMap<>();

    byte[] get(int parity, int unit) {
      return last.get(((long) parity << 32) | unit);
    }

    void put(int parity, int unit, byte[] content) {
      last.put(((long) parity << 32) | unit, content.clone());
    }
  }

  /**
   * Applies the plan.
   *
   * @param oldUnits all n units of the stripe before the update, equal lengths
   * @param newData the new content of each changed data unit (index = unit; others ignored)
   * @param log Parix's logs, read by NEW_DATA and written by OLD_AND_NEW_DATA transfers
   * @return all n units after the update: new data and the plan's new parities
   * @throws IllegalStateException naming the transfer or parity when the plan is not executable or incomplete
   */
  public static byte[][] apply(UpdatePlan plan, byte[][] oldUnits, byte[][] newData, ParixLog log) {
    return new UpdateExecution(plan).run(oldUnits, newData, log);
  }

  private byte[][] run(byte[][] oldUnits, byte[][] newData, ParixLog log) {
    int n = pattern.code().n();
    if (oldUnits.length != n) {
      throw new IllegalArgumentException(pattern.code().spec() + ": " + oldUnits.length + " old units, need " + n);
    }
    int len = oldUnits[0].length;
    byte[][] after = new byte[n][];
    for (int u = 0; u < n; u++) {
      after[u] = u < k && pattern.isChanged(u) ? newData[u].clone() : oldUnits[u].clone();
    }
    // What each data unit's node holds at the start: its own delta (its content, when re-encoding).
    Map<Place, Map<Integer, Delta>> held = new HashMap<>();
    for (int d = 0; d < k; d++) {
      byte[] delta = plan.reEncode() ? after[d] : xor(after[d], oldUnits[d]);
      held.computeIfAbsent(Place.unit(d, pattern.rackOf(d)), p -> new HashMap<>()).put(d, new Delta(delta, unitVector(d)));
    }
    // Partial sums of parity rows held at a place, each with the units it sums over (a re-encoding chain's).
    Map<Place, Map<Integer, Partial>> partials = new HashMap<>();
    Delta[] parity = new Delta[n];
    for (int p = k; p < n; p++) {
      parity[p] = new Delta(new byte[len], new int[k]);
    }
    for (Transfer t : plan.transfers()) {
      switch (t.kind()) {
        case DATA_DELTA -> {
          Delta[] sent = new Delta[t.units().length];
          for (int i = 0; i < sent.length; i++) {
            sent[i] = held(t, t.units()[i], held, parity);
          }
          if (t.to().isRelay()) {
            Map<Integer, Delta> target = held.computeIfAbsent(t.to(), p -> new HashMap<>());
            for (int i = 0; i < sent.length; i++) {
              target.put(t.units()[i], copy(sent[i]));
            }
          } else {
            int p = targetParity(t);
            for (int i = 0; i < sent.length; i++) {
              add(parity[p], pattern.coefficient(p, t.units()[i]), copy(sent[i]));
            }
          }
        }
        case PARITY_DELTA -> {
          for (int p : t.parities()) {
            Delta sum = parityDelta(t, p, held, partials, parity);
            if (t.to().unit() == p) {
              requireRenewed(p, t);
              add(parity[p], 1, sum);
            } else if (t.parities().length == 1 && !t.to().isRelay() && t.to().unit() >= k) {
              targetParity(t); // a single parity's delta sent to another parity's node: names the mistake
            } else {
              // A partial sum on its way (a re-encoding chain's step, or its collector holding a row to deliver).
              Partial at = partials.computeIfAbsent(t.to(), x -> new HashMap<>()).computeIfAbsent(p,
                  x -> new Partial(new Delta(new byte[len], new int[k]), new java.util.BitSet()));
              add(at.sum(), 1, sum);
              for (int u : t.units()) {
                if (at.units().get(u)) {
                  throw new IllegalStateException(plan.scheme() + ": " + t + ": " + t.to() + " already holds a sum"
                      + " over " + pattern.unitName(u) + " for " + pattern.unitName(p));
                }
                at.units().set(u);
              }
            }
          }
        }
        case OLD_AND_NEW_DATA, NEW_DATA -> {
          int p = targetParity(t);
          int d = t.units()[0];
          byte[] before = t.kind() == Transfer.Kind.OLD_AND_NEW_DATA ? oldUnits[d] : log.get(p, d);
          if (before == null) {
            throw new IllegalStateException(plan.scheme() + ": " + t + ": parity node of " + pattern.unitName(p)
                + " has no log of " + pattern.unitName(d) + " for a new-data-only update");
          }
          add(parity[p], pattern.coefficient(p, d), new Delta(xor(after[d], before), unitVector(d)));
          log.put(p, d, after[d]);
        }
        default -> throw new IllegalStateException("unknown transfer kind " + t.kind());
      }
    }
    for (int p = k; p < n; p++) {
      int[] expected = new int[k];
      // A re-encoding writes only the parities the change touches; the others are already the live data's encode.
      boolean kept = plan.reEncode() && untouched(p);
      for (int d = 0; d < k && !pattern.isDropped(p) && !kept; d++) {
        boolean sends = plan.reEncode() ? !pattern.isCleared(d) : pattern.isChanged(d);
        expected[d] = sends ? pattern.code().generator().get(p, d) : 0;
      }
      if (!Arrays.equals(expected, parity[p].coef())) {
        throw new IllegalStateException(plan.scheme() + ": parity " + pattern.unitName(p) + " received coefficients "
            + Arrays.toString(parity[p].coef()) + " on the data deltas, needs " + Arrays.toString(expected));
      }
      // A dropped parity is virtual after the update: a known zero block, not renewed (it received nothing).
      after[p] = pattern.isDropped(p) ? new byte[len]
          : kept ? oldUnits[p].clone() : plan.reEncode() ? parity[p].bytes() : xor(oldUnits[p], parity[p].bytes());
    }
    return after;
  }

  /** What the transfer's source holds of unit {@code s}: its delta, or a parity's as accumulated so far. */
  private Delta held(Transfer t, int s, Map<Place, Map<Integer, Delta>> held, Delta[] parity) {
    // A parity's own node holds its delta as accumulated so far (a UniLRC group's global parity).
    Delta d = s >= k && t.from().unit() == s ? parity[s] : held.getOrDefault(t.from(), Map.of()).get(s);
    if (d == null) {
      throw new IllegalStateException(plan.scheme() + ": " + t + ": the source does not hold the delta of "
          + pattern.unitName(s));
    }
    return d;
  }

  /**
   * Parity {@code p}'s delta over the transfer's units as its source sends it: the partial sum over some of them it
   * was sent (a chain's upstream steps) plus gamma(p, s) times each other unit's delta it holds.
   */
  private Delta parityDelta(Transfer t, int p, Map<Place, Map<Integer, Delta>> held,
      Map<Place, Map<Integer, Partial>> partials, Delta[] parity) {
    Partial part = partials.getOrDefault(t.from(), Map.of()).get(p);
    java.util.BitSet listed = new java.util.BitSet();
    for (int u : t.units()) {
      listed.set(u);
    }
    Delta sum = new Delta(new byte[parity[k].bytes().length], new int[k]);
    if (part != null) {
      java.util.BitSet extra = (java.util.BitSet) part.units().clone();
      extra.andNot(listed);
      if (!extra.isEmpty()) {
        throw new IllegalStateException(plan.scheme() + ": " + t + ": the source's sum for " + pattern.unitName(p)
            + " also covers " + pattern.unitNames(extra.stream().toArray()));
      }
      add(sum, 1, part.sum());
    }
    for (int u : t.units()) {
      if (part == null || !part.units().get(u)) {
        // A re-encoding computes every row from the data, by the generator (a UniLRC local parity's row included).
        int gamma = plan.reEncode() && u < k ? pattern.code().generator().get(p, u) : pattern.coefficient(p, u);
        add(sum, gamma, copy(held(t, u, held, parity)));
      }
    }
    return sum;
  }

  /** Whether no changed unit enters parity {@code p}'s row. */
  private boolean untouched(int p) {
    return Arrays.stream(pattern.changed()).allMatch(d -> pattern.code().generator().get(p, d) == 0);
  }

  /** Checks that a transfer may renew parity {@code p}: not a parity the update drops. */
  private void requireRenewed(int p, Transfer t) {
    if (pattern.isDropped(p)) {
      throw new IllegalStateException(plan.scheme() + ": " + t + " renews parity " + pattern.unitName(p)
          + ", which the update drops");
    }
  }

  /** A partial sum of a parity row and the units it sums over. */
  private record Partial(Delta sum, java.util.BitSet units) {}

  /** The parity a transfer to a unit's node renews: that unit, which the transfer must serve alone. */
  private int targetParity(Transfer t) {
    int p = t.to().unit();
    if (t.to().isRelay() || p < k || !Arrays.equals(t.parities(), new int[] {p})) {
      throw new IllegalStateException(plan.scheme() + ": " + t + " must end at the node of the single parity it serves");
    }
    requireRenewed(p, t);
    return p;
  }

  private int[] unitVector(int d) {
    int[] v = new int[k];
    v[d] = 1;
    return v;
  }

  private static Delta copy(Delta d) {
    return new Delta(d.bytes().clone(), d.coef().clone());
  }

  private static void add(Delta acc, int gamma, Delta delta) {
    byte[] a = acc.bytes();
    byte[] b = delta.bytes();
    for (int i = 0; i < a.length; i++) {
      a[i] ^= (byte) Gf256.multiply(gamma, b[i] & 0xff);
    }
    int[] c = acc.coef();
    for (int d = 0; d < c.length; d++) {
      c[d] ^= Gf256.multiply(gamma, delta.coef()[d]);
    }
  }

  private static byte[] xor(byte[] a, byte[] b) {
    byte[] c = new byte[a.length];
    for (int i = 0; i < a.length; i++) {
      c[i] = (byte) (a[i] ^ b[i]);
    }
    return c;
  }
}
