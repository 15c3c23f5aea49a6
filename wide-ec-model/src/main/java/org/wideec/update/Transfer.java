package org.wideec.update;

import java.util.Arrays;

/**
 * One message of an update plan: the deltas of some units sent from one place to another, serving the listed
 * parity units. The units are data units, except that an LRC group holding global parities (UniLRC) renews its
 * local parity from their deltas too. Its size in chunks follows from its kind (RackCU §II-D):
 * <ul>
 *   <li>{@code DATA_DELTA}: one chunk per unit, the delta (new - old) of each; the receiver applies gamma itself;</li>
 *   <li>{@code PARITY_DELTA}: one chunk per served parity p, the sum over the units s of gamma(p,s) times the delta
 *       of s, gamma being {@link UpdatePattern#coefficient};</li>
 *   <li>{@code OLD_AND_NEW_DATA}: Parix's first update of a unit, its old and new content, two chunks;</li>
 *   <li>{@code NEW_DATA}: Parix's later updates of a unit, its new content only, one chunk.</li>
 * </ul>
 * In a re-encoding plan a "delta" is taken from the all-zero stripe, so it is the unit's new content.
 */
public record Transfer(Phase phase, Place from, Place to, Kind kind, int[] units, int[] parities) {
  /** What the message carries. */
  public enum Kind { DATA_DELTA, PARITY_DELTA, OLD_AND_NEW_DATA, NEW_DATA }

  /** Which step of the update the message belongs to (RackCU §III-A's two phases, plus local parities). */
  public enum Phase { DELTA_COLLECTING, PARITY_UPDATE, LOCAL_PARITY_UPDATE }

  public Transfer {
    if (phase == null || from == null || to == null || kind == null) {
      throw new IllegalArgumentException("a transfer needs a phase, a source, a target and a kind");
    }
    if (from.equals(to)) {
      throw new IllegalArgumentException("transfer from " + from + " to itself");
    }
    units = units.clone();
    parities = parities.clone();
    if (units.length == 0 || parities.length == 0) {
      throw new IllegalArgumentException(kind + " transfer " + from + " -> " + to + " carries no data unit or serves no parity");
    }
    if ((kind == Kind.OLD_AND_NEW_DATA || kind == Kind.NEW_DATA) && units.length != 1) {
      throw new IllegalArgumentException(kind + " carries exactly one data unit, got " + Arrays.toString(units));
    }
  }

  /** Chunks this message puts on the wire. */
  public int chunks() {
    return switch (kind) {
      case DATA_DELTA, NEW_DATA -> units.length;
      case PARITY_DELTA -> parities.length;
      case OLD_AND_NEW_DATA -> 2;
    };
  }

  public boolean crossRack() {
    return from.rack() != to.rack();
  }

  @Override
  public int[] units() {
    return units.clone();
  }

  @Override
  public int[] parities() {
    return parities.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Transfer t && t.phase == phase && t.from.equals(from) && t.to.equals(to) && t.kind == kind
        && Arrays.equals(t.units, units) && Arrays.equals(t.parities, parities);
  }

  @Override
  public int hashCode() {
    return ((from.hashCode() * 31 + to.hashCode()) * 31 + kind.hashCode()) * 31 + Arrays.hashCode(units);
  }

  @Override
  public String toString() {
    return phase + " " + kind + " " + from + " -> " + to + " units " + Arrays.toString(units) + " parities "
        + Arrays.toString(parities);
  }
}
