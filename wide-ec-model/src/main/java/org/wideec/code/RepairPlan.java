package org.wideec.code;

import java.util.Arrays;

/**
 * How to rebuild one lost unit: lost = sum of coefficients[i] * helpers[i]. A plan is data; the coder
 * and the repair engine carry it out.
 */
public record RepairPlan(int lostUnit, int[] helpers, int[] coefficients, boolean xorOnly, boolean local) {
  public RepairPlan {
    if (helpers.length != coefficients.length) {
      throw new IllegalArgumentException("helpers and coefficients differ in length");
    }
    helpers = helpers.clone();
    coefficients = coefficients.clone();
  }

  /** Number of units read: the paper's cost(b_i). */
  public int cost() {
    return helpers.length;
  }

  @Override
  public int[] helpers() {
    return helpers.clone();
  }

  @Override
  public int[] coefficients() {
    return coefficients.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RepairPlan p && p.lostUnit == lostUnit && Arrays.equals(p.helpers, helpers)
        && Arrays.equals(p.coefficients, coefficients);
  }

  @Override
  public int hashCode() {
    return 31 * lostUnit + Arrays.hashCode(helpers);
  }

  @Override
  public String toString() {
    return "repair " + lostUnit + " from " + Arrays.toString(helpers) + (xorOnly ? " (xor)" : "");
  }
}
