package org.wideec.code;

/**
 * The span of a growing set of units of one code: add units one by one and ask whether another unit
 * can be rebuilt from those added so far. Incremental, so probing rack after rack costs one elimination
 * per added unit.
 */
public final class UnitSpan {
  private final LinearCode code;
  private final RowSpan span;

  public UnitSpan(LinearCode code) {
    this.code = code;
    this.span = new RowSpan(code.k());
  }

  /** Adds a unit; true when it brought new information. */
  public boolean add(int unit) {
    code.checkUnit(unit);
    return span.add(code.generator().row(unit));
  }

  /** True when the unit is a combination of the units added so far. */
  public boolean canRebuild(int unit) {
    code.checkUnit(unit);
    return span.contains(code.generator().row(unit));
  }

  /** Dimension of the span (k means everything can be rebuilt). */
  public int rank() {
    return span.size();
  }
}
