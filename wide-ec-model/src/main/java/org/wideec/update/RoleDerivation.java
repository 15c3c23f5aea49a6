package org.wideec.update;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.wideec.gf.Gf256;
import org.wideec.update.UpdateRoles.Input;
import org.wideec.update.UpdateRoles.Output;
import org.wideec.update.UpdateRoles.Role;

/**
 * The roles of a delta plan built transfer by transfer in plan order, tracking what each held row means (its
 * coefficients on the changed data units' deltas) for the checks {@link UpdateRoles#of} promises: a source sends only
 * rows it holds by then, every renewed parity ends with exactly its generator row over the deltas.
 */
final class RoleDerivation {
  private final UpdatePlan plan;
  private final UpdatePattern pattern;
  private final int k;
  private final Map<Place, Builder> places = new LinkedHashMap<>();

  private RoleDerivation(UpdatePlan plan) {
    this.plan = plan;
    this.pattern = plan.pattern();
    this.k = pattern.code().k();
  }

  /** Every place's role, in the order the plan first names the places. */
  static Map<Place, Role> of(UpdatePlan plan) {
    RoleDerivation d = new RoleDerivation(plan);
    List<Transfer> ts = plan.transfers();
    for (int i = 0; i < ts.size(); i++) {
      d.add(i, ts.get(i));
    }
    return d.roles();
  }

  private void add(int index, Transfer t) {
    if (t.kind() != Transfer.Kind.DATA_DELTA && t.kind() != Transfer.Kind.PARITY_DELTA) {
      throw new IllegalArgumentException(plan.scheme() + ": " + t + ": only data and parity deltas are streamed"
          + " between places, not " + t.kind());
    }
    Builder from = place(t.from());
    Builder to = place(t.to());
    int[][] rows = from.rowsFor(t);
    from.outputs.add(new Output(index, t.to(), rows));
    to.receive(index, t, Arrays.stream(rows).map(from::meaning).toList());
  }

  private Builder place(Place p) {
    return places.computeIfAbsent(p, Builder::new);
  }

  private Map<Place, Role> roles() {
    for (int p = k; p < pattern.code().n(); p++) {
      int parity = p;
      if (!pattern.isDropped(p)
          && Arrays.stream(pattern.changed()).anyMatch(d -> pattern.code().generator().get(parity, d) != 0)) {
        place(Place.unit(p, pattern.rackOf(p))); // a parity the plan never reaches fails its check below
      }
    }
    Map<Place, Role> out = new LinkedHashMap<>();
    for (Builder b : places.values()) {
      out.put(b.place, b.role());
    }
    return out;
  }

  /** One place as the plan's transfers reach it. */
  private final class Builder {
    final Place place;
    final int ownDelta;
    final List<int[]> meanings = new ArrayList<>(); // per held row, its coefficients on the data units' deltas
    final Map<Integer, Integer> deltaRow = new HashMap<>(); // data unit -> held row carrying its delta
    final List<Input> inputs = new ArrayList<>();
    final List<Output> outputs = new ArrayList<>();
    int[] parity; // at a parity's node: its delta so far, over held rows

    Builder(Place place) {
      this.place = place;
      boolean data = !place.isRelay() && place.unit() < k;
      if (data && !pattern.isChanged(place.unit())) {
        throw new IllegalArgumentException(plan.scheme() + ": " + UpdateRoles.name(plan, place) + " takes part but its"
            + " unit does not change");
      }
      this.ownDelta = data ? place.unit() : -1;
      if (data) {
        int[] e = new int[k];
        e[place.unit()] = 1;
        meanings.add(e);
        deltaRow.put(place.unit(), 0);
      }
      if (!place.isRelay() && place.unit() >= k) {
        parity = new int[0];
      }
    }

