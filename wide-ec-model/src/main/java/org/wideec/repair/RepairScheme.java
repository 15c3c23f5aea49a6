package org.wideec.repair;

/** How the helpers of a single-unit repair move data (ECPipe §2-4, ECWide §4.1). */
public enum RepairScheme {
  /** Star: every helper sends its block to the requestor, which decodes (HDFS's reconstructor). */
  CONVENTIONAL,
  /** A chain of helpers, each adding its part and forwarding, slice by slice (ECPipe §3.2). */
  PIPELINED,
  /** Pipelined over rotations of the chain, so the requestor reads from k - 1 helpers (ECPipe §4.1). */
  CYCLIC,
  /** Pipelined along the chain that minimises the heaviest link (ECPipe §4.2, Algorithm 1). */
  WEIGHTED,
  /** Pipelined with the chain grouped by rack, requestor's rack last: one cross-rack hop per other rack (ECWide §4.1). */
  RACK_AGGREGATED
}
