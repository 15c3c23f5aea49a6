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
  RACK_AGGREGATED,
  /**
   * Each rack's helpers pipelined into one partial sum that goes straight to the requestor, which adds them: ECWide's
   * inner-rack repair sub-operations, each rack sending one cross-rack chunk (§2.3, §4.1), with ECPipe's chain inside
   * each rack. The same bytes cross racks as {@link #RACK_AGGREGATED}, but no rack receives a partial sum to send it on:
   * the racks work in parallel, and only the requestor's link takes more than one range.
   */
  RACK_STAR;

  /** Whether the helpers of each rack add their parts inside it, so one partial sum per rack crosses racks. */
  public boolean aggregatesInRacks() {
    return this == RACK_AGGREGATED || this == RACK_STAR;
  }
}