    /** The delta of unit s as a combination of held rows (a parity's own delta at its node, UniLRC). */
    int[] delta(Transfer t, int s) {
      if (s >= k && place.unit() == s) {
        return parity.clone();
      }
      Integer row = deltaRow.get(s);
      if (row == null) {
        throw new IllegalArgumentException(plan.scheme() + ": " + t + ": " + UpdateRoles.name(plan, place) + " does not"
            + " hold the delta of " + pattern.unitName(s));
      }
      int[] v = new int[row + 1];
      v[row] = 1;
      return v;
    }

    int[][] rowsFor(Transfer t) {
      int[] units = t.units();
      if (t.kind() == Transfer.Kind.DATA_DELTA) {
        int[][] rows = new int[units.length][];
        for (int i = 0; i < units.length; i++) {
          rows[i] = delta(t, units[i]);
        }
        return rows;
      }
      int[] parities = t.parities();
      int[][] rows = new int[parities.length][];
      for (int i = 0; i < parities.length; i++) {
        int[] sum = new int[0];
        for (int s : units) {
          sum = addScaled(sum, pattern.coefficient(parities[i], s), delta(t, s));
        }
        rows[i] = sum;
      }
      return rows;
    }

    void receive(int index, Transfer t, List<int[]> rowMeanings) {
      int first = meanings.size();
      inputs.add(new Input(index, t.from(), rowMeanings.size()));
      meanings.addAll(rowMeanings);
      int[] units = t.units();
      if (place.isRelay()) {
        if (t.kind() != Transfer.Kind.DATA_DELTA) {
          throw new IllegalArgumentException(plan.scheme() + ": " + t + ": a relay forwards data deltas; parity"
              + " deltas end at their parity's node");
        }
        for (int i = 0; i < units.length; i++) {
          deltaRow.put(units[i], first + i);
        }
        return;
      }
      int p = place.unit();
      if (p < k || !Arrays.equals(t.parities(), new int[] {p})) {
        throw new IllegalArgumentException(plan.scheme() + ": " + t + " must end at a relay or at the node of the"
            + " single parity it serves");
      }
      if (pattern.isDropped(p)) {
        throw new IllegalArgumentException(plan.scheme() + ": " + t + " renews parity " + pattern.unitName(p)
            + ", which the update drops");
      }
      for (int i = 0; i < rowMeanings.size(); i++) {
        int gamma = t.kind() == Transfer.Kind.DATA_DELTA ? pattern.coefficient(p, units[i]) : 1;
        int[] v = new int[first + i + 1];
        v[first + i] = 1;
        parity = addScaled(parity, gamma, v);
      }
    }

    int[] meaning(int[] row) {
      int[] m = new int[k];
      for (int j = 0; j < row.length; j++) {
        if (row[j] != 0) {
          for (int d = 0; d < k; d++) {
            m[d] ^= Gf256.multiply(row[j], meanings.get(j)[d]);
          }
        }
      }
      return m;
    }

    Role role() {
      int held = meanings.size();
      List<Output> outs = outputs.stream().map(o -> new Output(o.transfer(), o.to(),
          Arrays.stream(o.rows()).map(r -> Arrays.copyOf(r, held)).toArray(int[][]::new))).toList();
      int[] pd = null;
      if (parity != null) {
        int p = place.unit();
        int[] expected = new int[k];
        for (int d : pattern.changed()) {
          expected[d] = pattern.code().generator().get(p, d);
        }
        if (!Arrays.equals(expected, meaning(parity))) {
          throw new IllegalArgumentException(plan.scheme() + ": parity " + pattern.unitName(p) + " would receive"
              + " coefficients " + Arrays.toString(meaning(parity)) + " on the data deltas, needs "
              + Arrays.toString(expected));
        }
        pd = Arrays.copyOf(parity, held);
      }
      return new Role(place, ownDelta, inputs, outs, pd);
    }
  }

  private static int[] addScaled(int[] acc, int gamma, int[] v) {
    int[] out = Arrays.copyOf(acc, Math.max(acc.length, v.length));
    for (int j = 0; j < v.length; j++) {
      out[j] ^= Gf256.multiply(gamma, v[j]);
    }
    return out;
  }
}
