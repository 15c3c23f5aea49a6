package org.wideec.repair;

/** Weight of the directed link between two nodes: higher means slower (e.g. 1 / measured bandwidth). */
@FunctionalInterface
public interface LinkWeights {
  double weight(String fromNode, String toNode);

  /** Every link the same. */
  LinkWeights UNIFORM = (a, b) -> 1.0;
}
