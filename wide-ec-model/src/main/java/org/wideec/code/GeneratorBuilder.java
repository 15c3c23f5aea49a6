package org.wideec.code;

import java.util.ArrayList;
import java.util.List;
import org.wideec.gf.Field;
import org.wideec.gf.Gf256;
import org.wideec.gf.Matrix;

/**
 * Assembles a systematic generator matrix: k identity rows for the data, then parity rows in the order
 * they are added (globals before locals, see {@link LinearCode}). Works over any field so a construction
 * can also be instantiated with random coefficients of a large field for structural checks.
 */
final class GeneratorBuilder {
  private final Field field;
  private final int k;
  private final List<int[]> rows = new ArrayList<>();
  private final List<UnitRole> roles = new ArrayList<>();
  private final List<LocalGroup> groups = new ArrayList<>();

  GeneratorBuilder(Field field, int k) {
    this.field = field;
    this.k = k;
    for (int i = 0; i < k; i++) {
      int[] r = new int[k];
      r[i] = 1;
      rows.add(r);
      roles.add(UnitRole.DATA);
    }
  }

  int units() {
    return rows.size();
  }

  /** The row (over the data) of an existing unit. */
  int[] row(int unit) {
    return rows.get(unit).clone();
  }

  int addGlobal(int[] coefficients) {
    return add(coefficients, UnitRole.GLOBAL_PARITY);
  }

  /**
   * Adds a local parity equal to sum coefficient[i] * unit members[i] (members are earlier units, data or
   * global parities), and records its local group.
   */
  int addLocal(int[] members, int[] coefficients) {
    int[] r = new int[k];
    boolean xor = true;
    for (int i = 0; i < members.length; i++) {
      int[] src = rows.get(members[i]);
      xor &= coefficients[i] == 1;
      for (int j = 0; j < k; j++) {
        if (src[j] != 0) {
          r[j] ^= field.mul(coefficients[i], src[j]);
        }
      }
    }
    int unit = add(r, UnitRole.LOCAL_PARITY);
    int[] all = java.util.Arrays.copyOf(members, members.length + 1);
    all[members.length] = unit;
    groups.add(new LocalGroup(groups.size(), all, unit, xor));
    return unit;
  }

  private int add(int[] r, UnitRole role) {
    if (r.length != k) {
      throw new IllegalArgumentException("parity row of length " + r.length + " for k = " + k);
    }
    rows.add(r.clone());
    roles.add(role);
    return rows.size() - 1;
  }

  Matrix generator() {
    return Matrix.of(field, rows.toArray(new int[0][]));
  }

  LinearCode build(String spec, String notes) {
    return build(spec, notes, -1);
  }

  LinearCode build(String spec, String notes, int guaranteedTolerance) {
    if (field != Gf256.INSTANCE) {
      throw new IllegalStateException("codes are built over GF(2^8) only");
    }
    return new LinearCode(spec, generator(), roles.toArray(new UnitRole[0]), groups, notes, guaranteedTolerance);
  }

  /** All-ones coefficient vector of the given length. */
  static int[] ones(int length) {
    int[] c = new int[length];
    java.util.Arrays.fill(c, 1);
    return c;
  }

  /** Consecutive units from..from+count-1. */
  static int[] range(int from, int count) {
    int[] r = new int[count];
    for (int i = 0; i < count; i++) {
      r[i] = from + i;
    }
    return r;
  }
}
