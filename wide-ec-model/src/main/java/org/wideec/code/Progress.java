package org.wideec.code;

/** Where a long computation reports how much of its work is done (a CLI shows it with an ETA). */
@FunctionalInterface
public interface Progress {
  Progress NONE = (done, total) -> {};

  /** {@code done} of {@code total} units of work are finished; called often, so it must be cheap. */
  void at(long done, long total);
}
