package org.wideec.archive.mr;

/**
 * The archival job's counters (group {@code org.wideec.archive.mr.ArchiveCounter}); the final state of every stripe is
 * counted in the group {@link #STRIPES_GROUP}, one counter per state name. As for any MapReduce job, only successful
 * task attempts count: a killed attempt's work shows in its successor's (which resumes it) as what was left to do.
 */
public enum ArchiveCounter {
  /** Archive units that reached their final state (TRIMMED, or COMMITTED with no trim) in this job. */
  PATHS_DONE,
  /** Archive units already in their final state when their task came to them. */
  PATHS_SKIPPED,
  /** Archive units that did not reach their final state (an error, a stale stripe, a block left off plan). */
  PATHS_FAILED,
  /** Stripes taken into ENCODING (a stripe VERIFIED before a crash is never encoded again). */
  STRIPES_ENCODED,
  /** Stripes found in ENCODING or PARITY_WRITTEN, left by a killed run, and rolled back to be encoded again. */
  STRIPES_ROLLED_BACK,
  /** Data bytes the encoders read. */
  BYTES_ENCODED,
  /** Parity bytes the encoders stored. */
  PARITY_BYTES_WRITTEN,
  /** Cross-rack bytes the plans cost for the stripes encoded (units planned by the listing; see ArchiveItem). */
  CROSS_RACK_BYTES_PLANNED,
  /** Data blocks moved onto their planned nodes (before a chain encode, and while trimming). */
  BLOCKS_MOVED,
  /** Data bytes of the stripes done so far (what the progress shows). */
  DATA_BYTES_DONE;

  /** The group with one counter per final stripe state (COMMITTED, TRIMMED, STALE, ...). */
  public static final String STRIPES_GROUP = "org.wideec.archive.mr.StripesByState";
}
